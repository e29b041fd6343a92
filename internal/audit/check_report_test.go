package audit

import (
	"context"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/report"
)

// TestCheckReport: §4 step 3 and §10.1 — a missing or invalid report, a partial or failed one,
// an inconsistent "complete" and a report for another task are each rejected with their reason,
// and the feedback round beside the rejection (lifecycle-v2.md §6) runs the checks the report
// still supports: every check for a typed report rejected for its completion, the changed set
// against the scope for a report with nothing about this task.
func TestCheckReport(t *testing.T) {
	fail := completeReport("a.go")
	fail.Verifications = []report.Verification{{Cmd: "go test ./...", Result: "fail"}}
	scope := []string{"missing_expected_file b.go", "unexpected_file c.go"}
	cases := []struct {
		name   string
		report string // executor-report.md content; "" leaves it missing
		rep    *report.Report
		reason string
		want   []string // besides the rejection
	}{
		{"missing", "", nil, ReasonReportMissing, scope},
		{"invalid", "no report here\n", nil, ReasonReportInvalid, scope},
		{"partial", "", &report.Report{Spec: testSpecPath, Status: "partial", Defects: []report.Defect{{Kind: "blocked", Details: "no access"}}}, ReasonStatusPartial,
			append([]string{"executor_report_missing_changed_file a.go", "executor_report_missing_changed_file c.go"}, scope...)},
		{"failed", "", &report.Report{Spec: testSpecPath, Status: "failed", FilesModified: []report.FileEntry{{Raw: "a.go", Path: "a.go"}}}, ReasonStatusFailed,
			append([]string{"executor_report_missing_changed_file c.go"}, scope...)},
		{"complete with a failed verification", "", fail, ReasonCompletionInconsistent, append([]string{"executor_report_missing_changed_file c.go"}, scope...)},
		{"complete with a pending phase", "", &report.Report{Spec: testSpecPath, Status: "complete", Phases: []report.Phase{{ID: "p", Status: "pending"}}}, ReasonCompletionInconsistent,
			append([]string{"executor_report_missing_changed_file a.go", "executor_report_missing_changed_file c.go"}, scope...)},
		{"another task", "", &report.Report{Spec: ".mastermind/tasks/021-other/spec.md", Status: "complete"}, ReasonTaskMismatch, scope},
		{"another task, partial", "", &report.Report{Spec: ".mastermind/tasks/021-other/spec.md", Status: "partial"}, ReasonStatusPartial,
			append([]string{"executor_report_rejected (task_mismatch)"}, scope...)},
		{"not a repository path", "", &report.Report{Spec: "../outside/spec.md", Status: "complete"}, ReasonTaskPathInvalid, scope},
		{"absolute path outside", "", &report.Report{Spec: "/elsewhere/spec.md", Status: "complete"}, ReasonTaskPathInvalid, scope},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "touches:\n  - file: a.go\n  - file: b.go\n", map[string]string{"a.go": "a\n", "b.go": "b\n"},
				map[string]string{"a.go": "a2\n", "c.go": "c\n"})
			rr := report.Result{Report: tc.rep}
			if tc.rep == nil {
				if tc.report != "" {
					write(t, f.root, ".mastermind/tasks/020-cache/executor-report.md", tc.report)
				}
				var err error
				if rr, err = report.ReadInRepo(f.root, ".mastermind/tasks/020-cache/executor-report.md"); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Compute(context.Background(), f.inputs(t, rr))
			if err != nil {
				t.Fatal(err)
			}
			if res.Rejection == nil || res.Verdict != VerdictBroken {
				t.Fatalf("result %+v", res)
			}
			got := res.Rejection.Finding
			if got.Rule != finding.KindExecutorReportRejected || got.FieldString("reason") != tc.reason || got.Class != finding.ClassError {
				t.Errorf("finding %+v, want reason %s", got, tc.reason)
			}
			wantKinds(t, res.Findings, append([]string{"executor_report_rejected (" + tc.reason + ")"}, tc.want...)...)
			if res.Changed == nil || res.Evidence.ChangedSet == nil || len(res.D) != 2 {
				t.Error("the feedback round did not compute the changed set")
			}
			if tc.reason == ReasonReportInvalid && (len(res.Evidence.Violations) == 0 || res.Evidence.Report == nil) {
				t.Errorf("invalid report without its violations: %+v", res.Evidence)
			}
			if tc.reason == ReasonReportMissing && res.Evidence.Report != nil {
				t.Error("a missing report has report evidence")
			}
		})
	}
}

// TestComputeAccepted: an accepted report runs every check; findings come back in §9.3 order
// with the verdict of §9.2 and the evidence of §7.2.
func TestComputeAccepted(t *testing.T) {
	f := newFixture(t, "touches:\n  - file: a.go\n", map[string]string{"a.go": "a\n", "b.go": "b\n"},
		map[string]string{"a.go": "a2\n", "b.go": "b2\n"})
	write(t, f.root, ".mastermind/tasks/020-cache/executor-report.md", "<!-- mastermind:report-begin -->\n```yaml\n"+
		"schema_version: 1\nspec: "+testSpecPath+"\nstatus: complete\nphases:\n  - id: p\n    status: done\n"+
		"files_modified:\n  - a.go\nclaims: []\ndefects: []\nverifications: []\n```\n<!-- mastermind:report-end -->\n")
	rr, err := report.ReadInRepo(f.root, ".mastermind/tasks/020-cache/executor-report.md")
	if err != nil || !rr.Valid() {
		t.Fatalf("report: %v %v", err, rr.Findings)
	}
	res, err := Compute(context.Background(), f.inputs(t, rr))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Rule+" "+f.FieldString("file"))
	}
	want := []string{"executor_report_missing_changed_file b.go", "unexpected_file b.go"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("findings %q, want %q", got, want)
	}
	if res.Verdict != VerdictBroken || res.Rejection != nil {
		t.Errorf("verdict %s rejection %v", res.Verdict, res.Rejection)
	}
	if res.Evidence.ChangedSet == nil || len(res.Evidence.ChangedSet.Files) != 2 || len(res.D) != 2 || res.Changed == nil {
		t.Errorf("changed set evidence %+v", res.Evidence.ChangedSet)
	}
	if res.Evidence.Verification == nil || res.Evidence.ClaimChecks == nil || res.Evidence.Report == nil || res.Evidence.Scope == nil {
		t.Errorf("evidence not filled: %+v", res.Evidence)
	}
}

// TestComputeRepoFindings: findings the caller established about the repository join the audit
// and decide the verdict like any other.
func TestComputeRepoFindings(t *testing.T) {
	f := newFixture(t, "touches:\n  - file: a.go\n", map[string]string{"a.go": "a\n"}, map[string]string{"a.go": "a2\n"})
	in := f.inputs(t, report.Result{Report: completeReport("a.go"), Form: report.FormSentinel})
	in.RepoFindings = []finding.Finding{newFinding(finding.KindChangedSetDegraded, "test", "reason", "git_unavailable")}
	res, err := Compute(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != VerdictDrift || len(res.Findings) != 1 {
		t.Errorf("verdict %s findings %v", res.Verdict, res.Findings)
	}
}
