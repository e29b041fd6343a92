package yamlstrict

import (
	"strings"
	"testing"
)

func TestDecodeJSON(t *testing.T) {
	deep := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	runDecodeCases(t, DecodeJSON, []decodeCase{
		{"simple", `{"schema_version": 1, "spec": "x", "ok": true, "no": false, "list": [1, 2.5, "s"], "m": {}}`,
			`{"schema_version":1,"spec":"x","ok":true,"no":false,"list":[1,2.5,"s"],"m":{}}`, nil},
		{"escapes", `{"a": "\/\"\\\b\f\n\r\t\u00e9\ud83d\ude00"}`, `{"a":"/\"\\\b\f\n\r\té😀"}`, nil},
		{"null", "{\"a\": null,\n \"b\": [null]}", `{"a":null,"b":[null]}`,
			[]want{"value.null /a 1:7", "value.null /b/0 2:8"}},
		{"duplicate keys", "{\"a\": 1,\n \"b\": 2,\n \"a\": {\"x\": null}}", `{"a":1,"b":2}`,
			[]want{"value.duplicate_key /a 3:2"}},
		{"duplicate after escape", `{"a": 1, "\u0061": 2}`, `{"a":1}`, []want{"value.duplicate_key /a 1:10"}},
		{"int range", `{"a": 9223372036854775807, "b": 9223372036854775808, "c": -9223372036854775809}`,
			`{"a":9223372036854775807,"b":null,"c":null}`, []want{"value.int_range /b 1:33", "value.int_range /c 1:59"}},
		{"non finite", `{"a": 1e400, "b": -1e999}`, `{"a":null,"b":null}`, []want{"value.non_finite /a 1:7", "value.non_finite /b 1:19"}},
		{"depth 64", `{"a":` + deep(63) + `}`, "", nil},
		{"depth 65", `{"a":` + deep(64) + `}`, "", []want{"value.depth /a" + strings.Repeat("/a", 63) + " 1:" + itoa(6+63*5)}},
		{"depth 65 list", `{"a":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}`, "", []want{"value.depth /a" + strings.Repeat("/0", 63) + " 1:69"}},
		{"pointer escapes", `{"a/b": {"c~d": null}}`, `{"a/b":{"c~d":null}}`, []want{"value.null /a~1b/c~0d 1:17"}},
		{"unicode columns", "{\"é\": \"日本\", \"x\":\tnull}", `{"é":"日本","x":null}`, []want{"value.null /x 1:18"}},
		{"crlf lines", "{\r\n\"a\": null,\r\n\r\"b\": null}", `{"a":null,"b":null}`, []want{"value.null /a 2:6", "value.null /b 4:6"}},
		{"bom", "\xEF\xBB\xBF{\"a\": 1}", `{"a":1}`, nil},
		// Document rules.
		{"empty", "", "-", []want{"decode.not_mapping  0:0"}},
		{"whitespace", " \n\t", "-", []want{"decode.not_mapping  0:0"}},
		{"list root", "[1]", "-", []want{"decode.not_mapping  1:1"}},
		{"scalar root", "\n  \"x\"", "-", []want{"decode.not_mapping  2:3"}},
		// Syntax errors, positioned at the offending character.
		{"yaml flow mapping", "{schema_version: 1}", "-", []want{"decode.syntax  1:2"}},
		{"trailing comma", "{\"a\": 1,}", "-", []want{"decode.syntax  1:9"}},
		{"missing colon", "{\"a\" 1}", "-", []want{"decode.syntax  1:6"}},
		{"unclosed", "{\"a\": [1, 2", "-", []want{"decode.syntax  1:12"}},
		{"unclosed string", "{\"a\": \"x", "-", []want{"decode.syntax  1:9"}},
		{"raw newline in string", "{\"a\": \"x\ny\"}", "-", []want{"decode.syntax  1:9"}},
		{"bad escape", `{"a": "\q"}`, "-", []want{"decode.syntax  1:9"}},
		{"yaml-only escape", `{"a": "\x41"}`, "-", []want{"decode.syntax  1:9"}},
		{"lone surrogate", `{"a": "\ud800"}`, "-", []want{"decode.syntax  1:8"}},
		{"bad hex", `{"a": "\u12G4"}`, "-", []want{"decode.syntax  1:12"}},
		{"leading zero", `{"a": 01}`, "-", []want{"decode.syntax  1:8"}},
		{"plus sign", `{"a": +1}`, "-", []want{"decode.syntax  1:7"}},
		{"bare dot", `{"a": 1.}`, "-", []want{"decode.syntax  1:9"}},
		{"exponent without digits", `{"a": 1e}`, "-", []want{"decode.syntax  1:9"}},
		{"NaN literal", `{"a": NaN}`, "-", []want{"decode.syntax  1:7"}},
		{"bad literal", `{"a": nul}`, "-", []want{"decode.syntax  1:7"}},
		{"second value", "{\"a\": 1}\n{\"b\": 2}", "-", []want{"decode.syntax  2:1"}},
		{"comment", "{\"a\": 1} // c", "-", []want{"decode.syntax  1:10"}},
		{"invalid utf8", "{\"a\": \"\xff\"}", "-", []want{"decode.syntax  1:8"}},
		{"control char", "{\"a\": \"\x01\"}", "-", []want{"decode.syntax  1:8"}},
		{"syntax error wins over value issues", `{"a": null, "a": 1`, "-", []want{"decode.syntax  1:19"}},
	})
}

func TestDecodeJSONNodes(t *testing.T) {
	src := "{\n  \"schema_version\": 1,\n  \"ratio\": 1.0,\n  \"exp\": 1e3,\n  \"s\": \"010\",\n  \"phases\": [\n    {\"id\": \"p1\"}\n  ]\n}\n"
	doc, issues := DecodeJSON([]byte(src))
	if len(issues) != 0 {
		t.Fatalf("issues: %+v", issues)
	}
	checkNodes(t, doc)
	v := doc.Value.(map[string]any)
	if v["schema_version"] != int64(1) || v["ratio"] != 1.0 || v["exp"] != 1000.0 || v["s"] != "010" {
		t.Errorf("values: %#v", v)
	}
	tests := []struct {
		ptr     string
		pos     Pos
		keyPos  Pos
		kind    Kind
		literal string
		plain   bool
	}{
		{"", Pos{1, 1}, Pos{}, KindMap, "", false},
		{"/schema_version", Pos{2, 21}, Pos{2, 3}, KindInt, "1", true},
		{"/ratio", Pos{3, 12}, Pos{3, 3}, KindFloat, "1.0", true},
		{"/exp", Pos{4, 10}, Pos{4, 3}, KindFloat, "1e3", true},
		{"/s", Pos{5, 8}, Pos{5, 3}, KindString, "010", false},
		{"/phases", Pos{6, 13}, Pos{6, 3}, KindList, "", false},
		{"/phases/0", Pos{7, 5}, Pos{}, KindMap, "", false},
		{"/phases/0/id", Pos{7, 12}, Pos{7, 6}, KindString, "p1", false},
	}
	for _, tt := range tests {
		n := doc.Nodes[tt.ptr]
		if n == nil || n.Pos != tt.pos || n.KeyPos != tt.keyPos || n.Kind != tt.kind || n.Literal != tt.literal || n.Plain != tt.plain {
			t.Errorf("node %q = %+v, want pos %v key %v kind %v literal %q plain %v", tt.ptr, n, tt.pos, tt.keyPos, tt.kind, tt.literal, tt.plain)
		}
	}
	if got := strings.Join(doc.Nodes[""].Keys, ","); got != "schema_version,ratio,exp,s,phases" {
		t.Errorf("root keys = %s", got)
	}
	if doc.Nodes["/phases"].Len != 1 {
		t.Errorf("phases len = %d", doc.Nodes["/phases"].Len)
	}
}

func TestDecodeJSONMessages(t *testing.T) {
	tests := []struct{ src, msg string }{
		{`{"a" 1}`, "JSON syntax error: invalid character '1' after object key"},
		{`{"a": 1`, "JSON syntax error: unexpected end of JSON input (expected ',' or '}')"},
		{`{"a": null}`, "a is null; omit an optional field instead of leaving it empty, or give it a value"},
		{"{\"a\": 1,\n\"a\": 2}", "key a appears twice in the same mapping (lines 1 and 2); remove one"},
		{`{"x": [1e999]}`, "x[0] is 1e999; numbers must be finite"},
		{`{"x": 18446744073709551616}`, "x integer 18446744073709551616 does not fit in 64 bits"},
		{`[]`, "the report must be a mapping of fields; got a list"},
	}
	for _, tt := range tests {
		_, issues := DecodeJSON([]byte(tt.src))
		if len(issues) != 1 || issues[0].Message != tt.msg {
			t.Errorf("DecodeJSON(%q) = %+v\nwant one issue with message %q", tt.src, issues, tt.msg)
		}
	}
}

// TestDecodeJSONNesting: nesting past MaxDepth is scanned but not converted;
// past 10000 levels it is a syntax error (like yaml.v3), never a stack blow-up.
func TestDecodeJSONNesting(t *testing.T) {
	src := `{"a":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `}`
	doc, issues := DecodeJSON([]byte(src))
	if doc == nil || len(issues) != 1 || issues[0].Rule != RuleDepth {
		t.Fatalf("9999 levels: issues %+v", issues)
	}
	if len(doc.Nodes) != 65 {
		t.Errorf("%d nodes recorded, want 65 (root + 63 lists + the rejected one)", len(doc.Nodes))
	}
	src = `{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`
	if _, issues := DecodeJSON([]byte(src)); len(issues) != 1 || issues[0].Rule != RuleSyntax {
		t.Fatalf("10001 levels: issues %+v", issues)
	}
	src = `{"a":` + strings.Repeat("[", 500000)
	if _, issues := DecodeJSON([]byte(src)); len(issues) != 1 || issues[0].Rule != RuleSyntax {
		t.Fatalf("unclosed deep: issues %+v", issues)
	}
}
