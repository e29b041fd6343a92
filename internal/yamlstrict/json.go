package yamlstrict

// DecodeJSON decodes one RFC 8259 JSON text with the same contract as Decode
// and the same value rules (no null, no duplicate keys, depth <= 64, integer
// versus float by literal form: 1.0 is a float). Every key and value gets a
// position (line, column in code points). Syntax errors are decode.syntax.
func DecodeJSON(src []byte) (*Doc, []Issue) {
	return decodeJSON(src)
}
