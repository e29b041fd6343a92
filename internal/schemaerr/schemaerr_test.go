package schemaerr

import (
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema"
	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema/kind"
)

const docURL = "mastermind:///test.schema.json"

func validate(t *testing.T, schema, instance string) *jsonschema.ValidationError {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(docURL, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(docURL)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(instance))
	if err != nil {
		t.Fatal(err)
	}
	var ve *jsonschema.ValidationError
	if err := sch.Validate(v); !errors.As(err, &ve) {
		t.Fatalf("Validate(%s) = %v, want a *ValidationError", instance, err)
	}
	return ve
}

type got struct {
	Instance, Document, Schema, Keyword, Pointer, Message string
}

func summarise(ls []Leaf) []got {
	var out []got
	for _, l := range ls {
		out = append(out, got{l.Instance, l.Document, l.Schema, l.Keyword, l.KeywordPointer(), Message(l.ErrorKind)})
	}
	return out
}

// TestLeavesLocations: locations are plain RFC 6901 pointers, whatever the property names hold,
// and a $ref'd failure is located in the referenced schema.
func TestLeavesLocations(t *testing.T) {
	schema := `{
	  "type": "object",
	  "required": ["a b"],
	  "properties": {
	    "a b": {"type": "string"},
	    "100%": {"$ref": "#/$defs/t~01x"},
	    "p/q": {"type": "object", "properties": {"~": {"minLength": 2}}, "additionalProperties": false}
	  },
	  "$defs": {"t~1x": {"enum": ["x", 1]}}
	}`
	ve := validate(t, schema, `{"100%": "y", "p/q": {"~": "z", "extra": 1}}`)
	want := []got{
		{"", docURL, "", "required", "/required", "missing properties: 'a b'"},
		{"/100%", docURL, "/$defs/t~01x", "enum", "/$defs/t~01x/enum", `value must be one of "x", "1"`},
		{"/p~1q", docURL, "/properties/p~1q", "additionalProperties", "/properties/p~1q/additionalProperties", "additionalProperties 'extra' not allowed"},
		{"/p~1q/~0", docURL, "/properties/p~1q/properties/~0", "minLength", "/properties/p~1q/properties/~0/minLength", "length must be >= 2, but got 1"},
	}
	byPointer := func(a, b got) int { return strings.Compare(a.Pointer, b.Pointer) }
	gotLeaves := summarise(Leaves(ve))
	slices.SortFunc(want, byPointer)
	slices.SortFunc(gotLeaves, byPointer)
	if diff := cmp.Diff(want, gotLeaves); diff != "" {
		t.Errorf("leaves (-want +got):\n%s", diff)
	}
}

// TestLeavesPropertyNames: a failing property name is located at that member.
func TestLeavesPropertyNames(t *testing.T) {
	ve := validate(t, `{"propertyNames": {"maxLength": 3}}`, `{"ok": 1, "a/long": 2}`)
	ls := Leaves(ve)
	if len(ls) != 1 || ls[0].Instance != "/a~1long" || ls[0].Keyword != "maxLength" {
		t.Fatalf("leaves = %+v", summarise(ls))
	}
}

// TestLeavesOneOf: the causes of a failed oneOf are located at their branches.
func TestLeavesOneOf(t *testing.T) {
	ve := validate(t, `{"oneOf": [{"$ref": "#/$defs/s"}, {"type": "integer"}], "$defs": {"s": {"type": "string"}}}`, `1.5`)
	var one *jsonschema.ValidationError
	for _, c := range ve.Causes {
		if _, ok := c.ErrorKind.(*kind.OneOf); ok {
			one = c
		}
	}
	if _, ok := ve.ErrorKind.(*kind.OneOf); ok {
		one = ve
	}
	if one == nil {
		t.Fatalf("no oneOf node in %v", ve)
	}
	var branches []string
	for _, c := range one.Causes {
		branches = append(branches, Locate(c).Schema)
	}
	if diff := cmp.Diff([]string{"/oneOf/0", "/oneOf/1"}, branches); diff != "" {
		t.Errorf("branch locations (-want +got):\n%s", diff)
	}
	if got := Message(one.ErrorKind); got != "oneOf failed" {
		t.Errorf("Message(oneOf) = %q", got)
	}
}

// TestMessage pins the v5 wording each kind is rendered in.
func TestMessage(t *testing.T) {
	r := func(s string) *big.Rat { x, _ := new(big.Rat).SetString(s); return x }
	for _, tc := range []struct {
		k    jsonschema.ErrorKind
		want string
	}{
		{&kind.FalseSchema{}, "not allowed"},
		{&kind.Type{Got: "number", Want: []string{"string", "null"}}, "expected string or null, but got number"},
		{&kind.Const{Want: "x"}, `value must be "x"`},
		{&kind.Const{Want: map[string]any{}}, "const failed"},
		{&kind.Enum{Want: []any{"a"}}, `value must be "a"`},
		{&kind.Enum{Want: []any{"a", true}}, `value must be one of "a", true`},
		{&kind.Enum{Want: []any{[]any{}}}, "enum failed"},
		{&kind.Format{Got: "nope", Want: "date"}, "'nope' is not valid 'date'"},
		{&kind.Format{Got: 5, Want: "x"}, "5 is not valid 'x'"},
		{&kind.Required{Missing: []string{"a", "it's"}}, `missing properties: 'a', 'it\'s'`},
		{&kind.AdditionalProperties{Properties: []string{"x"}}, "additionalProperties 'x' not allowed"},
		{&kind.DependentRequired{Prop: "q", Missing: []string{"a", "b"}}, "property 'a' is required, if 'q' property exists; property 'b' is required, if 'q' property exists"},
		{&kind.MinProperties{Got: 1, Want: 2}, "minimum 2 properties allowed, but found 1 properties"},
		{&kind.MaxItems{Got: 3, Want: 1}, "maximum 1 items required, but found 3 items"},
		{&kind.MinItems{Got: 0, Want: 1}, "minimum 1 items required, but found 0 items"},
		{&kind.UniqueItems{Duplicates: [2]int{0, 2}}, "items at index 0 and 2 are equal"},
		{&kind.MinContains{Got: []int{1}, Want: 2}, "valid must be >= 2, but got 1"},
		{&kind.MinLength{Got: 0, Want: 1}, "length must be >= 1, but got 0"},
		{&kind.MaxLength{Got: 6, Want: 3}, "length must be <= 3, but got 6"},
		{&kind.Pattern{Got: "y", Want: "^x"}, "does not match pattern '^x'"},
		{&kind.Minimum{Got: r("-1"), Want: r("0")}, "must be >= 0 but found -1"},
		{&kind.Maximum{Got: r("5/2"), Want: r("2")}, "must be <= 2 but found 2.5"},
		{&kind.ExclusiveMaximum{Got: r("3"), Want: r("5/2")}, "must be < 2.5 but found 3"},
		{&kind.MultipleOf{Got: r("3"), Want: r("2")}, "3 not multipleOf 2"},
		{&kind.OneOf{}, "oneOf failed"},
		{&kind.OneOf{Subschemas: []int{0, 1}}, "valid against schemas at indexes 0 and 1"},
		{&kind.AnyOf{}, "anyOf failed"},
		{&kind.Not{}, "not failed"},
	} {
		if got := Message(tc.k); got != tc.want {
			t.Errorf("Message(%T%+v) = %q, want %q", tc.k, tc.k, got, tc.want)
		}
	}
}
