package outputformat

import (
	"strings"
	"testing"
)

func skill(front string) []byte { return []byte("---\n" + front + "---\n# Skill\n") }

func TestParseSkill(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want Config
	}{
		{"plain with comment", skill("name: a\noutput_format: ^(## .+\\n)+.*   # regex the full output must match\noutput_format_mode: strict       # strict | lenient\n"),
			Config{Declared: true, Pattern: `^(## .+\n)+.*`, Mode: Strict}},
		{"single quoted backslash", skill("output_format: '^\\d+$'\n"), Config{Declared: true, Pattern: `^\d+$`}},
		{"double quoted escape", skill("output_format: \"^\\\\d+$\"\n"), Config{Declared: true, Pattern: `^\d+$`}},
		{"double quoted bad escape", skill("output_format: \"^\\d+$\"\n"), Config{Error: "SKILL.md frontmatter is not valid YAML (found unknown escape character; a backslash in a double-quoted YAML string starts an escape, so write the pattern in single quotes); quote the output_format value"}},
		{"plain with colon space", skill("name: x\noutput_format: ^Result: .+\n"), Config{Error: "SKILL.md frontmatter is not valid YAML (SKILL.md line 3: mapping values are not allowed in this context); quote the output_format value"}},
		{"block scalar", skill("output_format: |-\n  ^## .+\n"), Config{Declared: true, Pattern: "^## .+"}},
		{"exact key", skill("format: a\noutput_format: b\n"), Config{Declared: true, Pattern: "b"}},
		{"empty", skill("output_format: \"\"\n"), Config{}},
		{"null", skill("output_format:\n"), Config{}},
		{"tilde", skill("output_format: ~\n"), Config{}},
		{"number", skill("output_format: 123\n"), Config{Error: "output_format must be a string; quote it"}},
		{"bool", skill("output_format: true\n"), Config{Error: "output_format must be a string; quote it"}},
		{"list", skill("output_format: [a]\n"), Config{Error: "output_format must be a string; quote it"}},
		{"mode upper", skill("output_format: a\noutput_format_mode: STRICT\n"), Config{Error: "output_format_mode must be strict or lenient; got STRICT"}},
		{"mode bool", skill("output_format_mode: true\n"), Config{Error: "output_format_mode must be strict or lenient; got true"}},
		{"mode lenient", skill("output_format: a\noutput_format_mode: 'lenient'\n"), Config{Declared: true, Pattern: "a", Mode: Lenient}},
		{"invalid yaml with output_format", skill("description: Use when: x\noutput_format: a\n"), Config{Error: "SKILL.md frontmatter is not valid YAML (mapping values are not allowed in this context); quote the output_format value"}},
		{"invalid yaml without", skill("description: Use when: x\n"), Config{Note: NoteInvalidYAML}},
		{"duplicate key is invalid yaml", skill("output_format: a\noutput_format: b\n"), Config{Error: "SKILL.md frontmatter is not valid YAML (SKILL.md line 3: mapping key \"output_format\" already defined at SKILL.md line 2); keep one of the duplicate keys"}},
		{"duplicate mode key", skill("output_format: a\noutput_format_mode: strict\noutput_format_mode: lenient\n"), Config{Error: "SKILL.md frontmatter is not valid YAML (SKILL.md line 4: mapping key \"output_format_mode\" already defined at SKILL.md line 3); keep one of the duplicate keys"}},
		{"no frontmatter", []byte("# Skill\noutput_format: a\n"), Config{}},
		{"unterminated frontmatter", []byte("---\noutput_format: a\n"), Config{Error: "SKILL.md frontmatter opened at line 1 is never closed; end it with a line holding only ---"}},
		{"closed by four dashes", []byte("---\nname: x\noutput_format: ^a\n----\nbody\n"), Config{Error: "SKILL.md frontmatter opened at line 1 is never closed (line 4 is \"----\", not \"---\"); end it with a line holding only ---"}},
		{"closed by an indented fence", []byte("---\r\noutput_format: ^a\r\n  ---\r\n"), Config{Error: "SKILL.md frontmatter opened at line 1 is never closed (line 3 is \"  ---\", not \"---\"); end it with a line holding only ---"}},
		{"closed by dots", []byte("---\nname: x\n...\noutput_format: in the body\n"), Config{Note: "frontmatter opened at line 1 is never closed (line 3 is \"...\", not \"---\"); no output_format read"}},
		{"four dashes without output_format", []byte("---\nname: x\n-----\n"), Config{Note: "frontmatter opened at line 1 is never closed (line 3 is \"-----\", not \"---\"); no output_format read"}},
		{"a thematic break only", []byte("---\n# Skill\n"), Config{Note: "frontmatter opened at line 1 is never closed; no output_format read"}},
		{"CRLF and BOM", []byte("\uFEFF---\r\nname: x\r\noutput_format: '^a$'\r\noutput_format_mode: strict\r\n---  \r\nbody\r\n"), Config{Declared: true, Pattern: "^a$", Mode: Strict}},
		{"frontmatter not a mapping", skill("- a\n"), Config{}},
		{"empty frontmatter", []byte("---\n---\n"), Config{}},
		{"alias", skill("x: &p '^a'\noutput_format: *p\n"), Config{Declared: true, Pattern: "^a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseSkill(tt.in); got != tt.want {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	x500 := strings.Repeat("x", 500)
	e300 := strings.Repeat("é", 300)
	tests := []struct {
		name    string
		cfg     Config
		out     string
		flag    Mode
		outcome Outcome
		passed  bool
		mode    Mode
		msg     string
	}{
		{"match", Config{Declared: true, Pattern: `^## .+\n## .+`}, "## Plan\n## Build", "", Match, true, Lenient, ""},
		{"unanchored search", Config{Declared: true, Pattern: `done`}, "all done here", "", Match, true, Lenient, ""},
		{"lenient deviation", Config{Declared: true, Pattern: `^## .+`}, "just some text", "", Deviation, true, Lenient, `expected output matching /^## .+/, got: "just some text"`},
		{"strict deviation", Config{Declared: true, Pattern: `^## .+`, Mode: Strict}, "just some text", "", Deviation, false, Strict, `expected output matching /^## .+/, got: "just some text"`},
		{"flag overrides frontmatter", Config{Declared: true, Pattern: `^## .+`, Mode: Strict}, "x", Lenient, Deviation, true, Lenient, `expected output matching /^## .+/, got: "x"`},
		{"flag strict", Config{Declared: true, Pattern: `^## .+`}, "x", Strict, Deviation, false, Strict, `expected output matching /^## .+/, got: "x"`},
		{"dollar before final newline", Config{Declared: true, Pattern: `^all done$`}, "all done\n", "", Deviation, true, Lenient, "expected output matching /^all done$/, got: \"all done\n\""},
		{"dollar", Config{Declared: true, Pattern: `^all done$`}, "all done", "", Match, true, Lenient, ""},
		{"digits", Config{Declared: true, Pattern: `^\d+$`}, "123", "", Match, true, Lenient, ""},
		{"dot matches CR", Config{Declared: true, Pattern: `^a.b$`}, "a\rb", "", Match, true, Lenient, ""},
		{"named group", Config{Declared: true, Pattern: `^(?<n>\d+)$`}, "42", "", Match, true, Lenient, ""},
		{"empty output", Config{Declared: true, Pattern: `^.+$`}, "", "", Deviation, true, Lenient, `expected output matching /^.+$/, got: ""`},
		{"truncate 500 x", Config{Declared: true, Pattern: `^## `}, x500, "", Deviation, true, Lenient, `expected output matching /^## /, got: "` + x500[:199] + `…"`},
		{"truncate multibyte", Config{Declared: true, Pattern: `^## `}, e300, "", Deviation, true, Lenient, `expected output matching /^## /, got: "` + strings.Repeat("é", 199) + `…"`},
		{"exactly 200 not truncated", Config{Declared: true, Pattern: `^## `}, x500[:200], "", Deviation, true, Lenient, `expected output matching /^## /, got: "` + x500[:200] + `"`},
		{"invalid regex lenient", Config{Declared: true, Pattern: `([invalid`}, "x", "", InvalidRegex, true, Lenient, `output_format pattern is not a valid regex: "/([invalid/"`},
		{"invalid regex strict", Config{Declared: true, Pattern: `([invalid`, Mode: Strict}, "x", "", InvalidRegex, false, Strict, `output_format pattern is not a valid regex: "/([invalid/"`},
		{"lookahead", Config{Declared: true, Pattern: `^(?=## )`}, "## a", "", InvalidRegex, true, Lenient, `output_format pattern is not a valid regex: "/^(?=## )/"`},
		{"not declared", Config{}, "x", Strict, NotDeclared, true, Strict, ""},
		{"config error", Config{Error: "output_format must be a string; quote it"}, "x", "", ConfigError, false, Lenient, "output_format must be a string; quote it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Check(tt.cfg, []byte(tt.out), tt.flag)
			if r.Outcome != tt.outcome || r.Passed != tt.passed || r.Mode != tt.mode || r.Message != tt.msg {
				t.Fatalf("got %+v\nwant outcome %s passed %v mode %s msg %q", r, tt.outcome, tt.passed, tt.mode, tt.msg)
			}
		})
	}
}

func TestCompileNamesConstruct(t *testing.T) {
	tests := map[string]string{
		`(?=a)`:   "`(?=`",
		`(?<=a)`:  "look-ahead and look-behind",
		`(a)\1`:   "back-references",
		`\cA`:     `\cX control escape`,
		`a{2000}`: "invalid repeat count",
	}
	for p, want := range tests {
		_, err := Compile(p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Compile(%q) = %v, want it to mention %q", p, err, want)
		}
	}
}

func TestTruncateInvalidUTF8(t *testing.T) {
	in := append([]byte(strings.Repeat("a", 198)), 0xff, 0xfe, 'b', 'c')
	got := Truncate(in)
	if got != strings.Repeat("a", 198)+"\uFFFD…" {
		t.Fatalf("got %q", got)
	}
}

func TestLint(t *testing.T) {
	if r := Lint(Config{Declared: true, Pattern: `(`}, ""); r.Passed || r.Outcome != InvalidRegex {
		t.Fatalf("lenient invalid regex must fail lint: %+v", r)
	}
	if r := Lint(Config{Declared: true, Pattern: `^a`}, ""); !r.Passed {
		t.Fatalf("%+v", r)
	}
}

func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\noutput_format: ^(## .+\\n)+.*   # c\noutput_format_mode: strict\n---\n",
		"\uFEFF---\r\noutput_format: '^a$'\r\n---\r\n",
		"---\ndescription: Use when: x\noutput_format: a\n---\n",
		"---\nx: &a [*a]\noutput_format: *a\n---\n",
		"---\noutput_format: |\n  (?=x)\n---\n",
		"---\nname: x\noutput_format: ^a\n----\nbody\n",
		"---\r\noutput_format: a\r\noutput_format: b\r\n...\r\n",
	} {
		f.Add([]byte(s), []byte("## a\n"))
	}
	f.Fuzz(func(t *testing.T, skillMD, output []byte) {
		cfg := ParseSkill(skillMD)
		if cfg.Error != "" && cfg.Declared {
			t.Fatal("declared with a configuration error")
		}
		r := Check(cfg, output, "")
		if r.Outcome == Deviation && !strings.HasPrefix(r.Message, "expected output matching /") {
			t.Fatalf("bad message %q", r.Message)
		}
	})
}
