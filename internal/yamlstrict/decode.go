package yamlstrict

// Decode decodes exactly one YAML document under the strict rules of
// executor-report-v1.md §2. A decode.* issue (syntax, multi_document,
// not_mapping including empty input) returns a nil Doc. value.* issues are
// collected with a non-nil Doc. Decode never panics: decoder panics are
// recovered as decode.syntax.
func Decode(src []byte) (*Doc, []Issue) {
	return decodeYAML(src)
}
