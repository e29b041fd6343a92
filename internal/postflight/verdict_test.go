package postflight

import (
	"strings"
	"testing"
)

// A refusal whose next step is pre-flight carries the step in Next alone; Line adds it to the
// message as --json and the hook say it.
func TestRefusalNextIsData(t *testing.T) {
	root, opts := newTaskRepo(t)
	writeFile(t, root, taskSpec, specText+"\nRevised.\n")
	res := run(t, opts, ModePostOnly)
	want := Next{Step: NextRunPreflight, Run: "mastermind run-task " + taskSpec + " --pre-only"}
	if res.Outcome != OutcomePostRefused || res.Next != want {
		t.Fatalf("outcome %s next %+v, want %s %+v", res.Outcome, res.Next, OutcomePostRefused, want)
	}
	if res.Message != reasonSpecChanged || strings.Contains(res.Message, "next:") {
		t.Errorf("message carries the next step: %q", res.Message)
	}
	if got := res.Line(); got != res.Message+"; next: "+want.Run {
		t.Errorf("Line() = %q", got)
	}
}

// The verdict sentence is the one line every outcome that states its verdict uses.
func TestVerdictSentence(t *testing.T) {
	for _, c := range []struct {
		v        Verdict
		counts   Counts
		accepted string
		want     string
	}{
		{VerdictHeld, Counts{}, "", "post-flight verdict: ✅ Held — errors: 0, warnings: 0"},
		{VerdictDrift, Counts{0, 2}, "", "post-flight verdict: ⚠️ Drift — errors: 0, warnings: 2"},
		{VerdictBroken, Counts{1, 3}, "", "post-flight verdict: ❌ Broken — errors: 1, warnings: 3"},
		{"unknown", Counts{1, 0}, "", "post-flight verdict: ❌ Broken — errors: 1, warnings: 0"},
		{VerdictDrift, Counts{0, 1}, "generated file", "post-flight verdict: ⚠️ Drift, accepted by the planner: generated file"},
	} {
		if got := verdictSentence(c.v, c.counts, c.accepted); got != c.want {
			t.Errorf("verdictSentence(%s, %v, %q) = %q, want %q", c.v, c.counts, c.accepted, got, c.want)
		}
	}
}
