package postflight

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gateOne runs the read-only gate and returns the row of task name.
func gateOne(t *testing.T, g Git, name string) (GateTask, *GateResult) {
	t.Helper()
	res, err := Gate(context.Background(), GateOptions{Git: g})
	if err != nil {
		t.Fatal(err)
	}
	i := taskIndex(res, name)
	if i < 0 {
		t.Fatalf("task %s not gated: %+v", name, gateRows(res))
	}
	return res.Tasks[i], res
}

// TestGateLearnedNeedsItsReview: a learned state passes the gate only when history-review.md is a
// complete review whose Audit snapshot equals the state's history_snapshot_sha256; a forged
// "status": "learned" fails.
func TestGateLearnedNeedsItsReview(t *testing.T) {
	root, g, _ := gateRepo(t)
	snap := strings.Repeat("ab", 32)
	review := filepath.Join(root, ".mastermind/tasks/004-learned/history-review.md")
	cases := []struct {
		name   string
		setup  func(t *testing.T)
		passed bool
		reason string
	}{
		{"complete review", func(t *testing.T) {
			writeFile(t, root, ".mastermind/tasks/004-learned/history-review.md", completeReview(snap))
		},
			true, ""},
		{"no review (forged state)", func(t *testing.T) {
			if err := os.Remove(review); err != nil {
				t.Fatal(err)
			}
		}, false, "state.json says learned, but the history review is not usable: .mastermind/tasks/004-learned/history-review.md: the file is missing"},
		{"pending review", func(t *testing.T) {
			writeFile(t, root, ".mastermind/tasks/004-learned/history-review.md",
				"- **Audit snapshot:** "+snap+"\n- **Context:** pending\n- **Lesson:** pending\n- **Reason:** semantic review required\n- **Evidence:** x\n")
		}, false, `state.json says learned, but the history review does not back it: .mastermind/tasks/004-learned/history-review.md:2: field "Context" is "pending"`},
		{"review of another snapshot", func(t *testing.T) {
			writeFile(t, root, ".mastermind/tasks/004-learned/history-review.md", completeReview(strings.Repeat("cd", 32)))
		}, false, `state.json says learned, but the history review does not back it: .mastermind/tasks/004-learned/history-review.md:5: field "Audit snapshot" is "cdcd`},
		{"symlinked review", func(t *testing.T) {
			writeFile(t, root, "elsewhere.md", completeReview(snap))
			if err := os.Remove(review); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(root, "elsewhere.md"), review); err != nil {
				t.Fatal(err)
			}
		}, false, "state.json says learned, but the history review is not usable: .mastermind/tasks/004-learned/history-review.md: the file is a symbolic link"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup(t)
			row, res := gateOne(t, g, "004-learned")
			if row.Status != GateLearned || row.Passed != tc.passed || !strings.HasPrefix(row.Reason, tc.reason) {
				t.Errorf("row = %s passed=%v reason %q\nwant passed=%v reason prefix %q", row.Status, row.Passed, row.Reason, tc.passed, tc.reason)
			}
			if !tc.passed && (res.Passed() || row.Passed) {
				t.Errorf("a forged learned task let the gate pass: %+v", row)
			}
		})
	}
}

// TestGateStateDeleted: a deleted state.json changes nothing while the controller store has the
// task's record (the task is still audited from it); without a record either (a CI runner, or a
// task pre-flighted elsewhere), the task is not started, fails the gate, and the reason says the
// state was removed (its artifacts are still there).
func TestGateStateDeleted(t *testing.T) {
	root, g, _ := gateRepo(t)
	if err := os.Remove(filepath.Join(root, ".mastermind/tasks/003-broken/state.json")); err != nil {
		t.Fatal(err)
	}
	if row, _ := gateOne(t, g, "003-broken"); row.Status != GateBroken || row.Passed {
		t.Errorf("with the store's record: row = %s passed=%v reason %q", row.Status, row.Passed, row.Reason)
	}
	forgetRecord(t, root, "003-broken")
	row, res := gateOne(t, g, "003-broken")
	want := "no state.json, but executor-report.md exist(s): the state was removed; restore .mastermind/tasks/003-broken/state.json (for example from git history), or close the task by removing its folder"
	if row.Status != GateNotStarted || row.Passed || row.Reason != want {
		t.Errorf("row = %s passed=%v reason %q", row.Status, row.Passed, row.Reason)
	}
	if res.Passed() {
		t.Error("gate passed with a deleted state")
	}
}

// TestGateNotATaskFolder: a directory under .mastermind/tasks whose name is not a task name is an
// error row (exit 3), whether a real directory or a symbolic link to one; files are ignored.
func TestGateNotATaskFolder(t *testing.T) {
	root, g, _ := gateRepo(t)
	tasks := filepath.Join(root, ".mastermind/tasks")
	dropTasks(t, root, "003-broken", "005-new", "006-corrupt", "007-changed")
	// A file directly under .mastermind/tasks is skipped by the gate's scan, but any file written
	// there after the tasks' pre-flights (a README.md, or a _lessons.md holding bytes the
	// controller never wrote) is a changed path of every task since trust-model.md I3, so none is
	// used here.
	res, err := Gate(context.Background(), GateOptions{Git: g})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Passed() {
		t.Fatalf("baseline gate failed: %+v", gateRows(res))
	}
	// A task moved to a misnamed folder would otherwise vanish from the gate.
	if err := os.Rename(filepath.Join(tasks, "001-held"), filepath.Join(tasks, "held-wip")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tasks, "002-drift"), filepath.Join(tasks, "drift\x1blink")); err != nil {
		t.Fatal(err)
	}
	res, err = Gate(context.Background(), GateOptions{Git: g})
	if err != nil {
		t.Fatal(err)
	}
	rows := gateRows(res)
	// The misnamed folder's files are no controller artifacts (trust-model.md I3): they are
	// changed paths of 002-drift, which does not list them, so it is broken too, not only the
	// folder's own error row.
	want := []gateRow{
		{"002-drift", GateBroken, false, "executor_report_missing_changed_file: changed since the baseline but not listed in files_modified: .mastermind/tasks/held-wip/executor-report.md (+7 more)"},
		{"004-learned", GateLearned, true, ""},
		{`drift\u001Blink`, GateError, false, "ERR"},
		{"held-wip", GateError, false, "ERR"},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v", rows)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	if res.Count(GateError) == 0 {
		t.Errorf("no task has status error: %+v", gateRows(res))
	}
	if got := res.Tasks[3]; got.Status != GateError || got.Passed || got.Reason != "not a task folder: .mastermind/tasks/held-wip; rename it to NNN-slug or move it out of .mastermind/tasks" {
		t.Errorf("task %+v", got)
	}
}
