package cli

import (
	"testing"

	"github.com/mastermind-controller/mastermind/internal/postflight"
)

// TestRunTaskExitCodes is spec-and-lifecycle.md §13.1 as a table: every outcome's code, drift
// with and without --fail-on drift, and an unknown outcome failing closed.
func TestRunTaskExitCodes(t *testing.T) {
	cases := []struct {
		outcome     postflight.OutcomeKind
		failOnDrift bool
		want        int
	}{
		{postflight.OutcomePreReady, false, 0},
		{postflight.OutcomePreRefused, false, 1},
		{postflight.OutcomePostHeld, true, 0},
		{postflight.OutcomePostDrift, false, 0},
		{postflight.OutcomePostDrift, true, 1},
		{postflight.OutcomePostBroken, false, 1},
		{postflight.OutcomePostRefused, false, 1},
		{postflight.OutcomeHistoryPending, false, 0},
		{postflight.OutcomeCompleted, false, 0},
		{postflight.OutcomeError, false, 3},
		{postflight.OutcomeAccepted, false, 3},
		{"post_something_new", false, 3},
	}
	for _, c := range cases {
		if got := runTaskExitCode(c.outcome, c.failOnDrift); got != c.want {
			t.Errorf("%s (fail on drift %v) = %d, want %d", c.outcome, c.failOnDrift, got, c.want)
		}
	}
}

// TestAcceptExitCodes is lifecycle-v2.md §3's accept exit status: accepted and closed pass, a
// refusal does not, a run-task outcome or an unknown one fails closed.
func TestAcceptExitCodes(t *testing.T) {
	for outcome, want := range map[postflight.OutcomeKind]int{
		postflight.OutcomeAccepted: 0, postflight.OutcomeCompleted: 0, postflight.OutcomeAcceptRefused: 1,
		postflight.OutcomeError: 3, postflight.OutcomePostHeld: 3, "accept_something_new": 3,
	} {
		if got := acceptExitCode(outcome); got != want {
			t.Errorf("%s = %d, want %d", outcome, got, want)
		}
	}
}

// TestGateExitCode: error wins over a failing task, a failing task over passing ones, and an
// empty gate passes.
func TestGateExitCode(t *testing.T) {
	pass := postflight.GateTask{Status: postflight.GateHeld, Passed: true}
	fail := postflight.GateTask{Status: postflight.GateBroken}
	broken := postflight.GateTask{Status: postflight.GateError}
	cases := []struct {
		tasks []postflight.GateTask
		want  int
	}{
		{nil, ExitOK},
		{[]postflight.GateTask{pass}, ExitOK},
		{[]postflight.GateTask{pass, fail}, ExitNotPassed},
		{[]postflight.GateTask{fail, broken, pass}, ExitOperational},
	}
	for i, c := range cases {
		if got := gateExitCode(&postflight.GateResult{Tasks: c.tasks}); got != c.want {
			t.Errorf("case %d: %d, want %d", i, got, c.want)
		}
	}
}
