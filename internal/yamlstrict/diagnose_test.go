package yamlstrict

import "testing"

// TestDiagnoseMistakes checks the position and the start of the message for each usual mistake
// (lifecycle-v2.md §9), including list items and flow forms, and that valid look-alikes decode.
func TestDiagnoseMistakes(t *testing.T) {
	cases := []struct {
		name, src string
		line, col int
		msg       string // message prefix after "YAML syntax error: "
	}{
		{"colon in value", "a: x\nb: Fixed: y\n", 2, 9, `the value of "b" is plain text containing ": "`},
		{"colon at end of value", "a: see below:\n", 1, 13, `the value of "a" is plain text containing ": "`},
		{"colon in list item mapping value", "l:\n  - k: a: b\n", 2, 9, `the value of "k" is plain text containing ": "`},
		{"tab", "a:\n\tb: 1\n", 2, 1, "a tab is used for indentation"},
		{"unclosed double quote at the end", "a: 1\nb: \"open\n", 2, 4, `the " quote opened here is never closed`},
		{"unclosed quote before a key", "a: 'open\nb: 2\n", 1, 4, `the ' quote opened here is never closed`},
		{"unclosed quote in a list item", "l:\n  - \"open\n  - b\nc: 1\n", 2, 5, `the " quote opened here is never closed`},
		{"list item indent", "l:\n  - a\n - b\n", 3, 2, "this list item is indented by 1 space but the items above it by 2 spaces"},
		{"key over-indented", "a: 1\n  b: 2\n", 2, 3, `"b" is indented more than "a" above it`},
		{"backtick", "a: `x`\n", 1, 4, `the value of "a" starts with "` + "`" + `"`},
		{"star", "a: **b**\n", 1, 4, `the value of "a" starts with "*", which YAML reads as an alias`},
		{"dash value", "a: - b\n", 1, 4, `the value of "a" starts with "- "`},
		{"text after quote", "a: \"x\" y\n", 1, 8, `text follows the closing quote of the value of "a"`},
		{"no space after colon", "a: 1\nb:2\n", 2, 3, `"b:2" has no space after the colon`},
		{"unclosed flow", "a: [1, 2\nb: 3\n", 1, 4, `the "[" opened here is never closed on its line`},
		{"block scalar in list item mapping", "l:\n  - k: |\n      x: y\n    j: a: b\n", 4, 9, `the value of "j" is plain text containing ": "`},
	}
	for _, c := range cases {
		_, issues := Decode([]byte(c.src))
		if len(issues) != 1 || issues[0].Rule != RuleSyntax {
			t.Errorf("%s: issues %v", c.name, issues)
			continue
		}
		is := issues[0]
		want := "YAML syntax error: " + c.msg
		if is.Pos.Line != c.line || is.Pos.Column != c.col || len(is.Message) < len(want) || is.Message[:len(want)] != want {
			t.Errorf("%s: got %d:%d %q\nwant %d:%d %q…", c.name, is.Pos.Line, is.Pos.Column, is.Message, c.line, c.col, want)
		}
	}
	// Valid look-alikes are not mistakes.
	for _, src := range []string{
		"a: http://x:8080/y\n", "a: 'it''s: fine'\n", "a: \"x: y\"\n", "a: |\n  k: v: w\n  `x`\n", "a: x\n  continues here\n",
		"l:\n- a\n- b\n", "a: [1,\n  2]\n", "a: b # c: d\n", "l:\n  - k: |\n      x: y\n    j: z\n",
	} {
		if _, issues := Decode([]byte(src)); len(issues) != 0 {
			t.Errorf("%q: %v", src, issues)
		}
	}
}
