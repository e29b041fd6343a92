package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/report"
)

// TestCheckForeignArtifacts: trust-model.md I3 on a real changed set — a change since pre-flight
// to another task's records is an error; the task's own records, the other controller
// artifacts, records already so at pre-flight and mirrors another task's controller wrote are
// not; a file below .mastermind/ that is no record is left to the other checks.
func TestCheckForeignArtifacts(t *testing.T) {
	other := ".mastermind/tasks/019-old/"
	base := map[string]string{"a.go": "package a\n", other + "spec.md": "# Old\n", other + "state.json": "{}\n",
		other + "audit.md": "# audit\n"}
	atBase := map[string]string{}
	for p, c := range base {
		if p != "a.go" {
			atBase[p] = sha(c)
		}
	}
	cases := []struct {
		name   string
		work   map[string]string
		before map[string]string // the pre-flight snapshot
		wrote  map[string]string // "<task>/<name>" → the SHA-256 that task's controller wrote
		want   []string
	}{
		{name: "nothing changed"},
		{name: "own records", work: map[string]string{".mastermind/tasks/020-cache/state.json": "{}\n", ".mastermind/tasks/020-cache/audit.md": "x\n",
			".mastermind/tasks/020-cache/executor-report.md": "x\n", ".mastermind/tasks/020-cache/history-review.md": "x\n"}},
		{name: "other controller artifacts", work: map[string]string{".mastermind/tasks/_lessons.md": "x\n", ".mastermind/releases/019-old.md": "x\n",
			".mastermind/current": "020-cache\n", other + "hook-block.json": "{}\n", other + "state.controller.lock": "1\n"}},
		{name: "other task's spec edited", work: map[string]string{other + "spec.md": "# Old, widened\n"}, before: atBase,
			want: []string{"foreign_task_artifact_changed " + other + "spec.md"}},
		{name: "other task's state and audit", work: map[string]string{other + "state.json": "{\"status\":\"learned\"}\n", other + "audit.md": "# audit, rewritten\n"},
			before: atBase,
			want:   []string{"foreign_task_artifact_changed " + other + "audit.md", "foreign_task_artifact_changed " + other + "state.json"}},
		// New records cannot be told from the planner's or another executor's (I2 refuses a
		// copied-in task: it has no controller record).
		{name: "task copied in", work: map[string]string{".mastermind/tasks/021-copy/spec.md": "# Old\n", ".mastermind/tasks/021-copy/state.json": "{}\n"}, before: atBase},
		{name: "other task's review and report edited", work: map[string]string{other + "history-review.md": "y\n", other + "executor-report.md": "y\n"},
			before: map[string]string{other + "history-review.md": sha("x\n"), other + "executor-report.md": sha("x\n")},
			want:   []string{"foreign_task_artifact_changed " + other + "executor-report.md", "foreign_task_artifact_changed " + other + "history-review.md"}},
		{name: "code in another task's folder is a changed path, not a record", work: map[string]string{other + "helper.go": "package x\n"}},
		// Already so at pre-flight: the planner's other task, not this executor's doing.
		{name: "unchanged since pre-flight", work: map[string]string{".mastermind/tasks/021-next/spec.md": "# Next\n", other + "spec.md": "# Old, v2\n"},
			before: map[string]string{".mastermind/tasks/021-next/spec.md": sha("# Next\n"), other + "spec.md": sha("# Old, v2\n")}},
		{name: "changed after pre-flight", work: map[string]string{".mastermind/tasks/021-next/spec.md": "# Next, widened\n"},
			before: map[string]string{".mastermind/tasks/021-next/spec.md": sha("# Next\n")},
			want:   []string{"foreign_task_artifact_changed .mastermind/tasks/021-next/spec.md"}},
		{name: "deleted since pre-flight", work: map[string]string{other + "spec.md": ""}, before: atBase,
			want: []string{"foreign_task_artifact_changed " + other + "spec.md"}},
		// Another task's own post-flight, run beside this one, rewrote its state mirror; its
		// spec is still the executor's to leave alone.
		{name: "other task's controller wrote its state", work: map[string]string{other + "state.json": "{\"v\":2}\n", other + "spec.md": "# Old!\n"},
			before: atBase, wrote: map[string]string{"019-old/state.json": sha("{\"v\":2}\n"), "019-old/spec.md": sha("# Old!\n")},
			want: []string{"foreign_task_artifact_changed " + other + "spec.md"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", base, tc.work)
			in := f.inputs(t, report.Result{Report: completeReport(), Form: completeReport().Form})
			cs, err := in.Prefetch.ChangedSet()
			if err != nil {
				t.Fatal(err)
			}
			in.ForeignBefore = tc.before
			in.ControllerWrote = func(task, name, sha string) bool { return tc.wrote[task+"/"+name] == sha }
			wantKinds(t, checkForeignArtifacts(&in, cs), tc.want...)
		})
	}
}

// TestForeignArtifactsOnlyWhenAsked: Compute reports foreign records only with
// Inputs.ForeignArtifacts (run-task), never for the gate's re-audit.
func TestForeignArtifactsOnlyWhenAsked(t *testing.T) {
	f := newFixture(t, "", map[string]string{".mastermind/tasks/019-old/spec.md": "# Old\n"},
		map[string]string{".mastermind/tasks/019-old/spec.md": "# Old, widened\n"})
	for _, on := range []bool{false, true} {
		in := f.inputs(t, report.Result{Report: completeReport(), Form: completeReport().Form})
		in.ForeignArtifacts, in.ForeignBefore = on, map[string]string{".mastermind/tasks/019-old/spec.md": sha("# Old\n")}
		_, fs := newRun(t.Context(), &in, mustChangedSet(t, &in), &Evidence{})
		found := false
		for _, x := range fs {
			found = found || x.Rule == "foreign_task_artifact_changed"
		}
		if found != on {
			t.Errorf("ForeignArtifacts=%v: finding present = %v", on, found)
		}
	}
}

func mustChangedSet(t *testing.T, in *Inputs) *gitscope.ChangedSet {
	t.Helper()
	cs, err := in.Prefetch.ChangedSet()
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
