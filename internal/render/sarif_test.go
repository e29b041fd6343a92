package render

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// sarifDoc is the part of a SARIF log the tests read.
type sarifDoc struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Version string
				Rules   []struct {
					ID               string
					ShortDescription *struct{ Text string }
					FullDescription  *struct{ Text string }
					Help             *struct{ Text string }
				}
			}
		}
		ColumnKind string
		Results    []struct {
			RuleID    string
			RuleIndex int
			Level     string
			Message   struct{ Text string }
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string
						URIBaseID *string `json:"uriBaseId"`
					}
					Region struct{ StartLine, StartColumn int }
				}
			}
			PartialFingerprints map[string]string
			Properties          struct{ Task string }
		}
	}
}

func writeSARIF(t *testing.T, rules []RuleMeta, sets []FindingSet) ([]byte, sarifDoc) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteSARIF(&b, testTool, rules, sets); err != nil {
		t.Fatal(err)
	}
	var doc sarifDoc
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 1 {
		t.Fatalf("%d runs", len(doc.Runs))
	}
	return b.Bytes(), doc
}

// Every rule has the shortDescription, fullDescription and help GitHub requires, within its
// 1,024-character limit: the kinds table, report and spec rules, the results that are not
// findings and an id of no known family.
func TestSARIFEveryRuleIsDescribed(t *testing.T) {
	var fs []finding.Finding
	for _, id := range []string{"schema.enum", "decode.syntax", "value.tag", "consistency.blank", "report.no_block",
		"spec.section_missing", "preflight.other_open_task", "history_review.incomplete", "forge.status", "x",
		RuleRefused, RuleNotStarted, RuleTaskError, RuleUnbacked} {
		fs = append(fs, finding.Finding{Rule: id, Class: finding.ClassError, File: "a.md", Message: "m"})
	}
	_, doc := writeSARIF(t, KindRules(), []FindingSet{{Task: "001-x", Spec: "s.md", Findings: fs}})
	rules := doc.Runs[0].Tool.Driver.Rules
	if len(rules) != len(finding.Kinds)+len(fs) {
		t.Fatalf("%d rules, want %d", len(rules), len(finding.Kinds)+len(fs))
	}
	for _, r := range rules {
		for name, m := range map[string]*struct{ Text string }{"shortDescription": r.ShortDescription, "fullDescription": r.FullDescription, "help": r.Help} {
			if m == nil || strings.TrimSpace(m.Text) == "" {
				t.Errorf("rule %s has no %s", r.ID, name)
			} else if n := len(utf16.Encode([]rune(m.Text))); name != "help" && n > 1024 {
				t.Errorf("rule %s: %s has %d characters", r.ID, name, n)
			}
		}
	}
	if got := clipText(strings.Repeat("😀", 600), 1024); len(utf16.Encode([]rune(got))) != 1023 || !strings.HasSuffix(got, "…") {
		t.Errorf("clipText: %d units", len(utf16.Encode([]rune(got))))
	}
	if clipText("short", 1024) != "short" {
		t.Error("clipText changed a short text")
	}
}

// primaryLocationLineHash, the only fingerprint code scanning reads, differs per finding (two
// schema.enum results on lines 10 and 17, two unexpected files, two equal findings) and is the
// same in every run, also when the findings' lines move.
func TestSARIFFingerprintsIdentifyEachFinding(t *testing.T) {
	_, doc := writeSARIF(t, testRules, positionSets())
	seen := map[string]int{}
	for i, r := range doc.Runs[0].Results {
		fp := r.PartialFingerprints[SARIFLineHashKey]
		if len(fp) != 64 {
			t.Errorf("result %d: %s %q", i, SARIFLineHashKey, fp)
		}
		if j, dup := seen[fp]; dup {
			t.Errorf("results %d and %d share %s %s", j, i, SARIFLineHashKey, fp)
		}
		seen[fp] = i
	}
	// Lines 10 and 17: the two schema.enum results of one rule, task and file.
	res := doc.Runs[0].Results
	if res[0].RuleID != "schema.enum" || res[1].RuleID != "schema.enum" || res[0].PartialFingerprints[SARIFFingerprintKey] != res[1].PartialFingerprints[SARIFFingerprintKey] {
		t.Fatalf("results 0 and 1 are not the two schema.enum results of one file: %+v", res[:2])
	}
	// Stable: another run gives the same values, also with every line moved down by 5.
	moved := positionSets()
	for i := range moved[0].Findings {
		if moved[0].Findings[i].Line > 0 {
			moved[0].Findings[i].Line += 5
		}
	}
	moved[0].Lines = nil
	for _, sets := range [][]FindingSet{positionSets(), moved} {
		_, again := writeSARIF(t, testRules, sets)
		for i, r := range again.Runs[0].Results {
			if r.PartialFingerprints[SARIFLineHashKey] != res[i].PartialFingerprints[SARIFLineHashKey] {
				t.Errorf("result %d: fingerprint changed between runs", i)
			}
		}
	}
	// Two findings equal in every identity field are told apart by their occurrence.
	f := af("unexpected_file", finding.ClassWarning, "m", "file", "a.go")
	_, dup := writeSARIF(t, testRules, []FindingSet{{Task: "001-x", Spec: "s.md", Findings: []finding.Finding{f, f}}})
	if a, b := dup.Runs[0].Results[0].PartialFingerprints[SARIFLineHashKey], dup.Runs[0].Results[1].PartialFingerprints[SARIFLineHashKey]; a == b {
		t.Errorf("equal findings share %s", a)
	}
	// The value is the documented hash: SHA-256 of task, rule, path, pointer, identity fields,
	// occurrence, each followed by NUL (computed independently with sha256sum).
	if got := ResultFingerprint("001", f, "a.go", 1); got != "259d345fdc1ab6e3b1bd5bfd242d471a0b2e6dd656acbf97af1e2e68b335ec87" {
		t.Errorf("ResultFingerprint = %s", got)
	}
}

// Columns are UTF-16 code units in SARIF (columnKind utf16CodeUnits) and UTF-8 bytes in rdjson,
// converted from the findings' code points on the line they point into; a column whose line
// cannot be read is left out.
func TestColumnsAreConvertedPerFormat(t *testing.T) {
	for _, c := range []struct {
		line             string
		col, bytes, unit int
		ok               bool
	}{
		{positionsLine10, 26, 30, 26, true},
		{positionsLine17, 23, 26, 24, true},
		{"abc", 4, 4, 4, true},
		{"abc", 5, 0, 0, false},
		{"", 1, 1, 1, true},
		{"a\xffb", 3, 3, 3, true},
	} {
		b, u, ok := unitColumns(c.line, true, c.col)
		if b != c.bytes || u != c.unit || ok != c.ok {
			t.Errorf("unitColumns(%q, %d) = %d, %d, %v; want %d, %d, %v", c.line, c.col, b, u, ok, c.bytes, c.unit, c.ok)
		}
	}
	if _, _, ok := unitColumns("", false, 2); ok {
		t.Error("a column on an unknown line was converted")
	}
	_, doc := writeSARIF(t, testRules, positionSets())
	run := doc.Runs[0]
	if run.ColumnKind != "utf16CodeUnits" {
		t.Errorf("columnKind %q", run.ColumnKind)
	}
	for i, want := range []int{26, 24, 0} {
		if got := run.Results[i].Locations[0].PhysicalLocation.Region.StartColumn; got != want {
			t.Errorf("result %d: startColumn %d, want %d", i, got, want)
		}
	}
	var b bytes.Buffer
	if err := WriteRDJSON(&b, testTool, testRules, positionSets()); err != nil {
		t.Fatal(err)
	}
	var rd struct {
		Diagnostics []struct {
			Location struct {
				Range *struct{ Start struct{ Line, Column int } }
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &rd); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{30, 26, 0} {
		if got := rd.Diagnostics[i].Location.Range.Start.Column; got != want {
			t.Errorf("rdjson diagnostic %d: column %d, want %d", i, got, want)
		}
	}
}

// A file outside the repository is an absolute file URI without uriBaseId (SARIF §3.4.4: a
// uriBaseId goes with a relative reference only); repository files stay relative to %SRCROOT%.
func TestSARIFFileOutsideTheRepository(t *testing.T) {
	_, doc := writeSARIF(t, testRules, positionSets())
	for _, r := range doc.Runs[0].Results {
		al := r.Locations[0].PhysicalLocation.ArtifactLocation
		outside := strings.HasPrefix(al.URI, "file:///")
		switch {
		case outside && al.URIBaseID != nil:
			t.Errorf("absolute %s with uriBaseId %s", al.URI, *al.URIBaseID)
		case !outside && (al.URIBaseID == nil || *al.URIBaseID != "%SRCROOT%" || strings.HasPrefix(al.URI, "/")):
			t.Errorf("relative %s without %%SRCROOT%%", al.URI)
		}
	}
	if got := doc.Runs[0].Results[5].Locations[0].PhysicalLocation.ArtifactLocation.URI; got != "file:///tmp/elsewhere/executor-report.md" {
		t.Errorf("outside uri %s", got)
	}
	if got := artifactLocation("/tmp/a b/ü#1.md").URI; got != "file:///tmp/a%20b/%C3%BC%231.md" {
		t.Errorf("absolute uri %s", got)
	}
}

func TestSARIFToolVersionStartsWithADigit(t *testing.T) {
	for in, want := range map[string]string{"v1.2.3": "1.2.3", "1.2.3": "1.2.3", "v0.0.0-20260101120000-abcdef123456+dirty": "0.0.0-20260101120000-abcdef123456+dirty",
		"unknown": "0.0.0-unknown", "main": "0.0.0-main", "": ""} {
		if got := sarifToolVersion(in); got != want {
			t.Errorf("sarifToolVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// bigSets returns n findings over two tasks: every third an error (a report-side kind on its own
// path), the rest out-of-scope warnings, on paths of pathLen bytes (random letters when random).
func bigSets(n, pathLen int, random bool) []FindingSet {
	r := rand.New(rand.NewPCG(1, 2))
	sets := []FindingSet{
		{Task: "001-big", Spec: ".mastermind/tasks/001-big/spec.md", Report: ".mastermind/tasks/001-big/executor-report.md", Verdict: "broken"},
		{Task: "002-big", Spec: ".mastermind/tasks/002-big/spec.md", Report: ".mastermind/tasks/002-big/executor-report.md", Verdict: "broken"},
	}
	for i := range n {
		p := fmt.Sprintf("src/dir%03d/file%06d-ü.go", i%500, i)
		if random {
			var b strings.Builder
			for b.Len() < pathLen {
				b.WriteByte(byte('a' + r.IntN(26)))
			}
			p = fmt.Sprintf("%06d/%s", i, b.String())
		} else if len(p) < pathLen {
			p += strings.Repeat("x", pathLen-len(p))
		}
		f := af(finding.KindUnexpectedFile, finding.ClassWarning, "changed outside the declared scope: "+p, "file", p)
		if i%3 == 0 {
			f = af(finding.KindReportMissingChangedFile, finding.ClassError, "changed since the baseline but not listed in files_modified: "+p, "file", p)
		}
		s := &sets[i%2]
		s.Findings = append(s.Findings, f)
	}
	return sets
}

// 30,000 findings: the log keeps 4,999 of them, every error before any warning, in output
// order, and a last result that says how many were left out and where the full list is.
func TestSARIFKeepsGitHubsResultLimit(t *testing.T) {
	data, doc := writeSARIF(t, KindRules(), bigSets(30000, 0, false))
	res := doc.Runs[0].Results
	if len(res) != MaxSARIFResults {
		t.Fatalf("%d results, want %d", len(res), MaxSARIFResults)
	}
	last := res[len(res)-1]
	want := "25001 of 30000 results are left out of this SARIF log"
	if last.RuleID != RuleTruncated || !strings.HasPrefix(last.Message.Text, want) || last.Level != "warning" {
		t.Errorf("last result %s %q, want %s %q…", last.RuleID, last.Message.Text, RuleTruncated, want)
	}
	for _, w := range []string{".mastermind/tasks/001-big/audit.md, .mastermind/tasks/002-big/audit.md", "--format json"} {
		if !strings.Contains(last.Message.Text, w) {
			t.Errorf("last result does not name %s: %s", w, last.Message.Text)
		}
	}
	if got := last.Locations[0].PhysicalLocation.ArtifactLocation.URI; got != ".mastermind/tasks/001-big/audit.md" {
		t.Errorf("truncation result at %s", got)
	}
	// 10,000 errors: the 4,999 first of them are kept, no warning.
	errs := 0
	for _, r := range res[:len(res)-1] {
		if r.Level != "error" {
			t.Fatalf("a %s result kept while errors were left out", r.Level)
		}
		errs++
	}
	if errs != MaxSARIFResults-1 {
		t.Errorf("%d errors kept", errs)
	}
	// The first errors in output order, still in that order (task 001 holds 5,000 errors).
	for i, r := range res[:len(res)-1] {
		want := fmt.Sprintf("file%06d-", 6*i)
		if r.Properties.Task != "001-big" || !strings.Contains(r.Locations[0].PhysicalLocation.ArtifactLocation.URI, want) {
			t.Fatalf("result %d: %s %s, want task 001-big and %s", i, r.Properties.Task, r.Locations[0].PhysicalLocation.ArtifactLocation.URI, want)
		}
	}
	rules := doc.Runs[0].Tool.Driver.Rules
	if len(rules) > 25000 || rules[last.RuleIndex].ID != RuleTruncated || rules[last.RuleIndex].Help == nil {
		t.Errorf("%d rules; truncation rule %+v", len(rules), rules[last.RuleIndex])
	}
	if n := gzipLen(t, data); n > MaxSARIFGzipBytes {
		t.Errorf("%d bytes gzip-compressed", n)
	}
	// At the limit nothing is left out and no truncation result is added.
	_, exact := writeSARIF(t, KindRules(), bigSets(MaxSARIFResults, 0, false))
	if n := len(exact.Runs[0].Results); n != MaxSARIFResults || exact.Runs[0].Results[n-1].RuleID == RuleTruncated {
		t.Errorf("%d findings: %d results", MaxSARIFResults, n)
	}
	// Few errors: all of them, then warnings up to the limit.
	sets := bigSets(30000, 0, false)
	for i := range sets {
		for j := range sets[i].Findings {
			if j > 10 && sets[i].Findings[j].Class == finding.ClassError {
				sets[i].Findings[j].Class = finding.ClassWarning
			}
		}
	}
	_, mixed := writeSARIF(t, KindRules(), sets)
	errs = 0
	for _, r := range mixed.Runs[0].Results {
		if r.Level == "error" {
			errs++
		}
	}
	if errs != 8 || len(mixed.Runs[0].Results) != MaxSARIFResults {
		t.Errorf("%d errors among %d results, want 8 among %d", errs, len(mixed.Runs[0].Results), MaxSARIFResults)
	}
}

// Findings on long, incompressible paths: the log stays under GitHub's 10 MB compressed limit
// (MaxSARIFGzipBytes) by leaving results out, and says so.
func TestSARIFKeepsGitHubsFileSizeLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a 60 MB log")
	}
	data, doc := writeSARIF(t, KindRules(), bigSets(4900, 4000, true))
	res := doc.Runs[0].Results
	last := res[len(res)-1]
	if last.RuleID != RuleTruncated || !strings.Contains(last.Message.Text, fmt.Sprintf("%d of 4900 results are left out", 4900-(len(res)-1))) {
		t.Fatalf("last of %d results: %s %.100q", len(res), last.RuleID, last.Message.Text)
	}
	n := gzipLen(t, data)
	if n > MaxSARIFGzipBytes || n < MaxSARIFGzipBytes*7/10 {
		t.Errorf("%d bytes gzip-compressed, want under %d and near it", n, MaxSARIFGzipBytes)
	}
	t.Logf("%d of 4900 findings kept, %d bytes, %d compressed", len(res)-1, len(data), n)
}

func gzipLen(t *testing.T, data []byte) int {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil || zw.Close() != nil {
		t.Fatal(err)
	}
	return b.Len()
}
