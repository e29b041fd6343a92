package filter

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValidateKinds pins the item each validator error kind maps to, including the ones whose
// location or split jsonschema/v6 reports differently from v5: a bad property name is the member,
// a dependentRequired gives one item per missing property, a false subschema is "not allowed",
// and an empty enum refuses every value.
func TestValidateKinds(t *testing.T) {
	for _, tc := range []struct {
		name, schema, value string
		want                []string
	}{
		{"property names", `{"propertyNames": {"maxLength": 3}}`, `{"ok": 1, "a b c": 2}`,
			[]string{"a b c (optional, any) — length must be <= 3, but got 5"}},
		{"dependent required", `{"dependentRequired": {"q": ["a", "b"]}}`, `{"q": 1}`,
			[]string{"(output) (required, any) — property 'a' is required, if 'q' property exists",
				"(output) (required, any) — property 'b' is required, if 'q' property exists"}},
		{"false subschema", `{"properties": {"d": false}}`, `{"d": 1}`,
			[]string{"d (optional, any) — not allowed"}},
		{"false root", `false`, `{"d": 1}`,
			[]string{"(output) (not allowed, any) — not declared in the OUTPUT schema"}},
		{"empty enum", `{"properties": {"e": {"enum": []}}}`, `{"e": 1}`,
			[]string{"e (optional, any) — no value is allowed (the enum is empty); got 1"}},
		{"pattern", `{"properties": {"a/b": {"type": "string", "pattern": "^x"}}}`, `{"a/b": "y"}`,
			[]string{"a/b (optional, string) — does not match pattern '^x'"}},
		{"minimum", `{"properties": {"n": {"type": "integer", "minimum": 2}}}`, `{"n": 1}`,
			[]string{"n (optional, integer) — must be >= 2 but found 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSchema(t, tc.schema)
			v, err := ParseJSON([]byte(tc.value))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range s.validateA(v) {
				got = append(got, it.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
		})
	}
}
