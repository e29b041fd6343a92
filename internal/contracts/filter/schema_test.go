package filter

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRefsAndCombinators: labels and presence follow local $ref and allOf; anyOf failures flatten
// to one line per leaf cause.
func TestRefsAndCombinators(t *testing.T) {
	s := mustSchema(t, `{
		"type": "object",
		"$defs": {"entry": {"type": "object", "required": ["file", "line"],
			"properties": {"file": {"type": "string", "x-label": "path"}, "line": {"type": "integer"}}}},
		"required": ["entry_points", "gaps"],
		"properties": {
			"entry_points": {"type": "array", "items": {"$ref": "#/$defs/entry"}},
			"gaps": {"type": "array", "items": {"type": "string"}},
			"id": {"anyOf": [{"type": "integer"}, {"type": "string", "format": "git-sha"}]}
		},
		"allOf": [{"properties": {"mode": {"type": "string", "x-label": "mode name"}}, "required": ["mode"]}]
	}`)
	d := &Declaration{Mode: ModeJSONSchema, Schema: s}
	_, got := run(t, d, `{"id": "XYZ", "entry_points": [{"file": 3}, {"file": "a.go", "line": "9"}], "gaps": "none", "mode": 1}`)
	want := []string{
		"entry_points[0].file (required, path) — wrong type: got a number",
		"entry_points[0].line (required, integer) — absent",
		"entry_points[1].line (required, integer) — wrong type: got a string",
		"gaps (required, array of string) — wrong type: got a string, not a list",
		`id (optional, string) — not a commit SHA (7–40 lowercase hex): "XYZ"`,
		`id (optional, integer) — wrong type: got a string`,
		"mode (required, mode name) — wrong type: got a number",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"entry_points", "gaps", "mode"}, s.RequiredTopLevel()); diff != "" {
		t.Fatal(diff)
	}
}
