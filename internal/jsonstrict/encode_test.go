package jsonstrict

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEncodeKeepsOrderAndLiterals: a decoded value is written back with its members in source
// order, its numbers as written, no HTML escaping and only the escapes JSON requires.
func TestEncodeKeepsOrderAndLiterals(t *testing.T) {
	v, err := Decode([]byte(`{"b": 1.0, "a": ["x<y&z", null, true, 1e400], "\u00e9": {}, "c": [], "q": "tab\there \"q\" \u0001"}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	const compact = `{"b":1.0,"a":["x<y&z",null,true,1e400],"é":{},"c":[],"q":"tab\there \"q\" \u0001"}`
	if got := v.Compact(); got != compact {
		t.Errorf("Compact = %s\nwant      %s", got, compact)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil || b.String() != compact+"\n" {
		t.Errorf("encoding/json = %s, %v", b.String(), err)
	}
	const indented = "{\n  \"b\": 1.0,\n  \"a\": [\n    \"x<y&z\",\n    null,\n    true,\n    1e400\n  ],\n  \"é\": {},\n  \"c\": [],\n  \"q\": \"tab\\there \\\"q\\\" \\u0001\"\n}\n"
	if got := string(v.Indent()); got != indented {
		t.Errorf("Indent = %q\nwant     %q", got, indented)
	}
	want := map[string]any{"b": json.Number("1.0"), "a": []any{"x<y&z", nil, true, json.Number("1e400")},
		"é": map[string]any{}, "c": []any{}, "q": "tab\there \"q\" \x01"}
	if d := cmp.Diff(want, v.Any()); d != "" {
		t.Errorf("Any (-want +got):\n%s", d)
	}
}

// TestEncodeInvalidUTF8: with AllowInvalidUTF8 an invalid byte decodes to U+FFFD, which is
// written as that character.
func TestEncodeInvalidUTF8(t *testing.T) {
	v, err := Decode([]byte("[\"a\xffb\"]"), Options{AllowInvalidUTF8: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Compact(); got != "[\"a\uFFFDb\"]" {
		t.Errorf("Compact = %q", got)
	}
}
