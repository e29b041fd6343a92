package repopath

import "testing"

// TestClassifyControl: the controller names are exact (trust-model.md I3, #26 item 4). Locks,
// temporary files and hook-block.json are no controller names any more: they are changed paths.
func TestClassifyControl(t *testing.T) {
	snap := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		p    string
		kind ControlKind
		task string
	}{
		// mastermind writes no .gitignore any more: it is a file like any other.
		{".mastermind/.gitignore", ControlOther, ""},
		{".mastermind/current", ControlWritten, ""},
		{".mastermind/tasks/_lessons.md", ControlWritten, ""},
		{".mastermind/releases/001-x.md", ControlWritten, "001-x"},
		{".mastermind/dispatch/run_1.json", ControlWritten, ""},
		{".mastermind/tasks/001-x/spec.md", ControlContract, "001-x"},
		{".mastermind/tasks/001-x/history-review.md", ControlContract, "001-x"},
		{".mastermind/tasks/001-x/executor-report.md", ControlReport, "001-x"},
		{".mastermind/tasks/001-x/history-review." + snap + ".md", ControlWritten, "001-x"},
		{".mastermind/tasks/001-x/state.json", ControlWritten, "001-x"},
		{".mastermind/tasks/001-x/audit.md", ControlWritten, "001-x"},
		// Only the names mastermind writes: other history-review*.md files are changed paths.
		{".mastermind/tasks/001-x/history-review-2.md", ControlOther, "001-x"},
		{".mastermind/tasks/001-x/history-review.evil.md", ControlOther, "001-x"},
		{".mastermind/tasks/001-x/history-review." + snap + "x.md", ControlOther, "001-x"},
		// No name pattern is left to fill: locks, temporary files, the hook's record.
		{".mastermind/tasks/_lessons.md.lock", ControlOther, ""},
		{".mastermind/dispatch/run_1.json.lock", ControlOther, ""},
		{".mastermind/tasks/001-x/hook-block.json", ControlOther, "001-x"},
		{".mastermind/tasks/001-x/state.controller.lock", ControlOther, "001-x"},
		{".mastermind/tasks/001-x/cache.lock", ControlOther, "001-x"},
		{".mastermind/tasks/001-x/.state.json123456789", ControlOther, "001-x"},
		{".mastermind/tasks/001-x/.audit.md123", ControlOther, "001-x"},
		{".mastermind/tasks/.hidden-1/spec.md", ControlOther, ""},
		{".mastermind/tasks/001-x/helper.go", ControlOther, "001-x"},
		{".mastermind/tasks/001-x/sub/spec.md", ControlOther, ""},
		{".mastermind/tasks/wip/spec.md", ControlOther, ""},
		{".mastermind/tasks/wip/state.json", ControlOther, ""},
		{".mastermind/tasks/001-x", ControlOther, ""},
		{".mastermind/tasks/other.md", ControlOther, ""},
		{".mastermind/releases/notes.md", ControlOther, ""},
		{".mastermind/releases/001-x.go", ControlOther, ""},
		{".mastermind/releases/001-x.md/x", ControlOther, ""},
		{".mastermind/dispatch/a.go", ControlOther, ""},
		{".mastermind/dispatch/a/b.json", ControlOther, ""},
		{".mastermind/current/x", ControlOther, ""},
		{".mastermind/lib/x.go", ControlOther, ""},
		{".mastermind/x", ControlOther, ""},
		{".mastermind", NotControl, ""},
		{".mastermindx/current", NotControl, ""},
		{"src/.mastermind/current", NotControl, ""},
	} {
		c := ClassifyControl(tc.p)
		if c.Kind != tc.kind || c.Task != tc.task {
			t.Errorf("ClassifyControl(%q) = %+v, want kind %d task %q", tc.p, c, tc.kind, tc.task)
		}
	}
}

// fixedRule says yes for the paths it holds.
type fixedRule map[string]bool

func (r fixedRule) Controller(p string, _ ControlName) bool { return r[p] }

// TestLeftOut: contract files are always left out; a controller name only when the rule says
// its bytes are the controller's; anything else never.
func TestLeftOut(t *testing.T) {
	rule := fixedRule{".mastermind/tasks/001-x/state.json": true, ".mastermind/tasks/001-x/cache.lock": true}
	for _, tc := range []struct {
		p    string
		rule ControlRule
		want bool
	}{
		{".mastermind/tasks/001-x/spec.md", nil, true},
		{".mastermind/tasks/001-x/history-review.md", ContractsOnly{}, true},
		{".mastermind/tasks/001-x/executor-report.md", nil, true},
		{".mastermind/tasks/001-x/executor-report.md", rule, false},
		{".mastermind/tasks/001-x/state.json", nil, false},
		{".mastermind/tasks/001-x/state.json", rule, true},
		{".mastermind/tasks/001-x/audit.md", rule, false},
		// A rule cannot turn a name that is no controller name into one.
		{".mastermind/tasks/001-x/cache.lock", rule, false},
		{"src/a.go", rule, false},
	} {
		if got := LeftOut(tc.p, tc.rule); got != tc.want {
			t.Errorf("LeftOut(%q, %T) = %v, want %v", tc.p, tc.rule, got, tc.want)
		}
	}
}

func TestTaskArtifact(t *testing.T) {
	for _, tc := range []struct {
		p, task, name string
		ok            bool
	}{
		{".mastermind/tasks/002-y/spec.md", "002-y", "spec.md", true},
		{".mastermind/tasks/002-y/history-review.md", "002-y", "history-review.md", true},
		{".mastermind/tasks/002-y/history-review-3.md", "", "", false},
		{".mastermind/tasks/002-y/hook-block.json", "", "", false},
		{".mastermind/tasks/002-y/state.controller.lock", "", "", false},
		{".mastermind/tasks/wip/spec.md", "", "", false},
		{".mastermind/tasks/_lessons.md", "", "", false},
		{".mastermind/tasks/002-y/a/spec.md", "", "", false},
		{"src/spec.md", "", "", false},
	} {
		task, name, ok := TaskArtifact(tc.p)
		if task != tc.task || name != tc.name || ok != tc.ok {
			t.Errorf("TaskArtifact(%q) = %q %q %v, want %q %q %v", tc.p, task, name, ok, tc.task, tc.name, tc.ok)
		}
	}
}
