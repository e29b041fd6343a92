package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Hostile inputs that are not in the design tables (docs/hardening.md lists them all).

// validYAML is the body of a valid complete report.
const validYAML = "schema_version: 1\nspec: .mastermind/tasks/020-cache/spec.md\nstatus: complete\nphases: []\nfiles_modified: [internal/cache/lru.go]\nclaims: []\ndefects: []\nverifications: []\n"

// Devices are refused whether named directly or through a symlink, and never read.
func TestDevicesRefused(t *testing.T) {
	root := t.TempDir()
	for _, dev := range []string{"/dev/zero", "/dev/urandom", "/dev/null"} {
		if _, err := os.Stat(dev); err != nil {
			t.Skip(dev, err)
		}
		name := filepath.Base(dev) + ".md"
		if err := os.Symlink(dev, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
		res, err := ReadPath(dev, dev)
		oneRule(t, res, err, RuleNotRegular, "(found device)")
		res, err = ReadPath(filepath.Join(root, name), name)
		oneRule(t, res, err, RuleNotRegular, "(found symlink)")
		res, err = ReadInRepo(root, name)
		oneRule(t, res, err, RuleNotRegular, "(found symlink)")
	}
}

// hostileReports returns inputs of at most 1 MiB that once took seconds to minutes, or that try
// a form of denial of service; want is the rule the first finding must have ("" = valid).
func hostileReports() []struct {
	name, want string
	data       []byte
} {
	const size = MaxBytes
	fill := func(prefix, unit, suffix string) []byte {
		var b bytes.Buffer
		b.WriteString(prefix)
		for b.Len()+len(unit)+len(suffix) <= size {
			b.WriteString(unit)
		}
		b.WriteString(suffix)
		return b.Bytes()
	}
	var alias strings.Builder
	alias.WriteString(validYAML + "x0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 30; i++ {
		fmt.Fprintf(&alias, "x%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	items := func(format string) []byte {
		var list strings.Builder
		list.WriteString(strings.Replace(validYAML, "files_modified: [internal/cache/lru.go]\n", "", 1) + "files_modified:\n")
		for i := 0; i < 100000; i++ {
			if strings.Contains(format, "%") {
				fmt.Fprintf(&list, format, i)
			} else {
				list.WriteString(format)
			}
		}
		return []byte(list.String())
	}
	var deepBlock strings.Builder
	deepBlock.WriteString(validYAML + "x:\n")
	for i := 1; deepBlock.Len() < 600000; i++ {
		deepBlock.WriteString(strings.Repeat(" ", i) + "-\n")
	}
	report := "<!-- mastermind:report-begin -->\n```yaml\n" + validYAML + "```\n<!-- mastermind:report-end -->\n"
	return []struct {
		name, want string
		data       []byte
	}{
		{"alias fan-out 10^30", "value.anchor", []byte(alias.String())},
		{"deep flow nesting", RuleNoBlock, fill(validYAML+"x: ", "[", "")},
		{"deep flow mappings", RuleNoBlock, fill(validYAML+"x: ", "{a: ", "")},
		{"deep block nesting", "value.depth", []byte(deepBlock.String())},
		{"deep JSON", RuleNoBlock, fill(`{"schema_version": 1, "x": `, "[", "")},
		{"huge key", RuleNoBlock, fill(validYAML, "k", ": 1\n")},
		{"long line", "schema.unknown_field", fill(validYAML+"x: \"", "a", "\"\n")},
		{"100,000 list items", "", items("- f%05x\n")},
		{"100,000 list items, 23,360 of them numbers", "schema.type", items("- %05x\n")},
		{"100,000 null list items", "value.null", items("- ~\n")},
		{"100,000 duplicate list items", "consistency.duplicate_path", items("- a\n")},
		// Past a line over the nesting cap no sentinel is trusted (TestSentinelAfterCappedLine).
		{"quote bomb before the report", RuleSentinelMalformed, fill("", "> ", "\n\n"+report)},
		{"ordered-list bomb before the report", RuleSentinelMalformed, fill("", "1. ", "\n\n"+report)},
		{"quote bomb after the report", "", fill(report+"\n", "> ", "\n")},
		// 1 MiB of blank lines under 100 nested list items: 56 s and 15.6 GB before the nesting
		// limits scaled with the line count. After the report it is harmless; a list item before
		// the sentinels of such a long document is past the (scaled) limit.
		{"blank lines under nested items after the report", "", fill(report+strings.Repeat("- ", 100)+"a\n", "\n", "")},
		{"blank lines under nested items, list before the report", RuleSentinelMalformed, fill("- item\n\n", "\n", report)},
		{"ordered-list bomb after the report", "", fill(report+"\n", "1. ", "\n")},
		{"link bomb before the report", "", fill("", "[a](", "\n\n"+report)},
		{"emphasis bomb before the report", "", fill("", "_a*", "\n\n"+report)},
		{"backtick bomb before the report", "", fill("", "`a", "\n\n"+report)},
		{"sentinel-token bomb", RuleSentinelMalformed, fill("", "<!-- mastermind:report-begin x -->\n", "")},
	}
}

// Every hostile shape is decided and fails closed (or is valid where it is a valid report behind
// hostile prose). Before the Markdown guards the bombs took from 20 s to many minutes;
// BenchmarkHostileReports times them now.
func TestHostileReportsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("cost test")
	}
	// No time is asserted (speed lives in BenchmarkHostileReports); a super-linear regression
	// shows up as go test's own timeout, and -v logs each duration.
	for _, c := range hostileReports() {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			if len(c.data) > MaxBytes {
				t.Fatalf("input is %d bytes", len(c.data))
			}
			start := time.Now()
			res := Validate(c.data, "r.md")
			el := time.Since(start)
			t.Logf("%d bytes, %v, %d findings", len(c.data), el, len(res.Findings))
			switch {
			case c.want == "" && len(res.Findings) > 0:
				t.Errorf("want valid, got %v", res.Findings[0])
			case c.want == "" && res.Report == nil:
				t.Error("valid without a report")
			case c.want != "" && (len(res.Findings) == 0 || res.Findings[0].Rule != c.want):
				t.Errorf("want first finding %s, got %v", c.want, rules(res))
			}
		})
	}
}

// decode.* and value.duplicate_key messages cite lines; in sentinel form they are file lines, the
// same as the finding's own position.
func TestMessagesCiteFileLines(t *testing.T) {
	wrap := func(y string) []byte {
		return []byte("# Report\n\nprose\n\n<!-- mastermind:report-begin -->\n```yaml\n" + y + "```\n<!-- mastermind:report-end -->\n")
	}
	cases := []struct {
		name, yaml, rule, cite string
		line                   int
	}{
		{"second document", validYAML + "---\nstatus: failed\n", "decode.multi_document", "second starts at line 15)", 15},
		{"syntax", "schema_version: 1\nspec: [a,\n", "decode.syntax", `YAML syntax error: the "[" opened here is never closed`, 8},
		{"duplicate key", validYAML + "status: failed\n", "value.duplicate_key", "(lines 9 and 15); remove one", 15},
		{"control character", "schema_version: 1\nspec: a\x1bb\n", "decode.syntax", "control character U+001B is not allowed", 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Validate(wrap(c.yaml), "r.md")
			if len(res.Findings) == 0 {
				t.Fatal("valid")
			}
			f := res.Findings[0]
			if f.Rule != c.rule || f.Line != c.line || !strings.Contains(f.Message, c.cite) {
				t.Errorf("got %s %d:%d %q; want %s at line %d citing %q", f.Rule, f.Line, f.Column, f.Message, c.rule, c.line, c.cite)
			}
		})
	}
}

// A lone CR is not a line break in the file (§1.2) though YAML breaks lines there: positions are
// file positions all the same.
func TestLoneCRPositions(t *testing.T) {
	bare := []byte(strings.ReplaceAll(strings.Replace(validYAML, "spec: .mastermind/tasks/020-cache/spec.md", "spec: 5", 1), "\n", "\r"))
	res := Validate(bare, "r.md")
	if len(res.Findings) != 1 || res.Findings[0].Line != 1 || res.Findings[0].Column != 25 {
		t.Errorf("bare: %v", res.Findings)
	}
	sent := []byte("<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\rspec: 5\rstatus: complete\nphases: []\nfiles_modified: []\nclaims: []\ndefects: []\nverifications: []\nstatus: complete\n```\n<!-- mastermind:report-end -->\n")
	res = Validate(sent, "r.md")
	got := []string{}
	for _, f := range res.Findings {
		got = append(got, fmt.Sprintf("%s %d:%d %s", f.Rule, f.Line, f.Column, f.Message))
	}
	want := []string{
		"schema.type 3:25 spec must be a string; got int 5 — quote it: '5'",
		"value.duplicate_key 9:1 key status appears twice in the same mapping (lines 3 and 9); remove one",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sentinel:\n got %q\nwant %q", got, want)
	}
}

// A text that mentions schema_version but is not bare form says why in report.no_block.
func TestNoBlockExplainsBareFailure(t *testing.T) {
	cases := []struct{ in, hint string }{
		{"schema_version: 1\nspec: a\x00b\n", "not a bare YAML report either (YAML syntax error: control character U+0000 is not allowed; remove it, or write it escaped in a double-quoted string (\\u0000) at line 2)"},
		{"{\"schema_version\": 1}\n{\"status\": \"failed\"}\n", "not a bare JSON report either (JSON syntax error: invalid character '{' after top-level value at line 2)"},
		{"---\n\ufeffschema_version: 1\n", "its root mapping has no schema_version key"},
		{"schema_version: 1\nphases:\n\t- a\n", "YAML syntax error: a tab is used for indentation; YAML indents with spaces only — replace the tab with spaces at line 3"},
		{"{\"schema_version\": 1, \"spec\": \"a\\ud800b\"}", "not a bare JSON report either (JSON syntax error: "},
	}
	for _, c := range cases {
		res := Validate([]byte(c.in), "r.md")
		if len(res.Findings) != 1 || res.Findings[0].Rule != RuleNoBlock || !strings.Contains(res.Findings[0].Message, c.hint) {
			t.Errorf("%q: %v, want no_block with %q", c.in, res.Findings, c.hint)
		}
	}
	res := Validate([]byte("Just prose.\n"), "r.md")
	if len(res.Findings) != 1 || res.Findings[0].Message != noBlockMessage {
		t.Errorf("prose: %v", res.Findings)
	}
	// A Markdown report without the sentinels is prose around the block, not a failed bare
	// report: the YAML error the prose gives is no help and is left out. Another file name (or
	// standard input) keeps the hint.
	prose := "# Executor report\n\nDone: every test passes.\n\n```yaml\nschema_version: 1\nstatus: complete\n```\n"
	for _, name := range []string{"executor-report.md", "notes.MARKDOWN"} {
		res = Validate([]byte(prose), name)
		if len(res.Findings) != 1 || res.Findings[0].Message != noBlockMessage {
			t.Errorf("%s: %v, want only %q", name, res.Findings, noBlockMessage)
		}
	}
	for _, name := range []string{"report.yaml", "<stdin>"} {
		res = Validate([]byte(prose), name)
		if len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Message, "not a bare YAML report either") {
			t.Errorf("%s: %v, want the bare-form hint", name, res.Findings)
		}
	}
}

// Invisible characters in field names and values are escaped in messages: "status\u200b" must not
// read as the allowed field "status".
func TestInvisibleCharactersEscaped(t *testing.T) {
	in := strings.Replace(validYAML, "status: complete\n", "status: complete\nstatus\u200b: failed\nspec\u00a0: x\n", 1)
	in = strings.Replace(in, "files_modified: [internal/cache/lru.go]", "files_modified: [\"a\u200db\t\"]", 1)
	res := Validate([]byte(in), "r.md")
	var msgs []string
	for _, f := range res.Findings {
		msgs = append(msgs, f.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{`unknown field status\u200B in the report`, `unknown field spec\u00A0 in the report`, `"a\u200Db\u0009" is not a repository-relative path`} {
		if !strings.Contains(all, want) {
			t.Errorf("messages do not contain %q:\n%s", want, all)
		}
	}
	for _, r := range []rune{'\u200b', '\u00a0', '\u200d'} {
		if strings.ContainsRune(all, r) {
			t.Errorf("raw %U in messages", r)
		}
	}
}

// NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR are line breaks to yaml.v3 (YAML 1.1) but not in
// YAML 1.2 or the file: "# note<U+2028>status: failed" would hide a key in a comment. Refused.
func TestYAML11LineBreaksRefused(t *testing.T) {
	for _, r := range []string{"\u0085", "\u2028", "\u2029"} {
		for _, in := range []string{
			strings.Replace(validYAML, "phases: []\n", "phases: [] # note"+r+"defects: [x]\n", 1),
			"<!-- mastermind:report-begin -->\n```yaml\n" + strings.Replace(validYAML, "spec: ", "spec: |\n  a"+r+"b\nx: ", 1) + "```\n<!-- mastermind:report-end -->\n",
		} {
			res := Validate([]byte(in), "r.md")
			if len(res.Findings) == 0 || !strings.Contains(res.Findings[0].Message, fmt.Sprintf("character U+%04X", []rune(r)[0])) {
				t.Errorf("%q: %v", in, res.Findings)
			}
		}
	}
	// Escaped, the same characters are ordinary string content.
	ok := strings.Replace(validYAML, "phases: []", "phases: [{id: \"a\\u2028b\", status: done}]", 1)
	if res := Validate([]byte(ok), "r.md"); len(res.Findings) != 0 {
		t.Errorf("escaped: %v", res.Findings)
	}
}

// After a line the nesting guard capped, CommonMark may put a following comment inside an HTML
// block that the guarded parse does not see; such a sentinel is refused, and a blank line lifts
// the refusal.
func TestSentinelAfterCappedLine(t *testing.T) {
	deep := strings.Repeat("> ", 101) + "```\n"
	report := "<!-- mastermind:report-begin -->\n```yaml\n" + validYAML + "```\n<!-- mastermind:report-end -->\n"
	res := Validate([]byte(deep+"<custom>\n"+report), "r.md")
	if len(res.Findings) == 0 || res.Findings[0].Rule != RuleSentinelMalformed || !strings.Contains(res.Findings[0].Message, "comes after line 1, which nests more than 100 block quotes") {
		t.Errorf("tainted sentinel: %v", res.Findings)
	}
	if res := Validate([]byte(report+deep+"<custom>\n"), "r.md"); len(res.Findings) != 0 {
		t.Errorf("capped line after the report: %v", res.Findings)
	}
	if res := Validate([]byte(strings.Repeat(" ", 300)+"\n"+report), "r.md"); len(res.Findings) != 0 {
		t.Errorf("after a long blank line (not capped): %v", res.Findings)
	}
}

// BenchmarkHostileReports times Validate on each hostile shape.
func BenchmarkHostileReports(b *testing.B) {
	for _, c := range hostileReports() {
		b.Run(strings.ReplaceAll(c.name, " ", "_"), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Validate(c.data, "r.md")
			}
		})
	}
}

// A capped line can change the top level past the next blank line: here CommonMark opens a fence
// on line 3 that runs to the end of the file and hides the report, while the capped parse puts
// that fence inside a list item that the blank line closes (FuzzCapNesting's counterexample at
// the real limits). So no sentinel at or after the first capped line is trusted.
func TestSentinelAfterCappedLineAndBlank(t *testing.T) {
	deep := strings.Repeat("* ", 99) + "+    *   \n0\n  ```\n\n"
	report := "<!-- mastermind:report-begin -->\n```yaml\n" + validYAML + "```\n<!-- mastermind:report-end -->\n"
	res := Validate([]byte(deep+report), "r.md")
	if len(res.Findings) == 0 || res.Findings[0].Rule != RuleSentinelMalformed || !strings.Contains(res.Findings[0].Message, "comes after line 1, which nests more than 100 block quotes") {
		t.Errorf("sentinel after a capped line and a blank line: %v", res.Findings)
	}
}

// A sentinel token anywhere after a capped line is refused, also where the capped parse puts it
// inside a fence: a CommonMark reader opens a type-7 HTML block at <custom> that swallows the
// four backticks, so to it the sentinels below are top-level (the failed report), while the
// capped parse hid them and fell back to the bare form around them (the complete report).
func TestHiddenSentinelAfterCappedLine(t *testing.T) {
	failed := "<!-- mastermind:report-begin -->\n```yaml\n" +
		strings.Replace(validYAML, "status: complete", "status: failed", 1) +
		"```\n<!-- mastermind:report-end -->\n"
	hidden := strings.Repeat("> ", 101) + "```\n<custom>\n````\n\n" + failed
	bare := `{"schema_version": 1, "spec": ".mastermind/tasks/020-cache/spec.md", "status": "complete", ` +
		`"phases": [{"id": "plan-1` + "\n" + hidden + `", "status": "done"}], "files_modified": ["internal/cache/lru.go"], ` +
		`"claims": [], "defects": [], "verifications": []}` + "\n"
	res := Validate([]byte(bare), "r.md")
	if len(res.Findings) == 0 || res.Findings[0].Rule != RuleSentinelMalformed || !strings.Contains(res.Findings[0].Message, "mentions a report sentinel after line 2") {
		t.Errorf("hidden sentinels after a capped line: report %v, findings %v", res.Report != nil, res.Findings)
	}
	// The same shape without the capped line is an ordinary document: its reading does not change.
	plain := strings.Replace(bare, strings.Repeat("> ", 101), "> ", 1)
	if res := Validate([]byte(plain), "r.md"); len(res.Findings) > 0 && strings.Contains(res.Findings[0].Message, "nests more than") {
		t.Errorf("without a capped line: %v", res.Findings)
	}
}

// A legacy block after a capped line is refused like a sentinel there: a CommonMark reader may
// see it at the top level (where "legacy wins" rejects the report) while the capped parse hides
// it in a fence.
func TestHiddenLegacyBlockAfterCappedLine(t *testing.T) {
	report := "<!-- mastermind:report-begin -->\n```yaml\n" + validYAML + "```\n<!-- mastermind:report-end -->\n"
	tail := strings.Repeat("> ", 101) + "```\n<custom>\n````\n\n<!-- mastermind:executor-begin -->\nx\n<!-- mastermind:executor-end -->\n"
	res := Validate([]byte(report+tail), "r.md")
	if res.Report != nil || len(res.Findings) == 0 || !strings.Contains(res.Findings[0].Message, "mentions a report sentinel after line 13") {
		t.Errorf("hidden legacy block after a capped line: report %v, findings %v", res.Report != nil, res.Findings)
	}
}

// An honest long report: 30,000 log lines in a fence, one of them a YAML item indented 40
// columns. Limits scaled with the line count refused its sentinels (review); they scale with the
// blank lines only, so it is valid.
func TestLongReportWithIndentedLogLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Report\n\n```text\n")
	for i := 0; i < 30000; i++ {
		fmt.Fprintf(&b, "ok  pkg/%d 0.01s\n", i)
		if i == 15000 {
			b.WriteString(strings.Repeat(" ", 40) + "- name: sidecar\n")
		}
	}
	b.WriteString("```\n\n<!-- mastermind:report-begin -->\n```yaml\n" + validYAML + "```\n<!-- mastermind:report-end -->\n")
	if res := Validate([]byte(b.String()), "r.md"); len(res.Findings) != 0 || res.Report == nil {
		t.Errorf("long honest report: %v", res.Findings)
	}
}
