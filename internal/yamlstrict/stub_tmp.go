package yamlstrict

func decodeYAML(src []byte) (*Doc, []Issue) {
	return nil, []Issue{{Rule: RuleSyntax, Message: "YAML syntax error: not implemented yet"}}
}
func decodeJSON(src []byte) (*Doc, []Issue) {
	return nil, []Issue{{Rule: RuleSyntax, Message: "JSON syntax error: not implemented yet"}}
}
