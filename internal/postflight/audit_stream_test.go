package postflight

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// referenceEvidence is the evidence JSON of a encoded as one value, the way §7.1 defines it: one
// json.Encoder with the four-space prefix and indentation and HTML escaping off, then
// textsafe.EscapeJSON. writeEvidence streams the two large arrays and must give the same bytes.
func referenceEvidence(t *testing.T, a *Audit) string {
	t.Helper()
	ev := evidenceJSON{
		SchemaVersion: AuditSchemaVersion, Spec: a.Spec, GitRef: a.Baseline, Head: a.Head,
		Verdict: a.Verdict, Counts: a.Counts, ChangedSet: a.ChangedSet, Scope: a.Scope,
		ExecutorReport: a.Report, Verification: a.Verification, ClaimChecks: a.ClaimChecks,
		Findings: AuditFindings(a.Findings),
	}
	var b bytes.Buffer
	b.WriteString("    ")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "    ")
	if err := enc.Encode(ev); err != nil {
		t.Fatal(err)
	}
	return string(textsafe.EscapeJSON(b.Bytes()))
}

// TestWriteEvidenceMatchesWholeEncoding: the streamed evidence equals the whole-value encoding for
// nil, empty and filled arrays, strings that look like the splice points, HTML and bidi
// characters, and nested evidence (so that a field added to an evidence type stays covered).
func TestWriteEvidenceMatchesWholeEncoding(t *testing.T) {
	head := "0123456789012345678901234567890123456789"
	tricky := "a\n            \"files\": null<&>\u202e\u0085\x7f\"\\"
	file := []finding.Field{{Key: "file", Value: tricky}}
	fs := []finding.Finding{
		finding.PathFinding(finding.KindUnexpectedFile, file),
		finding.PathFinding(finding.KindReportMissingChangedFile, []finding.Field{{Key: "file", Value: "b.go"}}),
		testFinding(finding.KindVerificationRequirementUnmet, "\"findings\": null", "index", 1, "cmd", "go test <./...>", "nested", map[string]any{"files": nil}),
	}
	files := []audit.ChangedFileJSON{{Path: tricky, Status: "modified"}, {Path: "<a&b>.go", Status: "added"}, {Path: `"files": null`, Status: "deleted"}}
	str := func(s string) *string { return &s }
	full := audit.Evidence{Spec: "s.md", Baseline: head, Head: str(head),
		ChangedSet:   &audit.ChangedSetEvidence{Source: "git", Files: files},
		Scope:        &audit.ScopeEvidence{Source: "touches", Declared: []string{"src/**", "\"files\": null"}, IgnoredScopeTokens: []string{}},
		Report:       &audit.ReportEvidence{Form: str("fenced"), Status: str("done"), Spec: str("s.md"), FilesModified: []string{"a.go"}, Violations: []finding.Finding{{Rule: "schema.type", Class: finding.ClassError, Message: "bad", Line: 2, Column: 3}}},
		Verification: &audit.VerificationEvidence{Declared: []string{"go test"}, Labels: []string{}, Rows: []audit.VerificationRow{{Index: 0, Cmd: "go test", Result: "passed", Classification: "claimed", Basis: "claimed by the report"}}, Receipts: []verifyrun.ReceiptEvidence{}},
		ClaimChecks:  []map[string]any{{"claim": "files", "files": []string{"x"}}},
	}
	cases := map[string]*Audit{
		"full":               {Evidence: full, Verdict: VerdictBroken, Counts: Counts{2, 1}, Findings: fs},
		"no changed set":     {Evidence: audit.Evidence{Spec: "s.md", Baseline: head}, Verdict: VerdictBroken, Findings: fs[:1]},
		"nil files":          {Evidence: audit.Evidence{Spec: "s.md", Baseline: head, ChangedSet: &audit.ChangedSetEvidence{Source: "git"}}, Verdict: VerdictHeld},
		"empty files":        {Evidence: audit.Evidence{Spec: "s.md", Baseline: head, ChangedSet: &audit.ChangedSetEvidence{Source: "git", Degraded: true, Files: []audit.ChangedFileJSON{}}}, Verdict: VerdictHeld, Findings: []finding.Finding{}},
		"files, no findings": {Evidence: full, Verdict: VerdictHeld},
		"findings only":      {Evidence: audit.Evidence{Spec: "s.md", Baseline: head, ChangedSet: &audit.ChangedSetEvidence{Source: "git"}}, Verdict: VerdictDrift, Findings: fs},
	}
	for name, a := range cases {
		var b bytes.Buffer
		if err := writeEvidence(&b, a); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := referenceEvidence(t, a); b.String() != want {
			t.Errorf("%s: streamed evidence differs\n got %s\nwant %s", name, b.String(), want)
		}
		var human bytes.Buffer
		whole, err := RenderAudit(a)
		if err != nil {
			t.Fatal(err)
		}
		var streamed bytes.Buffer
		if err := writeAudit(&streamed, a, &human); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(whole, streamed.Bytes()) || !strings.HasPrefix(string(whole), human.String()+"Structured audit evidence") {
			t.Errorf("%s: human part %q not the prefix of audit.md", name, human.String())
		}
		// audit.md is the human part, the evidence header line, then the evidence as one value
		// encodes it: nothing is lost or added between the streamed pieces.
		if want := human.String() + "Structured audit evidence (JSON; null means not evaluated):\n" + referenceEvidence(t, a); string(whole) != want {
			t.Errorf("%s: audit.md is not human part + header + evidence\n got %s\nwant %s", name, whole, want)
		}
	}
}

// TestResultRoundTrip: readResult reads back what writeResult wrote — the explicit findings and
// the per-path runs (compact, two runs sharing one path string per path), the report violations,
// receipts, verdict, counts and summary — so that audit.md rendered from them is the same bytes,
// and refuses a result that is not writeResult's.
func TestResultRoundTrip(t *testing.T) {
	head := strings.Repeat("b", 40)
	var files []finding.Field
	for i := range 60 {
		p := "src/f" + string(rune('a'+i%26)) + strings.Repeat("x", i) + ".go"
		if i == 7 {
			p = "Structured audit evidence \u202e<&>\x01.go"
		}
		files = append(files, finding.Field{Key: "file", Value: p})
	}
	slices.SortFunc(files, func(a, b finding.Field) int { return strings.Compare(a.Value.(string), b.Value.(string)) })
	runs := []finding.PathRun{{Kind: finding.KindReportMissingChangedFile, Files: files},
		{Kind: finding.KindUnexpectedFile, Files: files, Index: []int32{0, 3, 7, 59}}}
	fs := []finding.Finding{
		testFinding(finding.KindVerificationRequirementUnmet, "cmd \"x\" <y> \\\"}]", "index", 2, "cmd", "go test", "extra", map[string]any{"a": []int{1}, "b}": "]\"", "c": nil, "d": true, "e": -1.5e3}),
		testFinding(finding.KindExecutorReportRejected, "rejected", "reason", audit.ReasonReportInvalid),
		finding.PathFinding(finding.KindUnexpectedFile, []finding.Field{{Key: "file", Value: "zz.go"}}),
	}
	audit.Sort(fs)
	e, w := finding.Count(fs)
	re, rw := finding.CountRuns(runs)
	viol := []finding.Finding{{Rule: "schema.type", Class: finding.ClassError, File: "r.md", Line: 3, Column: 4, Pointer: "/x", Message: "bad"}}
	sig := "killed"
	receipts := []verifyrun.ReceiptEvidence{{N: 1, Cmd: "go test ./...", Basis: verifyrun.BasisRan, ExitCode: 1, Signal: &sig, OutputSHA256: strings.Repeat("0", 64)}}
	a := &Audit{Evidence: audit.Evidence{Spec: "s.md", Baseline: head,
		ChangedSet:   &audit.ChangedSetEvidence{Source: "git", Files: []audit.ChangedFileJSON{{Path: "a.go", Status: "modified"}}},
		Report:       &audit.ReportEvidence{FilesModified: []string{}, Violations: viol},
		Verification: &audit.VerificationEvidence{Receipts: receipts},
		Violations:   viol},
		Verdict: VerdictBroken, Counts: Counts{e + re, w + rw}, Findings: fs, PathRuns: runs, ReturnToDesign: true}
	var human, md bytes.Buffer
	if err := writeAudit(&md, a, &human); err != nil {
		t.Fatal(err)
	}
	summary := CapAuditSummary(human.String(), MaxSummaryFindings)
	var out bytes.Buffer
	if err := writeResult(&out, a, summary); err != nil {
		t.Fatal(err)
	}
	rec, err := readResult(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Verdict != VerdictBroken || rec.Counts != a.Counts || rec.Summary != summary || len(rec.Findings) != 3 || len(rec.Runs) != 2 {
		t.Fatalf("result: %+v", rec)
	}
	if d := cmp.Diff(viol, rec.Violations); d != "" {
		t.Errorf("violations (-want +got):\n%s", d)
	}
	if d := cmp.Diff(receipts, rec.Receipts); d != "" {
		t.Errorf("receipts (-want +got):\n%s", d)
	}
	want := slices.Collect(audit.All(fs, runs))
	got := slices.Collect(audit.All(rec.Findings, rec.Runs))
	if len(got) != len(want) {
		t.Fatalf("%d findings, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Text() != want[i].Text() || got[i].Rule != want[i].Rule {
			t.Errorf("finding %d: %q, want %q", i, got[i].Text(), want[i].Text())
		}
		if pathMessage(got[i].Rule) && got[i].Message != "" {
			t.Errorf("finding %d not compact: %+v", i, got[i])
		}
	}
	// The two runs share one path string per path, as the audit built them.
	shared := 0
	for _, f1 := range rec.Runs[1].Files {
		for _, f0 := range rec.Runs[0].Files {
			if p0, p1 := f0.Value.(string), f1.Value.(string); p0 == p1 && unsafe.StringData(p0) == unsafe.StringData(p1) {
				shared++
			}
		}
	}
	if shared != 4 {
		t.Errorf("%d paths share their path string, want 4", shared)
	}
	b := *a
	b.Findings, b.PathRuns, b.Violations = rec.Findings, rec.Runs, rec.Violations
	b.Report = &audit.ReportEvidence{FilesModified: []string{}, Violations: rec.Violations}
	again, err := RenderAudit(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, md.Bytes()) {
		t.Errorf("decoded findings render differently")
	}
	lines := strings.SplitAfter(out.String(), "\n")
	bad := map[string]string{
		"trailing data":  out.String() + "\"x\"\n",
		"truncated":      strings.Join(lines[:len(lines)-3], ""),
		"empty":          "",
		"unknown key":    strings.Replace(out.String(), `"result_version":1`, `"result_version":1,"x":1`, 1),
		"duplicate key":  strings.Replace(out.String(), `"result_version":1`, `"result_version":1,"verdict":"held"`, 1),
		"newer version":  strings.Replace(out.String(), `"result_version":1`, `"result_version":2`, 1),
		"no class":       strings.Replace(out.String(), `"class":"error"`, `"class":"fatal"`, 1),
		"path not a str": strings.Join(append(lines[:len(lines)-2:len(lines)-2], "1\n", lines[len(lines)-1]), ""),
	}
	for name, s := range bad {
		if _, err := readResult(strings.NewReader(s)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// A finding's string member holding another JSON value fails naming the member, instead of
	// decoding to "".
	for old, tc := range map[string]struct{ new, want string }{
		`"message":"rejected"`:              {`"message":7`, "result finding 0: finding message: not a string"},
		`"kind":"executor_report_rejected"`: {`"kind":{}`, "result finding 0: finding kind: not a string"},
		`"class":"warning","message"`:       {`"class":true,"message"`, "result finding 2: finding class: not a string"},
		`"message":"bad"`:                   {`"message":["bad"]`, "result header violations: finding message: not a string"},
		`"file":"r.md"`:                     {`"file":1`, "result header violations: finding file: not a string"},
		`"pointer":"/x"`:                    {`"pointer":null`, "result header violations: finding pointer: not a string"},
	} {
		if strings.Count(out.String(), old) != 1 {
			t.Fatalf("the result holds %s %d times, want once:\n%s", old, strings.Count(out.String(), old), out.String())
		}
		_, err := readResult(strings.NewReader(strings.Replace(out.String(), old, tc.new, 1)))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.new, err, tc.want)
		}
	}
	missing := strings.Replace(out.String(), `"result_version":1,`, "", 1)
	if _, err := readResult(strings.NewReader(missing)); err == nil || !strings.Contains(err.Error(), "result_version is missing") {
		t.Errorf("missing key: %v, want an error naming result_version", err)
	}
}

// pathMessage reports whether kind's findings are one per changed path (finding.PathFinding).
func pathMessage(kind string) bool {
	return kind == finding.KindUnexpectedFile || kind == finding.KindReportMissingChangedFile
}

// FuzzReadResult: readResult never panics on any input, and every finding it accepts has a kind
// and a class.
func FuzzReadResult(f *testing.F) {
	file := []finding.Field{{Key: "file", Value: "a.go"}}
	for _, a := range []*Audit{
		{Verdict: VerdictHeld},
		{Verdict: VerdictDrift, Counts: Counts{0, 2}, Findings: []finding.Finding{finding.PathFinding(finding.KindUnexpectedFile, file)},
			PathRuns: []finding.PathRun{{Kind: finding.KindReportMissingChangedFile, Files: file}}},
	} {
		var b bytes.Buffer
		if err := writeResult(&b, a, "summary\n"); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := readResult(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, f := range append(rec.Findings, rec.Violations...) {
			if f.Rule == "" || f.Class == "" {
				t.Fatalf("finding without kind or class: %+v", f)
			}
		}
	})
}

// TestRenderAuditFromRuns: audit.md of an audit whose per-path findings are held as runs
// (audit.Inputs.PathRuns) is byte for byte the audit.md of the same findings in one slice.
func TestRenderAuditFromRuns(t *testing.T) {
	files := []finding.Field{{Key: "file", Value: "a.go"}, {Key: "file", Value: "b\u202e.go"}, {Key: "file", Value: "c/d.go"}}
	runs := []finding.PathRun{
		{Kind: finding.KindReportMissingChangedFile, Files: files},
		{Kind: finding.KindUnexpectedFile, Files: files, Index: []int32{0, 2}},
	}
	explicit := []finding.Finding{
		testFinding(finding.KindMissingExpectedFile, "declared in scope but unchanged since the baseline: q.go", "file", "q.go"),
		testFinding(finding.KindForbiddenPathChanged, "forbidden: b.go", "file", "b.go"),
	}
	audit.Sort(explicit)
	ev := audit.Evidence{Spec: "s.md", Baseline: "0123456789012345678901234567890123456789",
		ChangedSet: &audit.ChangedSetEvidence{Source: "git", Files: []audit.ChangedFileJSON{{Path: "a.go", Status: "modified"}}}}
	withRuns := &Audit{Evidence: ev, Verdict: VerdictBroken, Counts: Counts{4, 3}, Findings: explicit, PathRuns: runs}
	all := slices.Collect(audit.All(explicit, runs))
	whole := &Audit{Evidence: ev, Verdict: VerdictBroken, Counts: Counts{4, 3}, Findings: all}
	got, err := RenderAudit(withRuns)
	if err != nil {
		t.Fatal(err)
	}
	want, err := RenderAudit(whole)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("audit.md from runs differs\n got %s\nwant %s", got, want)
	}
	if n := strings.Count(string(got), "unexpected_file"); n != 4 { // two lines, two JSON kinds
		t.Errorf("%d mentions of unexpected_file, want 4\n%s", n, got)
	}
}
