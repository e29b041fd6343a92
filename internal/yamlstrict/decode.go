package yamlstrict

// Decode decodes exactly one YAML document under the strict rules of
// executor-report-v1.md §2. A decode.* issue (syntax, multi_document,
// not_mapping including empty input) returns a nil Doc. value.* issues are
// collected with a non-nil Doc. Decode never panics: decoder panics are
// recovered as decode.syntax.
//
// Positions are 1-based lines and code-point columns in src (after a leading
// UTF-8 BOM, which is skipped). A yaml.v3 syntax error keeps the decoder's
// line number in its message and is positioned at column 1 of that line
// (yaml.v3 gives no column; a few of its messages give no line, and then the
// position is zero). decode.multi_document is positioned at the second
// document's `---`. Besides yaml.v3's own errors, decode.syntax covers
// invalid UTF-8 and the YAML 1.2 violations yaml.v3 lets through: invalid
// escapes in double-quoted scalars (\'), a '#' right after a closing quote,
// and continuation lines of quoted scalars and flow collections that are not
// indented more than their parent block collection.
func Decode(src []byte) (*Doc, []Issue) {
	return decodeYAML(src)
}
