package audit

import (
	"testing"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/report"
)

// TestCheckForeignArtifacts: trust-model.md I3 on a real changed set — a change since the
// baseline to another task's records is an error, the task's own records and the other
// controller artifacts are not, and a file below .mastermind/ that is no record stays in D.
func TestCheckForeignArtifacts(t *testing.T) {
	other := ".mastermind/tasks/019-old/"
	base := map[string]string{"a.go": "package a\n", other + "spec.md": "# Old\n", other + "state.json": "{}\n",
		other + "audit.md": "# audit\n"}
	cases := []struct {
		name string
		work map[string]string
		want []string
	}{
		{"nothing changed", nil, nil},
		{"own records", map[string]string{".mastermind/tasks/020-cache/state.json": "{}\n", ".mastermind/tasks/020-cache/audit.md": "x\n",
			".mastermind/tasks/020-cache/executor-report.md": "x\n", ".mastermind/tasks/020-cache/history-review.md": "x\n"}, nil},
		{"other controller artifacts", map[string]string{".mastermind/tasks/_lessons.md": "x\n", ".mastermind/releases/019-old.md": "x\n",
			".mastermind/current": "020-cache\n", other + "hook-block.json": "{}\n", other + "state.controller.lock": "1\n"}, nil},
		{"other task's spec edited", map[string]string{other + "spec.md": "# Old, widened\n"},
			[]string{"foreign_task_artifact_changed " + other + "spec.md"}},
		{"other task's state and audit", map[string]string{other + "state.json": "{\"status\":\"learned\"}\n", other + "audit.md": ""},
			[]string{"foreign_task_artifact_changed " + other + "audit.md", "foreign_task_artifact_changed " + other + "state.json"}},
		{"task copied in", map[string]string{".mastermind/tasks/021-copy/spec.md": "# Old\n", ".mastermind/tasks/021-copy/state.json": "{}\n"},
			[]string{"foreign_task_artifact_changed .mastermind/tasks/021-copy/spec.md", "foreign_task_artifact_changed .mastermind/tasks/021-copy/state.json"}},
		{"other task's review and report", map[string]string{other + "history-review-2.md": "x\n", other + "executor-report.md": "x\n"},
			[]string{"foreign_task_artifact_changed " + other + "executor-report.md", "foreign_task_artifact_changed " + other + "history-review-2.md"}},
		{"code in another task's folder is a changed path, not a record", map[string]string{other + "helper.go": "package x\n"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", base, tc.work)
			in := f.inputs(t, report.Result{Report: completeReport(), Form: completeReport().Form})
			cs, err := in.Prefetch.ChangedSet()
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, checkForeignArtifacts(cs, in.SpecPath), tc.want...)
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
		in.ForeignArtifacts = on
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
