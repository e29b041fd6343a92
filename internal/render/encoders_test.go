package render

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/golden"
	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema"
)

// goldenFile compares got with testdata/<name> (golden.Check).
func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

var testTool = ToolMeta{Name: "mastermind", Version: "1.2.3", InformationURI: "https://github.com/mastermind-controller/mastermind"}

var testRules = []RuleMeta{
	{ID: "executor_report_missing_changed_file", Class: finding.ClassError, ReportSide: true,
		Short: "A changed file is missing from files_modified",
		Help:  "git shows the file changed since the baseline, but the report does not list it. Add it to files_modified, or undo the change."},
	{ID: "unexpected_file", Class: finding.ClassWarning,
		Short: "A file changed outside the declared scope",
		Help:  "The file is not covered by the spec's touches or creates. Undo the change, or ask the planner to widen the scope."},
	{ID: "missing_expected_file", Class: finding.ClassWarning,
		Short: "A declared file did not change",
		Help:  "The spec declares the file in scope, but it is unchanged since the baseline."},
	{ID: "changed_path_unrepresentable", Class: finding.ClassError, Short: "A changed path is not valid UTF-8"},
}

func af(kind string, class finding.Class, msg string, kv ...any) finding.Finding {
	f := finding.Finding{Rule: kind, Class: class, Message: msg}
	for i := 0; i+1 < len(kv); i += 2 {
		f.Fields = append(f.Fields, finding.Field{Key: kv[i].(string), Value: kv[i+1]})
	}
	return f
}

// testSets covers every location rule: a report-side kind, a kind with a file field, a path
// with a space and a colon, the unrepresentable kind, a positioned report violation of a rule
// the table lacks, hostile text, a held task without findings and a refusal without findings.
func testSets() []FindingSet {
	return []FindingSet{
		{Task: "001-retry", Spec: ".mastermind/tasks/001-retry/spec.md", Report: ".mastermind/tasks/001-retry/executor-report.md",
			Verdict: "broken", Message: "post-flight verdict: ❌ Broken — errors: 3, warnings: 1",
			Lines: linesOf(map[string]string{".mastermind/tasks/001-retry/executor-report.md": strings.Repeat("\n", 11) + "    exit_code: zero\n"}),
			Findings: []finding.Finding{
				af("executor_report_missing_changed_file", finding.ClassError, "changed since the baseline but not listed in files_modified: src/retry.go", "file", "src/retry.go"),
				af("changed_path_unrepresentable", finding.ClassError, `changed path is not valid UTF-8: "bad\xff.go"`, "file", `bad\xff.go`),
				{Rule: "schema.type", Class: finding.ClassError, File: ".mastermind/tasks/001-retry/executor-report.md", Line: 12, Column: 5,
					Message: "verification[0].observed.exit_code must be an integer"},
				af("unexpected_file", finding.ClassWarning, "changed outside the declared scope: docs/a b:c.md", "file", "docs/a b:c.md"),
			}},
		{Task: "002-docs", Spec: ".mastermind/tasks/002-docs/spec.md", Report: ".mastermind/tasks/002-docs/executor-report.md",
			Verdict: "drift", Message: "post-flight verdict: ⚠️ Drift — errors: 0, warnings: 1",
			Findings: []finding.Finding{
				af("missing_expected_file", finding.ClassWarning, "declared in scope but unchanged since the baseline: <img src=x onerror=alert(1)> | **bold** `tick`\nnext line", "file", "README.md"),
			}},
		{Task: "003-held", Spec: ".mastermind/tasks/003-held/spec.md", Report: ".mastermind/tasks/003-held/executor-report.md", Verdict: "held"},
		{Task: "004-refused", Spec: ".mastermind/tasks/004-refused/spec.md", Verdict: "refused",
			Message: "spec.md changed since pre-flight approval"},
	}
}

// linesOf is the LineSource of the files in files (path → content).
func linesOf(files map[string]string) LineSource {
	return func(path string, n int) (string, bool) {
		content, ok := files[path]
		lines := strings.Split(content, "\n")
		if !ok || n < 1 || n > len(lines) {
			return "", false
		}
		return lines[n-1], true
	}
}

// The lines of positionSets' report: a schema.enum finding on line 10 after four two-byte
// characters (code-point column 26, UTF-8 column 30, UTF-16 column 26) and one on line 17 after
// a character outside the BMP (code points 23, UTF-8 26, UTF-16 24).
const (
	positionsLine10 = `  - {id: "üüüü", status: bad}`
	positionsLine17 = `  - {id: "😀", status: bad}`
)

// positionSets covers the columns and paths the other sets do not: report findings on
// non-ASCII lines, a positioned finding whose line cannot be read, a report outside the
// repository (an absolute path) and two findings of one rule on two paths.
func positionSets() []FindingSet {
	report := ".mastermind/tasks/005-unicode/executor-report.md"
	outside := "/tmp/elsewhere/executor-report.md"
	return []FindingSet{
		{Task: "005-unicode", Spec: ".mastermind/tasks/005-unicode/spec.md", Report: report, Verdict: "broken",
			Lines: linesOf(map[string]string{report: strings.Repeat("\n", 9) + positionsLine10 + strings.Repeat("\n", 7) + positionsLine17 + "\n"}),
			Findings: []finding.Finding{
				{Rule: "schema.enum", Class: finding.ClassError, File: report, Line: 10, Column: 26, Pointer: "/phases/0/status",
					Message: "phases[0].status must be one of done, pending, stopped_here, skipped; got bad"},
				{Rule: "schema.enum", Class: finding.ClassError, File: report, Line: 17, Column: 23, Pointer: "/phases/1/status",
					Message: "phases[1].status must be one of done, pending, stopped_here, skipped; got bad"},
				{Rule: "schema.type", Class: finding.ClassError, File: report, Line: 40, Column: 3, Pointer: "/defects",
					Message: "defects must be an array"},
				af("unexpected_file", finding.ClassWarning, "changed outside the declared scope: a.go", "file", "a.go"),
				af("unexpected_file", finding.ClassWarning, "changed outside the declared scope: b.go", "file", "b.go"),
			}},
		{Task: outside, Spec: outside, Report: outside, Verdict: "invalid",
			Lines: linesOf(map[string]string{outside: "status: bad\n"}),
			Findings: []finding.Finding{
				{Rule: "schema.enum", Class: finding.ClassError, File: outside, Line: 1, Column: 9, Pointer: "/status",
					Message: "status must be one of complete, partial, failed; got bad"},
			}},
	}
}

// Every SARIF golden must validate against both published SARIF 2.1.0 schemas.
var sarifGoldens = map[string][]FindingSet{
	"sarif/tasks.sarif":     testSets(),
	"sarif/empty.sarif":     nil,
	"sarif/positions.sarif": positionSets(),
}

// Every rdjson golden is read by the real reviewdog (rdjson_reviewdog_test.go).
var rdjsonGoldens = map[string][]FindingSet{
	"rdjson/tasks.rdjson":     testSets(),
	"rdjson/positions.rdjson": positionSets(),
}

func TestWriteSARIFGoldens(t *testing.T) {
	for name, sets := range sarifGoldens {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteSARIF(&b, testTool, testRules, sets); err != nil {
				t.Fatal(err)
			}
			goldenFile(t, name, b.Bytes())
		})
	}
}

func TestSARIFGoldensValidateAgainstPublishedSchema(t *testing.T) {
	schemas := map[string]*jsonschema.Schema{}
	for _, f := range []string{"sarif-schema-2.1.0.json", "sarif-schema-2.1.0-errata01-draft04.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "sarif-schema", f))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		url := "file:///" + f
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile(url)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		schemas[f] = s
	}
	// The goldens, and a log with the real kinds table as its rules (not a golden: the table
	// grows with every new kind).
	logs := map[string][]byte{}
	for name := range sarifGoldens {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		logs[name] = data
	}
	var kinds bytes.Buffer
	if err := WriteSARIF(&kinds, testTool, KindRules(), testSets()); err != nil {
		t.Fatal(err)
	}
	logs["the kinds table"] = kinds.Bytes()
	for name, data := range logs {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for sn, s := range schemas {
			if err := s.Validate(v); err != nil {
				t.Errorf("%s does not validate against %s: %v", name, sn, err)
			}
		}
	}
	// The validator is live: a log missing runs[0].tool, or with a bad level, must fail.
	for _, bad := range []string{
		`{"version":"2.1.0","runs":[{"results":[]}]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"m"}},"results":[{"message":{"text":"x"},"level":"fatal"}]}]}`,
	} {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		for sn, s := range schemas {
			if s.Validate(v) == nil {
				t.Errorf("%s accepted %s", sn, bad)
			}
		}
	}
}

func TestSARIFContent(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSARIF(&b, testTool, testRules, testSets()); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Name, Version string
					Rules         []struct {
						ID                   string
						DefaultConfiguration struct{ Level string }
						Help                 *struct{ Text string }
					}
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
				PartialFingerprints map[string]string
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs", len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "mastermind" || run.Tool.Driver.Version != "1.2.3" {
		t.Errorf("driver %+v", run.Tool.Driver)
	}
	// The table's rules, then the one rule id the findings use that the table lacks.
	if got := len(run.Tool.Driver.Rules); got != len(testRules)+1 || run.Tool.Driver.Rules[len(testRules)].ID != "schema.type" {
		t.Errorf("rules: %+v", run.Tool.Driver.Rules)
	}
	if run.Tool.Driver.Rules[1].DefaultConfiguration.Level != "warning" || run.Tool.Driver.Rules[0].Help == nil {
		t.Errorf("rule level/help: %+v", run.Tool.Driver.Rules[:2])
	}
	want := []struct {
		rule, level, uri string
		line, col        int
		fpPath           string
	}{
		{"executor_report_missing_changed_file", "error", "src/retry.go", 1, 0, "src/retry.go"},
		{"changed_path_unrepresentable", "error", ".mastermind/tasks/001-retry/spec.md", 1, 0, ".mastermind/tasks/001-retry/spec.md"},
		{"schema.type", "error", ".mastermind/tasks/001-retry/executor-report.md", 12, 5, ".mastermind/tasks/001-retry/executor-report.md"},
		{"unexpected_file", "warning", "docs/a%20b:c.md", 1, 0, "docs/a b:c.md"},
		{"missing_expected_file", "warning", "README.md", 1, 0, "README.md"},
	}
	if len(run.Results) != len(want) {
		t.Fatalf("%d results, want %d", len(run.Results), len(want))
	}
	tasks := []string{"001-retry", "001-retry", "001-retry", "001-retry", "002-docs"}
	for i, w := range want {
		r := run.Results[i]
		pl := r.Locations[0].PhysicalLocation
		if r.RuleID != w.rule || r.Level != w.level || pl.ArtifactLocation.URI != w.uri || pl.ArtifactLocation.URIBaseID != "%SRCROOT%" ||
			pl.Region.StartLine != w.line || pl.Region.StartColumn != w.col {
			t.Errorf("result %d: %+v, want %+v", i, r, w)
		}
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %d: ruleIndex %d names %s", i, r.RuleIndex, run.Tool.Driver.Rules[r.RuleIndex].ID)
		}
		if got := r.PartialFingerprints["mastermind/v1"]; got != Fingerprint(tasks[i], w.rule, w.fpPath) || len(got) != 64 {
			t.Errorf("result %d: fingerprint %q", i, got)
		}
	}
}

// TestFingerprintIsStableAndSeparated: the fingerprint is a fixed value (so it cannot change
// between runs or builds), every one of task, kind and path changes it, and the NUL separators
// keep triples that concatenate alike apart.
func TestFingerprintIsStableAndSeparated(t *testing.T) {
	// SHA-256("001\x00unexpected_file\x00a.go\x00"), computed independently with sha256sum.
	const want = "53559b57c38a48c20196c369eaed94bf7c7ea4960dfa7a7fcd83e69c41b6cba7"
	if got := Fingerprint("001", "unexpected_file", "a.go"); got != want {
		t.Errorf("fingerprint %s", got)
	}
	for _, other := range [][3]string{
		{"002", "unexpected_file", "a.go"},
		{"001", "missing_expected_file", "a.go"},
		{"001", "unexpected_file", "b.go"},
		{"001unexpected_file", "", "a.go"},
		{"001", "unexpected_filea.go", ""},
	} {
		if Fingerprint(other[0], other[1], other[2]) == want {
			t.Errorf("%q has the fingerprint of (001, unexpected_file, a.go)", other)
		}
	}
}

func TestWriteRDJSONGoldens(t *testing.T) {
	for name, sets := range rdjsonGoldens {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteRDJSON(&b, testTool, testRules, sets); err != nil {
				t.Fatal(err)
			}
			goldenFile(t, name, b.Bytes())
		})
	}
}

func TestWriteMarkdownGolden(t *testing.T) {
	for name, sets := range map[string][]FindingSet{"markdown/tasks.md": testSets(), "markdown/empty.md": nil,
		"markdown/held.md": {testSets()[2]}} {
		var b bytes.Buffer
		if err := WriteMarkdown(&b, "mastermind gate", testRules, sets); err != nil {
			t.Fatal(err)
		}
		goldenFile(t, name, b.Bytes())
	}
}

func TestMarkdownEscapesHostileText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, "mastermind gate", testRules, testSets()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{`[^\\]<img`, `[^\\]\*\*bold`, "\nnext line", `[^\\]\| \*\*`} {
		if regexp.MustCompile(bad).MatchString(out) {
			t.Errorf("summary matches %q: unescaped text", bad)
		}
	}
	// Each table row has exactly the table's columns: no cell text adds a separator.
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| ❌ ") || strings.HasPrefix(line, "| ⚠️ ") {
			if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); n != 5 {
				t.Errorf("row has %d separators: %s", n, line)
			}
		}
	}
}

func TestMarkdownCapsFindings(t *testing.T) {
	s := FindingSet{Task: "001-x", Spec: ".mastermind/tasks/001-x/spec.md", Verdict: "drift"}
	for range MaxMarkdownFindings + 7 {
		s.Findings = append(s.Findings, af("unexpected_file", finding.ClassWarning, "m", "file", "f"))
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, "t", testRules, []FindingSet{s}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "… and 7 more findings; see `.mastermind/tasks/001-x/audit.md`.") {
		t.Errorf("no overflow line:\n%s", b.String()[len(b.String())-300:])
	}
}

func TestMDCode(t *testing.T) {
	for in, want := range map[string]string{"a": "`a`", "a`b": "``a`b``", "`x": "`` `x ``", "a|b": "`a\\|b`", "": ""} {
		if got := MarkdownCode(in); got != want {
			t.Errorf("MarkdownCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMDTextBreaksMarkupAndAutolinks(t *testing.T) {
	for in, want := range map[string]string{
		"see https://evil.example/x": `see https\://evil.example/x`,
		"visit www.evil.com now":     `visit www\.evil.com now`,
		"mail a@b.com":               `mail a\@b.com`,
		"- not a list":               `\- not a list`,
		"# not a heading":            `\# not a heading`,
		"![img](x) [l](y)":           `\!\[img\](x) \[l\](y)`,
		"a & b <br>":                 `a &amp; b \<br\>`,
		"line1\nline2\r\n= heading":  `line1 line2 = heading`,
		"ok: plain-text 1.5 (fine)":  `ok: plain-text 1.5 (fine)`,
	} {
		if got := MarkdownText(in); got != want {
			t.Errorf("MarkdownText(%q) = %q, want %q", in, got, want)
		}
	}
}

// The renderers of For write the same bytes as the encoders, from a View's findings.
func TestFindingsRenderers(t *testing.T) {
	v := Plain{Results: Findings{Title: "mastermind gate", Sets: testSets()}}
	for _, format := range []string{FormatSARIF, FormatRDJSON, FormatMarkdown} {
		r, err := For(format, Options{Tool: testTool})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.Render(Streams{Out: &b}, v); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		switch format {
		case FormatSARIF:
			_ = WriteSARIF(&want, testTool, KindRules(), testSets())
		case FormatRDJSON:
			_ = WriteRDJSON(&want, testTool, KindRules(), testSets())
		case FormatMarkdown:
			_ = WriteMarkdown(&want, "mastermind gate", KindRules(), testSets())
		}
		if b.String() != want.String() {
			t.Errorf("%s renderer differs from the encoder", format)
		}
		// The real kinds table's help reaches the rules.
		if format == FormatSARIF && !strings.Contains(b.String(), finding.Kinds[0].Help) {
			t.Errorf("SARIF rules lack the kinds table's help")
		}
	}
}

func TestKindRulesCoverTheTable(t *testing.T) {
	rules := KindRules()
	if len(rules) != len(finding.Kinds) {
		t.Fatalf("%d rules for %d kinds", len(rules), len(finding.Kinds))
	}
	for i, k := range finding.Kinds {
		r := rules[i]
		if r.ID != k.ID || r.Class != k.Class || r.Help != k.Help || r.ReportSide != k.ReportSide || r.Short == "" {
			t.Errorf("rule %d: %+v for kind %+v", i, r, k)
		}
	}
}
