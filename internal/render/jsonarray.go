package render

import (
	"bytes"
	"encoding/json"
)

// Array is a JSON array whose elements are made one at a time, for the large arrays of a --json
// envelope (the findings of 200,000 changed paths, gitscope.md §8.1 scenario B). WriteJSON writes
// it element by element, so an envelope holding an Array never exists encoded in memory as a
// whole; any other encoder gets the whole array from MarshalJSON. Either way the bytes are those
// of a []T holding the same elements, and an Array is never null (an optional one is a *Array).
// The zero Array is empty.
type Array struct {
	n  int
	at func(i int) any
}

// NewArray returns the Array of n elements, element i being at(i) for 0 <= i < n. at is called
// each time the array is encoded, so it must return the same value each time.
func NewArray(n int, at func(i int) any) Array {
	return Array{n: n, at: at}
}

// ArrayOf returns the Array of s's elements, each converted by conv when it is encoded (for
// example a finding.Finding to its finding.Audit shape), without copying s.
func ArrayOf[T, U any](s []T, conv func(T) U) Array {
	return Array{n: len(s), at: func(i int) any { return conv(s[i]) }}
}

// Len is the number of elements.
func (a Array) Len() int { return a.n }

// At returns element i.
func (a Array) At(i int) any { return a.at(i) }

// MarshalJSON encodes the whole array compactly, each element as encoding/json encodes it
// without HTML escaping (an outer json.Marshal escapes HTML in the result, as it would in a
// []T). Errors are the elements' encoding errors.
func (a Array) MarshalJSON() ([]byte, error) {
	var b, e bytes.Buffer
	enc := json.NewEncoder(&e)
	enc.SetEscapeHTML(false)
	b.WriteByte('[')
	for i := range a.n {
		if i > 0 {
			b.WriteByte(',')
		}
		e.Reset()
		if err := enc.Encode(a.at(i)); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimSuffix(e.Bytes(), []byte("\n")))
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}
