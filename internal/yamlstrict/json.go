package yamlstrict

// DecodeJSON decodes one RFC 8259 JSON text with the same contract and value
// rules as Decode; 1.0 is a float and 1 an int. Syntax errors, lone surrogate
// escapes and invalid UTF-8 among them, are decode.syntax positioned at the
// offending character.
func DecodeJSON(src []byte) (*Doc, []Issue) {
	return decodeJSON(src)
}
