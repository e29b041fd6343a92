package yamlstrict

import (
	"strconv"
	"strings"
	"testing"
)

func TestDecodeDocumentRules(t *testing.T) {
	runDecodeCases(t, Decode, []decodeCase{
		{"empty", "", "-", []want{"decode.not_mapping  0:0"}},
		{"blank lines", "\n\n  \n", "-", []want{"decode.not_mapping  0:0"}},
		{"comment only", "# nothing here\n", "-", []want{"decode.not_mapping  0:0"}},
		{"bom only", "\xEF\xBB\xBF", "-", []want{"decode.not_mapping  0:0"}},
		{"explicit empty document", "---\n", "-", []want{"decode.not_mapping  0:0"}},
		{"list root", "- a\n- b\n", "-", []want{"decode.not_mapping  1:1"}},
		{"scalar root", "just text\n", "-", []want{"decode.not_mapping  1:1"}},
		{"quoted empty root", "''\n", "-", []want{"decode.not_mapping  1:1"}},
		{"syntax", "a: [1, 2\nb: 3\n", "-", []want{"decode.syntax  1:4"}},
		{"syntax tab indent", "a:\n\tb: 1\n", "-", []want{"decode.syntax  2:1"}},
		{"undefined alias", "a: *nope\n", "-", []want{"decode.syntax  1:4"}},
		{"invalid utf8", "a: b\nc: \xff\n", "-", []want{"decode.syntax  2:4"}},
		// Y15.
		{"Y15 two documents", "schema_version: 1\nstatus: complete\n---\nstatus: failed\n", "-",
			[]want{"decode.multi_document  3:1"}},
		{"second document empty", "a: 1\n---\n", "-", []want{"decode.multi_document  2:1"}},
		{"second document after end marker", "a: 1\n...\n---\nb: 2\n", "-", []want{"decode.multi_document  3:1"}},
		{"second document syntax error", "a: 1\n---\nb: [\n", "-", []want{"decode.syntax  3:4"}},
		{"end marker only", "a: 1\n...\n", `{"a":1}`, nil},
		{"leading document marker", "---\na: 1\n", `{"a":1}`, nil},
		{"bom", "\xEF\xBB\xBFa: 1\n", `{"a":1}`, nil},
	})
}

func TestDecodeMessages(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"", "the report must be a mapping of fields; got an empty block"},
		{"- a\n", "the report must be a mapping of fields; got a list"},
		{"x\n", "the report must be a mapping of fields; got a scalar"},
		{"a: 1\n---\nb: 2\n", "the yaml block holds more than one document (second starts at line 2); write exactly one"},
		{"a: [1\n", `YAML syntax error: the "[" opened here is never closed on its line; add "]" at the end of the value, or write one "- item" per line`},
		{"a: b\nc: \x01\n", `YAML syntax error: control character U+0001 is not allowed; remove it, or write it escaped in a double-quoted string (\u0001)`},
		{"a:\n  - b\n c: d\n", "YAML syntax error: did not find expected key"},
		{"a:\n", "a is null; omit an optional field instead of leaving it empty, or give it a value"},
		{"phases:\n  - id: ~\n", "phases[0].id is null; omit an optional field instead of leaving it empty, or give it a value"},
		{"spec: !!str x\n", "spec uses the YAML tag !!str; tags are not allowed — write the plain value"},
		{"spec: ! 42\n", "spec uses the YAML tag !; tags are not allowed — write the plain value"},
		{"spec: !custom x\n", "spec uses the YAML tag !custom; tags are not allowed — write the plain value"},
		{"spec: !<tag:yaml.org,2002:str> x\n", "spec uses the YAML tag !<tag:yaml.org,2002:str>; tags are not allowed — write the plain value"},
		{"a: &x 1\n", "anchors and aliases are not allowed (found &x); write the value out in full"},
		{"<<: {a: 1}\n", "merge keys (<<) are not allowed; write the fields out in full"},
		{"7: x\n", "mapping key 7 is not a string; field names are strings"},
		{"a: 1\nb: 2\na: 3\n", "key a appears twice in the same mapping (lines 1 and 3); remove one"},
		{"a: .nan\n", "a is .nan; numbers must be finite"},
		{"a: 0x8000000000000000\n", "a integer 0x8000000000000000 does not fit in 64 bits"},
		{"a: " + strings.Repeat("[", 64) + strings.Repeat("]", 64) + "\n", "nesting deeper than 64 levels"},
		{"\"a\\x1bb\": ~\n", `a\u001Bb is null; omit an optional field instead of leaving it empty, or give it a value`},
	}
	for _, tt := range tests {
		_, issues := Decode([]byte(tt.src))
		if len(issues) != 1 || issues[0].Message != tt.msg {
			t.Errorf("Decode(%q) issues = %+v\nwant one with message %q", tt.src, issues, tt.msg)
		}
	}
}

func TestDecodeValueRules(t *testing.T) {
	deep := func(n int) string { // n nested mappings under the root: a: {a: ... 1}
		return strings.Repeat("{a: ", n) + "1" + strings.Repeat("}", n)
	}
	runDecodeCases(t, Decode, []decodeCase{
		// value.null
		{"null forms", "a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: x\n", `{"a":null,"b":null,"c":null,"d":null,"e":null,"f":"x"}`,
			[]want{"value.null /a 1:4", "value.null /b 2:4", "value.null /c 3:4", "value.null /d 4:4", "value.null /e 5:3"}},
		{"null list item", "a:\n  - \n  - x\n  -\n", `{"a":[null,"x",null]}`,
			[]want{"value.null /a/0 2:4", "value.null /a/2 4:4"}},
		{"null in flow", "a: {b: , c: ~}\n", `{"a":{"b":null,"c":null}}`,
			[]want{"value.null /a/b 1:8", "value.null /a/c 1:13"}},
		{"empty value before comment", "a:   # note\nb: 1\n", `{"a":null,"b":1}`, []want{"value.null /a 1:3"}},
		{"quoted null is a string", "a: 'null'\nb: \"~\"\n", `{"a":"null","b":"~"}`, nil},
		// value.tag
		{"tags", "a: !!str x\nb: !custom y\nc: ! 12\nd: !!binary aGk=\ne: \"ok\"\n", `{"a":null,"b":null,"c":null,"d":null,"e":"ok"}`,
			[]want{"value.tag /a 1:4", "value.tag /b 2:4", "value.tag /c 3:4", "value.tag /d 4:4"}},
		{"tag on quoted", "a: ! \"x\"\nb: !!str 'y'\n", `{"a":null,"b":null}`,
			[]want{"value.tag /a 1:4", "value.tag /b 2:4"}},
		{"tag on collections", "a: !!map {b: 1}\nc: !!seq\n  - 1\n", `{"a":null,"c":null}`,
			[]want{"value.tag /a 1:4", "value.tag /c 2:4"}},
		{"non-specific tag on empty", "a: !\n", `{"a":null}`, []want{"value.tag /a 1:4"}},
		{"tag in flow list", "a: [1, !!int 2, ! 3]\n", `{"a":[1,null,null]}`,
			[]want{"value.tag /a/1 1:8", "value.tag /a/2 1:17"}},
		{"tag on root", "--- !!map\na: 1\n", `null`, []want{"value.tag  1:5"}},
		{"tag on key", "!!str a: 1\nb: 2\n", `{"a":null,"b":2}`, []want{"value.tag /a 1:1"}},
		{"non-specific tag on first key", "! a: 1\n", `{"a":null}`, []want{"value.tag /a 1:1"}},
		{"tag on first key of nested mapping", "x:\n  - !!str a: 1\n    b: 2\n", `{"x":[{"a":null,"b":2}]}`, []want{"value.tag /x/0/a 2:5"}},
		{"tag on block mapping", "x: !!map\n  a: 1\n", `{"x":null}`, []want{"value.tag /x 1:4"}},
		{"non-specific tag on block mapping", "x: !\n  a: 1\n", `{"x":null}`, []want{"value.tag /x 1:4"}},
		{"exclamation inside a scalar is text", "a: b!c\nd: 'e!'\nf: x ! y\n", `{"a":"b!c","d":"e!","f":"x ! y"}`, nil},
		// value.anchor
		{"anchor and alias", "a: &x 1\nb: *x\n", `{"a":null,"b":null}`,
			[]want{"value.anchor /a 1:4", "value.anchor /b 2:4"}},
		{"anchor on collection", "a: &m\n  b: 1\nc: [&s [1], *s]\n", `{"a":null,"c":[null,null]}`,
			[]want{"value.anchor /a 1:4", "value.anchor /c/0 3:5", "value.anchor /c/1 3:13"}},
		{"alias key", "a: &k x\n*k : 1\n", `{"a":null}`,
			[]want{"value.anchor /a 1:4", "value.anchor /*k 2:1"}},
		{"anchored key", "&k a: 1\n", `{"a":null}`, []want{"value.anchor /a 1:1"}},
		{"anchor and tag", "a: &x !!str 1\n", `{"a":null}`, []want{"value.anchor /a 1:4", "value.tag /a 1:4"}},
		// value.merge_key
		{"merge key", "a: 1\n<<: {b: 2}\n", `{"a":1}`, []want{"value.merge_key /<< 2:1"}},
		{"merge key with alias", "base: &b {x: 1}\nd:\n  <<: *b\n  y: 2\n", `{"base":null,"d":{"y":2}}`,
			[]want{"value.anchor /base 1:7", "value.merge_key /d/<< 3:3"}},
		{"quoted merge key is ordinary", "\"<<\": 1\n'<<': 2\n", `{"<<":1}`, []want{"value.duplicate_key /<< 2:1"}},
		// value.key_not_string
		{"non-string keys", "7: a\ntrue: b\nnull: c\n1.5: d\n~: e\n.inf: f\nok: g\n", `{"ok":"g"}`,
			[]want{"value.key_not_string /7 1:1", "value.key_not_string /true 2:1", "value.key_not_string /null 3:1",
				"value.key_not_string /1.5 4:1", "value.key_not_string /~0 5:1", "value.key_not_string /.inf 6:1"}},
		{"empty key", "? \n: a\nb: c\n", `{"b":"c"}`, []want{"value.key_not_string / 1:2"}},
		{"empty implicit key (yaml.v3 rejects)", ": a\nb: c\n", "-", []want{"decode.syntax  0:0"}},
		{"quoted keys are strings", "'7': a\n\"true\": b\n? |\n  lit\n: c\n", `{"7":"a","true":"b","lit\n":"c"}`, nil},
		{"plain keys that stay strings", "yes: a\n1_000: b\n2024-01-15: c\n0b1: d\n", `{"yes":"a","1_000":"b","2024-01-15":"c","0b1":"d"}`, nil},
		{"collection keys", "? [a]\n: 1\n? {b: c}\n: 2\nd: 3\n", `{"d":3}`,
			[]want{"value.key_not_string /[…] 1:3", "value.key_not_string /{…} 3:3"}},
		// value.duplicate_key
		{"duplicate", "a: 1\nb: 2\na: 3\n", `{"a":1,"b":2}`, []want{"value.duplicate_key /a 3:1"}},
		{"duplicate nested and flow", "x:\n  a: 1\n  a: 2\ny: {b: 1, b: 2, b: 3}\n", `{"x":{"a":1},"y":{"b":1}}`,
			[]want{"value.duplicate_key /x/a 3:3", "value.duplicate_key /y/b 4:11", "value.duplicate_key /y/b 4:17"}},
		{"duplicate quoted and plain", "a: 1\n'a': 2\n", `{"a":1}`, []want{"value.duplicate_key /a 2:1"}},
		{"duplicate keeps first even if null", "a:\na: 1\n", `{"a":null}`, []want{"value.null /a 1:3", "value.duplicate_key /a 2:1"}},
		{"duplicate value not walked", "a: 1\na: ~\n", `{"a":1}`, []want{"value.duplicate_key /a 2:1"}},
		// value.depth: the root mapping is depth 1; 64 levels are fine, 65 are not.
		{"depth 64", "a: " + deep(63) + "\n", "", nil},
		{"depth 65", "a: " + deep(64) + "\n", "", []want{"value.depth /a" + strings.Repeat("/a", 63) + " 1:" + itoa(4+63*4)}},
		{"depth 65 list", "a: " + strings.Repeat("[", 64) + strings.Repeat("]", 64) + "\n", "", []want{"value.depth /a" + strings.Repeat("/0", 63) + " 1:67"}},
		{"scalar at depth 65 is fine", "a: " + strings.Repeat("[", 63) + "x" + strings.Repeat("]", 63) + "\n", "", nil},
		// value.non_finite and value.int_range
		{"non finite", "a: .inf\nb: -.Inf\nc: .NaN\nd: '.inf'\n", `{"a":null,"b":null,"c":null,"d":".inf"}`,
			[]want{"value.non_finite /a 1:4", "value.non_finite /b 2:4", "value.non_finite /c 3:4"}},
		{"int range", "a: 9223372036854775808\nb: -9223372036854775808\nc: 0o1777777777777777777777\n", `{"a":null,"b":-9223372036854775808,"c":null}`,
			[]want{"value.int_range /a 1:4", "value.int_range /c 3:4"}},
		// Literal, folded and quoted scalars are strings.
		{"styles", "a: '010'\nb: \"1e3\"\nc: |\n  true\nd: >\n  12\n", `{"a":"010","b":"1e3","c":"true\n","d":"12\n"}`, nil},
		{"escaped pointer tokens", "a/b: 1\nc~d: ~\n", `{"a/b":1,"c~d":null}`, []want{"value.null /c~0d 2:6"}},
	})
}

// TestDecodeCoreSchemaValues runs the §2.3 consequences table through Decode.
func TestDecodeCoreSchemaValues(t *testing.T) {
	src := "a: 010\nb: 0011\nc: 08\nd: 1_000\ne: 0b101\nf: yes\ng: no\nh: on\ni: off\nj: y\nk: n\nl: 2024-01-15\nm: 1.1\no: 1e3\np: 0o17\nq: 0x1F\n"
	doc, issues := Decode([]byte(src))
	if len(issues) != 0 {
		t.Fatalf("issues: %+v", issues)
	}
	want := map[string]any{"a": int64(10), "b": int64(11), "c": int64(8), "d": "1_000", "e": "0b101",
		"f": "yes", "g": "no", "h": "on", "i": "off", "j": "y", "k": "n", "l": "2024-01-15",
		"m": 1.1, "o": 1000.0, "p": int64(15), "q": int64(31)}
	got := doc.Value.(map[string]any)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %#v (%T), want %#v (%T)", k, got[k], got[k], w, w)
		}
	}
	if n := doc.Nodes["/m"]; n.Kind != KindFloat || n.Literal != "1.1" || !n.Plain {
		t.Errorf("node /m = %+v", n)
	}
}

func TestDecodeNodes(t *testing.T) {
	src := "schema_version: 1\nspec: \"x\"\nphases:\n  - id: p1\n    status: done\n  - {id: p2, status: skipped}\nnote: |\n  text\nempty:\né: ü\n"
	doc, _ := Decode([]byte(src))
	if doc == nil {
		t.Fatal("nil doc")
	}
	checkNodes(t, doc)
	tests := []struct {
		ptr  string
		want Node
	}{
		{"", Node{Pos: Pos{1, 1}, Kind: KindMap, Keys: []string{"schema_version", "spec", "phases", "note", "empty", "é"}}},
		{"/schema_version", Node{Pos: Pos{1, 17}, KeyPos: Pos{1, 1}, Kind: KindInt, Literal: "1", Plain: true}},
		{"/spec", Node{Pos: Pos{2, 7}, KeyPos: Pos{2, 1}, Kind: KindString, Literal: "x"}},
		{"/phases", Node{Pos: Pos{4, 3}, KeyPos: Pos{3, 1}, Kind: KindList, Len: 2}},
		{"/phases/0", Node{Pos: Pos{4, 5}, Kind: KindMap, Keys: []string{"id", "status"}}},
		{"/phases/0/status", Node{Pos: Pos{5, 13}, KeyPos: Pos{5, 5}, Kind: KindString, Literal: "done", Plain: true}},
		{"/phases/1", Node{Pos: Pos{6, 5}, Kind: KindMap, Keys: []string{"id", "status"}}},
		{"/phases/1/status", Node{Pos: Pos{6, 22}, KeyPos: Pos{6, 14}, Kind: KindString, Literal: "skipped", Plain: true}},
		{"/note", Node{Pos: Pos{7, 7}, KeyPos: Pos{7, 1}, Kind: KindString, Literal: "text\n"}},
		{"/empty", Node{Pos: Pos{9, 7}, KeyPos: Pos{9, 1}, Kind: KindNull, Plain: true}},
		{"/é", Node{Pos: Pos{10, 4}, KeyPos: Pos{10, 1}, Kind: KindString, Literal: "ü", Plain: true}},
	}
	for _, tt := range tests {
		got, ok := doc.Nodes[tt.ptr]
		if !ok {
			t.Errorf("no node %q", tt.ptr)
			continue
		}
		if got.Pos != tt.want.Pos || got.KeyPos != tt.want.KeyPos || got.Kind != tt.want.Kind ||
			got.Literal != tt.want.Literal || got.Plain != tt.want.Plain || got.Len != tt.want.Len ||
			strings.Join(got.Keys, ",") != strings.Join(tt.want.Keys, ",") {
			t.Errorf("node %q = %+v, want %+v", tt.ptr, *got, tt.want)
		}
	}
	if len(doc.Nodes) != 13 {
		t.Errorf("%d nodes, want 13", len(doc.Nodes))
	}
}

// TestDecodeUnicodeColumns checks that columns count code points, so the
// non-specific tag check finds the `!` after multi-byte characters and tabs.
func TestDecodeUnicodeColumns(t *testing.T) {
	runDecodeCases(t, Decode, []decodeCase{
		{"after multibyte key", "日本語: ! 5\n", `{"日本語":null}`, []want{"value.tag /日本語 1:6"}},
		{"flow after multibyte", "a: [ü, ! x, 😀, ~]\n", `{"a":["ü",null,"😀",null]}`,
			[]want{"value.tag /a/1 1:8", "value.null /a/3 1:16"}},
		{"tab before value", "a:\t! 1\n", `{"a":null}`, []want{"value.tag /a 1:4"}},
		{"crlf lines", "a: 1\r\nb: ! 2\r\nc: ~\r\n", `{"a":1,"b":null,"c":null}`, []want{"value.tag /b 2:4", "value.null /c 3:4"}},
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
