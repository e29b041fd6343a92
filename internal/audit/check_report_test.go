package audit

import (
	"context"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/report"
)

// TestCheckReport: §4 step 3 and §10.1 — a missing or invalid report, a partial or failed one,
// an inconsistent "complete" and a report for another task are each one executor_report_rejected
// finding with its reason; the changed set is not used.
func TestCheckReport(t *testing.T) {
	fail := completeReport("a.go")
	fail.Verifications = []report.Verification{{Cmd: "go test ./...", Result: "fail"}}
	cases := []struct {
		name   string
		report string // executor-report.md content; "" leaves it missing
		rep    *report.Report
		reason string
	}{
		{"missing", "", nil, ReasonReportMissing},
		{"invalid", "no report here\n", nil, ReasonReportInvalid},
		{"partial", "", &report.Report{Spec: testSpecPath, Status: "partial", Defects: []report.Defect{{Kind: "blocked", Details: "no access"}}}, ReasonStatusPartial},
		{"failed", "", &report.Report{Spec: testSpecPath, Status: "failed"}, ReasonStatusFailed},
		{"complete with a failed verification", "", fail, ReasonCompletionInconsistent},
		{"complete with a pending phase", "", &report.Report{Spec: testSpecPath, Status: "complete", Phases: []report.Phase{{ID: "p", Status: "pending"}}}, ReasonCompletionInconsistent},
		{"another task", "", &report.Report{Spec: ".mastermind/tasks/021-other/spec.md", Status: "complete"}, ReasonTaskMismatch},
		{"not a repository path", "", &report.Report{Spec: "../outside/spec.md", Status: "complete"}, ReasonTaskPathInvalid},
		{"absolute path outside", "", &report.Report{Spec: "/elsewhere/spec.md", Status: "complete"}, ReasonTaskPathInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", map[string]string{"a.go": "a\n"}, map[string]string{"a.go": "a2\n"})
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
			if res.Rejection == nil || res.Verdict != VerdictBroken || len(res.Findings) != 1 {
				t.Fatalf("result %+v", res)
			}
			got := res.Findings[0]
			if got.Rule != finding.KindExecutorReportRejected || got.FieldString("reason") != tc.reason || got.Class != finding.ClassError {
				t.Errorf("finding %+v, want reason %s", got, tc.reason)
			}
			if res.Changed != nil || res.Evidence.ChangedSet != nil {
				t.Error("a rejected report used the changed set")
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
