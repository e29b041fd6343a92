package render

import "io"

// WriteJSON writes v as indented JSON (2 spaces) with a trailing newline, without HTML escaping.
// Every --json envelope goes through it, so machine output has one shape. DEL, C1 and bidi
// control characters inside strings are written as JSON \u escapes (textsafe.EscapeJSON): the
// values are unchanged for a program, and the bytes are safe on a terminal.
//
// The output is written through a buffer as it is encoded: an Array in v (reached through
// structs, pointers and slices) is encoded one element at a time, so the memory WriteJSON needs
// is that of the largest element, not of the whole output. The bytes are those encoding/json
// writes for v as a whole. On an error part of the output may have been written.
func WriteJSON(w io.Writer, v any) error {
	return newJSONStream(w).writeJSON(v)
}

// jsonRenderer writes View.JSON; a view without a JSON form writes nothing.
type jsonRenderer struct{}

func (jsonRenderer) Render(s Streams, v View) error {
	j := v.JSON()
	if j == nil {
		return nil
	}
	return WriteJSON(s.Out, j)
}
