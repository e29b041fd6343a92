package yamlstrict

// DecodeJSON decodes one RFC 8259 JSON text (executor-report-v1.md §1.5) with
// the same contract as Decode and the same value rules (no null, no duplicate
// keys, depth <= 64, integer versus float by literal form: 1.0 is a float,
// 1 is an int). JSON escapes YAML lacks, such as \/, are accepted. Every key
// and value gets a position (line, column in code points; CR, LF and CR LF
// end a line). Syntax errors are decode.syntax positioned at the offending
// character, with encoding/json-style messages; lone UTF-16 surrogate escapes,
// invalid UTF-8 and nesting deeper than 10000 levels are syntax errors too.
// An empty text is decode.not_mapping ("an empty block"), like Decode.
func DecodeJSON(src []byte) (*Doc, []Issue) {
	return decodeJSON(src)
}
