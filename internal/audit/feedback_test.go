package audit

import (
	"context"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/report"
)

// reportFile is an executor-report.md in sentinel form holding the YAML lines body.
func reportFile(body ...string) string {
	return "<!-- mastermind:report-begin -->\n```yaml\n" + strings.Join(body, "\n") + "\n```\n<!-- mastermind:report-end -->\n"
}

// TestFeedbackRound: lifecycle-v2.md §6 on real reports read by report.ReadInRepo. A report that
// decodes as a mapping but fails the schema or consistency rules is audited on its usable parts
// (executor-report-v1.md §5.6) beside its rejection; one that does not decode gets the changed
// set against the declared scope; a partial or failed report gets every other check.
func TestFeedbackRound(t *testing.T) {
	const (
		head     = "schema_version: 1"
		spec     = "spec: " + testSpecPath
		complete = "status: complete"
		phases   = "phases: [{id: p, status: done}]"
		files    = "files_modified: [a.go]"
		noClaims = "claims: []"
		defects  = "defects: []"
		oldClaim = "claims: [{kind: function_added, symbol: Old, file: a.go}]"
		unobs    = "verifications: [{cmd: go test ./..., result: pass}]"
		passed   = "verifications: [{cmd: go test ./..., result: pass, observed: {exit_code: 0, tests_run: 1}}]"
	)
	scope := []string{"missing_expected_file b.go", "unexpected_file c.go"}
	invalid := "executor_report_rejected (report_invalid)"
	cases := []struct {
		name string
		body []string
		want []string
		// evidence expected: status and files_modified of the report evidence ("-" for null),
		// whether verification and claim_checks were evaluated
		status, filesModified string
		verification, claims  bool
	}{
		{"YAML syntax error: scope only", []string{head, spec, "status: complete: yes", files},
			append([]string{invalid}, scope...), "-", "-", false, false},
		{"wrong status: every other check on the usable parts", []string{head, spec, "status: completed", phases, files, oldClaim, defects, unobs},
			append([]string{invalid, "executor_report_missing_changed_file c.go", "claimed_symbol_not_added a.go",
				"verification_requirement_unmet go test ./... (unobserved_exit)"}, scope...), "-", "a.go", true, true},
		{"complete with a defect: the report is still audited", []string{head, spec, complete, phases, "files_modified: [a.go, c.go]", noClaims,
			"defects: [{kind: blocked, phase: p, details: x, remediation_hint: y}]", passed},
			append([]string{invalid}, scope...), "complete", "a.go c.go", true, true},
		{"files_modified not a list: no files_modified check", []string{head, spec, complete, phases, "files_modified: a.go", noClaims, defects, passed},
			append([]string{invalid}, scope...), "complete", "-", true, true},
		{"files_modified absent: no files_modified check", []string{head, spec, complete, phases, noClaims, defects, passed},
			append([]string{invalid}, scope...), "complete", "-", true, true},
		{"duplicate files_modified entry: one finding", []string{head, spec, complete, phases, "files_modified: [z.go, ./z.go, a.go, c.go]", noClaims, defects, passed},
			append([]string{invalid, "executor_report_unexpected_file z.go"}, scope...), "complete", "z.go z.go a.go c.go", true, true},
		{"dropped verification row: missing_result", []string{head, spec, complete, phases, "files_modified: [a.go, c.go]", noClaims, defects,
			"verifications: [{cmd: go test ./..., result: passed, observed: {exit_code: 0, tests_run: 1}}]"},
			append([]string{invalid, "verification_requirement_unmet go test ./... (missing_result)"}, scope...), "complete", "a.go c.go", true, true},
		{"kept row beside a dropped one is checked", []string{head, spec, complete, phases, "files_modified: [a.go, c.go]", noClaims, defects,
			"verifications: [{cmd: go vet, result: maybe}, {cmd: go test ./..., result: pass, observed: {exit_code: 1, tests_run: 1}}]"},
			append([]string{invalid, "observed_exit_code_non_zero go test ./...", "verification_requirement_unmet go test ./... (not_passed)"}, scope...),
			"complete", "a.go c.go", true, true},
		{"claims not a list: claims not evaluated", []string{head, spec, complete, phases, "files_modified: [a.go, c.go]", "claims: nope", defects, passed},
			append([]string{invalid}, scope...), "complete", "a.go c.go", true, false},
		{"a partial report for another task: scope only", []string{head, "spec: .mastermind/tasks/021-other/spec.md", "status: completed", phases, files, oldClaim, defects, unobs},
			append([]string{invalid, "executor_report_rejected (task_mismatch)"}, scope...), "-", "-", false, false},
		{"failed with a failed declared row: not_passed beside status_failed", []string{head, spec, "status: failed", phases, "files_modified: [a.go, c.go]", noClaims,
			"defects: [{kind: tests_failing, phase: p, details: x, remediation_hint: y}]",
			"verifications: [{cmd: go test ./..., result: fail, observed: {exit_code: 1, tests_run: 1}}]"},
			append([]string{"executor_report_rejected (status_failed)", "verification_requirement_unmet go test ./... (not_passed)"}, scope...),
			"failed", "a.go c.go", true, true},
	}
	base := map[string]string{"go.mod": "module example.com/a\n", "a.go": "package a\n\nfunc Old() {}\n", "b.go": "package a\n",
		"a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n"}
	work := map[string]string{"a.go": "package a\n\nfunc Old() { _ = 1 }\n", "c.go": "package a\n"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "touches:\n  - file: a.go\n  - file: b.go\nverify:\n  - cmd: go test ./...\n", base, work)
			write(t, f.root, ".mastermind/tasks/020-cache/executor-report.md", reportFile(tc.body...))
			rr, err := report.ReadInRepo(f.root, ".mastermind/tasks/020-cache/executor-report.md")
			if err != nil {
				t.Fatal(err)
			}
			res, err := Compute(context.Background(), f.inputs(t, rr))
			if err != nil {
				t.Fatal(err)
			}
			if res.Rejection == nil || res.Verdict != VerdictBroken {
				t.Fatalf("verdict %s rejection %v", res.Verdict, res.Rejection)
			}
			wantKinds(t, res.Findings, tc.want...)
			ev := res.Evidence
			if ev.ChangedSet == nil || len(ev.ChangedSet.Files) != 2 {
				t.Errorf("changed set evidence %+v", ev.ChangedSet)
			}
			status, files := "-", "-"
			if ev.Report != nil && ev.Report.Status != nil {
				status = *ev.Report.Status
			}
			if ev.Report != nil && ev.Report.FilesModified != nil {
				files = strings.Join(ev.Report.FilesModified, " ")
			}
			if status != tc.status || files != tc.filesModified {
				t.Errorf("report evidence status %q files_modified %q, want %q %q", status, files, tc.status, tc.filesModified)
			}
			if (ev.Verification != nil) != tc.verification || (ev.ClaimChecks != nil) != tc.claims {
				t.Errorf("verification evaluated %v, claims evaluated %v; want %v %v", ev.Verification != nil, ev.ClaimChecks != nil, tc.verification, tc.claims)
			}
		})
	}
}

// TestFeedbackForbids: a report that does not decode still has its changed set checked against
// forbids (lifecycle-v2.md §2), and a forbidden path is not also unexpected_file.
func TestFeedbackForbids(t *testing.T) {
	f := newFixture(t, "touches:\n  - file: a.go\nforbids:\n  - tests/**\n", map[string]string{"a.go": "a\n", "tests/t.go": "t\n"},
		map[string]string{"a.go": "a2\n", "tests/t.go": "t2\n", "c.go": "c\n"})
	write(t, f.root, ".mastermind/tasks/020-cache/executor-report.md", reportFile("schema_version: 1", "status: complete: yes"))
	rr, err := report.ReadInRepo(f.root, ".mastermind/tasks/020-cache/executor-report.md")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compute(context.Background(), f.inputs(t, rr))
	if err != nil {
		t.Fatal(err)
	}
	wantKinds(t, res.Findings, "executor_report_rejected (report_invalid)", "forbidden_path_changed tests/t.go", "unexpected_file c.go")
}
