package render

import (
	"bytes"
	"encoding/json"
	"iter"
)

// Array is a JSON array whose elements are made one at a time, for the large arrays of a --json
// envelope (gitscope.md §8.1 scenario B). WriteJSON writes it element by element and any other
// encoder gets it whole from MarshalJSON, with the same bytes as a []T. An Array is never null,
// and the zero Array is empty.
type Array struct {
	seq iter.Seq[any]
}

// NewArray returns the Array of the elements seq yields. seq is ranged over each time the array is
// encoded, so it must yield the same elements each time, and stop when yield returns false.
func NewArray(seq iter.Seq[any]) Array { return Array{seq: seq} }

// ArrayOf returns the Array of s's elements, each converted by conv when it is encoded (for
// example a finding.Finding to its finding.Audit shape), without copying s.
func ArrayOf[T, U any](s []T, conv func(T) U) Array {
	return NewArray(func(yield func(any) bool) {
		for _, x := range s {
			if !yield(conv(x)) {
				return
			}
		}
	})
}

// All yields the elements.
func (a Array) All() iter.Seq[any] {
	if a.seq == nil {
		return func(func(any) bool) {}
	}
	return a.seq
}

// MarshalJSON encodes the whole array compactly, each element as encoding/json encodes it
// without HTML escaping (an outer json.Marshal escapes HTML in the result, as it would in a
// []T). Errors are the elements' encoding errors.
func (a Array) MarshalJSON() ([]byte, error) {
	var b, e bytes.Buffer
	enc := json.NewEncoder(&e)
	enc.SetEscapeHTML(false)
	b.WriteByte('[')
	for x := range a.All() {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		e.Reset()
		if err := enc.Encode(x); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimSuffix(e.Bytes(), []byte("\n")))
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}
