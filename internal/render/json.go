package render

import "io"

// WriteJSON writes v as JSON indented by two spaces with a trailing newline, without HTML
// escaping, and with control and bidi characters in strings written as \u escapes so the bytes
// are safe on a terminal. Every --json envelope goes through it, streaming each Array one element
// at a time; on an error part of the output may have been written.
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
