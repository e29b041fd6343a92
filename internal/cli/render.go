package cli

import (
	"encoding/json"
	"io"
)

// writeJSON writes v as indented JSON (2 spaces) with a trailing newline, without HTML escaping.
// Every --json envelope goes through it, so machine output has one shape.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
