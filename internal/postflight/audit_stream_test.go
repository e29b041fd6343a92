package postflight

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
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

// TestParseAuditRoundTrip: parseAudit reads back what writeAudit wrote — the findings (per-path
// findings compact again, others as written, so that they render to the same bytes), the report
// violations, verdict and counts, and the capped summary of the human part — and refuses
// evidence whose indentation or end is not writeAudit's.
func TestParseAuditRoundTrip(t *testing.T) {
	head := strings.Repeat("b", 40)
	var fs []finding.Finding
	for i := range 60 {
		p := "src/f" + string(rune('a'+i%26)) + strings.Repeat("x", i) + ".go"
		if i == 7 {
			p = "Structured audit evidence \u202e<&>\x01.go"
		}
		file := []finding.Field{{Key: "file", Value: p}}
		fs = append(fs, finding.PathFinding(finding.KindUnexpectedFile, file), finding.PathFinding(finding.KindReportMissingChangedFile, file))
	}
	fs = append(fs, testFinding(finding.KindVerificationRequirementUnmet, "cmd \"x\" <y> \\\"}]", "index", 2, "cmd", "go test", "extra", map[string]any{"a": []int{1}, "b}": "]\"", "c": nil, "d": true, "e": -1.5e3}),
		testFinding(finding.KindExecutorReportRejected, "rejected", "reason", audit.ReasonReportInvalid))
	audit.Sort(fs)
	e, w := finding.Count(fs)
	a := &Audit{Evidence: audit.Evidence{Spec: "s.md", Baseline: head,
		ChangedSet: &audit.ChangedSetEvidence{Source: "git", Files: []audit.ChangedFileJSON{{Path: "a.go", Status: "modified"}, {Path: "b\u0085.go", Status: "added"}}},
		Report:     &audit.ReportEvidence{FilesModified: []string{}, Violations: []finding.Finding{{Rule: "schema.type", Class: finding.ClassError, File: "r.md", Line: 3, Column: 4, Pointer: "/x", Message: "bad"}}},
		Violations: []finding.Finding{{Rule: "schema.type", Class: finding.ClassError, File: "r.md", Line: 3, Column: 4, Pointer: "/x", Message: "bad"}}},
		Verdict: VerdictBroken, Counts: Counts{e, w}, Findings: fs, ReturnToDesign: true}
	var human bytes.Buffer
	var out bytes.Buffer
	if err := writeAudit(&out, a, &human); err != nil {
		t.Fatal(err)
	}
	rec, err := parseAudit(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	all := slices.Collect(audit.All(rec.findings, rec.runs.runs))
	if rec.Verdict != VerdictBroken || rec.Counts != a.Counts || len(all) != len(fs) || len(rec.violations) != 1 {
		t.Fatalf("record: %+v", rec)
	}
	// The 120 per-path findings are two runs, the rest explicit.
	if len(rec.runs.runs) != 2 || len(rec.findings) != len(fs)-120 {
		t.Errorf("%d runs, %d explicit findings", len(rec.runs.runs), len(rec.findings))
	}
	// Read one byte at a time, every value crosses a buffer boundary: the same record.
	slow, err := parseAudit(iotest.OneByteReader(bytes.NewReader(out.Bytes())))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(all, slices.Collect(audit.All(slow.findings, slow.runs.runs))); d != "" || slow.summary != rec.summary || !cmp.Equal(slow.violations, rec.violations) {
		t.Fatalf("one byte at a time:\n%s", d)
	}
	if want := CapAuditSummary(human.String(), MaxSummaryFindings); rec.summary != want || !strings.Contains(want, "… and") {
		t.Errorf("summary\n got %q\nwant %q", rec.summary, want)
	}
	for i, f := range all {
		if _, per := map[string]bool{finding.KindUnexpectedFile: true, finding.KindReportMissingChangedFile: true}[f.Rule]; per && f.Message != "" {
			t.Errorf("finding %d not compact: %+v", i, f)
		}
		if f.Text() != fs[i].Text() {
			t.Errorf("finding %d: %q, want %q", i, f.Text(), fs[i].Text())
		}
	}
	// The two per-path findings of each path share one path string, as the audit built them.
	shared := 0
	r0, r1 := rec.runs.runs[0].Files, rec.runs.runs[1].Files
	for i := range r0 {
		p0, p1 := r0[i].Value.(string), r1[i].Value.(string)
		if p0 == p1 && unsafe.StringData(p0) == unsafe.StringData(p1) {
			shared++
		}
	}
	if shared != 60 {
		t.Errorf("%d paths share their path string, want 60", shared)
	}
	b := *a
	b.Findings, b.PathRuns, b.Violations = rec.findings, rec.runs.runs, rec.violations
	b.Report = &audit.ReportEvidence{FilesModified: []string{}, Violations: rec.violations}
	again, err := RenderAudit(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, out.Bytes()) {
		t.Errorf("decoded findings render differently")
	}
	bad := map[string]string{
		"unindented line": strings.Replace(out.String(), "\n        \"verdict\"", "\n   \"verdict\"", 1),
		"trailing data":   out.String() + "    {}\n",
		"blank line":      strings.Replace(out.String(), "\n        \"verdict\"", "\n\n        \"verdict\"", 1),
		"no evidence":     human.String(),
		"truncated":       out.String()[:out.Len()-40],
	}
	for name, s := range bad {
		if _, err := parseAudit(strings.NewReader(s)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzParseAudit: parseAudit never panics on any input, and every finding it accepts has a kind
// and a class.
func FuzzParseAudit(f *testing.F) {
	head := strings.Repeat("c", 40)
	file := []finding.Field{{Key: "file", Value: "a.go"}}
	for _, a := range []*Audit{
		{Evidence: audit.Evidence{Spec: "s.md", Baseline: head}, Verdict: VerdictHeld},
		{Evidence: audit.Evidence{Spec: "s.md", Baseline: head, ChangedSet: &audit.ChangedSetEvidence{Source: "git", Files: []audit.ChangedFileJSON{{Path: "a.go", Status: "added"}}}},
			Verdict: VerdictDrift, Counts: Counts{0, 1}, Findings: []finding.Finding{finding.PathFinding(finding.KindUnexpectedFile, file)}},
	} {
		b, err := RenderAudit(a)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("x\n\nStructured audit evidence\n    {\"findings\": [{\"kind\": \"k\", \"class\": \"error\", \"n\": 1}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := parseAudit(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, f := range rec.findings {
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
