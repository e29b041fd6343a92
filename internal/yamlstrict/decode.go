package yamlstrict

// Decode decodes exactly one YAML document under the strict rules of
// executor-report-v1.md §2. A decode.* issue returns a nil Doc; value.* issues
// are collected with a non-nil Doc. Decode never panics, and positions are
// 1-based lines and code-point columns in src after a leading BOM.
func Decode(src []byte) (*Doc, []Issue) {
	return decodeYAML(src)
}
