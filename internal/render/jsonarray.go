package render

import (
	"bytes"
	"encoding/json"
	"iter"
)

// Array is a JSON array whose elements are made one at a time, for the large arrays of a --json
// envelope (the findings of 200,000 changed paths, gitscope.md §8.1 scenario B). WriteJSON writes
// it element by element, so an envelope holding an Array never exists encoded in memory as a
// whole; any other encoder gets the whole array from MarshalJSON. Either way the bytes are those
// of a []T holding the same elements, and an Array is never null (an optional one is a *Array).
// The zero Array is empty.
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
