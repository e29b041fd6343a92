package render

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// WriteJSON writes v as indented JSON (2 spaces) with a trailing newline, without HTML escaping.
// Every --json envelope goes through it, so machine output has one shape. DEL, C1 and bidi
// control characters inside strings are written as JSON \u escapes (textsafe.EscapeJSON): the
// values are unchanged for a program, and the bytes are safe on a terminal.
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(textsafe.EscapeJSON(b.Bytes()))
	return err
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
