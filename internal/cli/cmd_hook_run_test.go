package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/harness"
	"github.com/mastermind-controller/mastermind/internal/postflight"
)

// The hook reads the typed outcome: the verdict, a reason only when the message is not the
// verdict line, the next step of a refusal, and the findings in the shapes run-task --json lists.
func TestHookOutcome(t *testing.T) {
	task := postflight.Task{Name: "001-retry", Spec: ".mastermind/tasks/001-retry/spec.md"}
	audit := finding.Finding{Rule: finding.KindUnexpectedFile, Class: finding.ClassWarning, File: "x.go", Line: 3,
		Fields: []finding.Field{{Key: "file", Value: "gen/a.go"}}}
	violation := finding.Finding{Rule: "schema.enum", Class: finding.ClassError, File: "r.md", Line: 5, Column: 9, Message: "status"}
	for name, c := range map[string]struct {
		o    postflight.Outcome
		want harness.Outcome
	}{
		"drift": {postflight.Outcome{Phase: postflight.PhasePostflight, Outcome: postflight.OutcomePostDrift, Task: task,
			Message: "post-flight verdict: ⚠️ Drift — errors: 0, warnings: 1", VerdictLine: true, Findings: []finding.Finding{audit}},
			harness.Outcome{Task: task.Name, Verdict: harness.VerdictDrift, Findings: []finding.Finding{{Rule: audit.Rule, Class: audit.Class,
				Message: "changed outside the declared scope: gen/a.go", Fields: audit.Fields}}}},
		"rejected": {postflight.Outcome{Phase: postflight.PhasePostflight, Outcome: postflight.OutcomePostBroken, Task: task,
			Message: "executor report rejected", ReportViolations: []finding.Finding{violation}},
			harness.Outcome{Task: task.Name, Verdict: harness.VerdictBroken, Reason: "executor report rejected", Findings: []finding.Finding{violation}}},
		"refused": {postflight.Outcome{Phase: postflight.PhasePostflight, Outcome: postflight.OutcomePostRefused, Task: task,
			Message: "spec changed", Next: postflight.Next{Step: postflight.NextRunPreflight, Run: "mastermind run-task x --pre-only"}},
			harness.Outcome{Task: task.Name, Verdict: harness.VerdictRefused, Reason: "spec changed; next: mastermind run-task x --pre-only"}},
	} {
		got, err := hookOutcome(&c.o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
	if _, err := hookOutcome(&postflight.Outcome{Outcome: postflight.OutcomePreReady, Message: "pre-flight approved"}); err == nil {
		t.Error("a pre-flight outcome is no post-flight's: want an error")
	}
}
