package repopath

import "testing"

func TestIsControllerArtifact(t *testing.T) {
	for _, tc := range []struct {
		p    string
		want bool
	}{
		{".mastermind/.gitignore", true},
		{".mastermind/current", true},
		{".mastermind/tasks/_lessons.md", true},
		{".mastermind/tasks/_lessons.md.lock", true},
		{".mastermind/releases/001-x.md", true},
		{".mastermind/dispatch/run_1.json", true},
		{".mastermind/dispatch/run_1.json.lock", true},
		{".mastermind/tasks/001-x/spec.md", true},
		{".mastermind/tasks/001-x/executor-report.md", true},
		{".mastermind/tasks/001-x/history-review.md", true},
		{".mastermind/tasks/001-x/history-review.0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.md", true},
		// Only the names mastermind writes: other history-review*.md files are changed paths.
		{".mastermind/tasks/001-x/history-review-2.md", false},
		{".mastermind/tasks/001-x/history-review.evil.md", false},
		{".mastermind/tasks/001-x/state.json", true},
		{".mastermind/tasks/001-x/audit.md", true},
		{".mastermind/tasks/001-x/hook-block.json", true},
		{".mastermind/tasks/001-x/state.controller.lock", true},
		{".mastermind/tasks/001-x/.state.json123456789", true},
		{".mastermind/tasks/.hidden-1/spec.md", false},
		{".mastermind/tasks/001-x/.state.json", false},
		{".mastermind/tasks/001-x/.helper.go12", false},
		{".mastermind", false},
		{".mastermind/lib/x.go", false},
		{".mastermind/x", false},
		{".mastermind/tasks/001-x/helper.go", false},
		{".mastermind/tasks/001-x/sub/spec.md", false},
		{".mastermind/tasks/001-x/.lock", false},
		{".mastermind/tasks/wip/spec.md", false},
		{".mastermind/tasks/wip/state.json", false},
		{".mastermind/tasks/001-x", false},
		{".mastermind/tasks/other.md", false},
		{".mastermind/releases/notes.md", false},
		{".mastermind/releases/001-x.go", false},
		{".mastermind/releases/001-x.md/x", false},
		{".mastermind/dispatch/a.go", false},
		{".mastermind/dispatch/a/b.json", false},
		{".mastermind/current/x", false},
		{".mastermindx/current", false},
		{"src/.mastermind/current", false},
	} {
		if got := IsControllerArtifact(tc.p); got != tc.want {
			t.Errorf("IsControllerArtifact(%q) = %v, want %v", tc.p, got, tc.want)
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
