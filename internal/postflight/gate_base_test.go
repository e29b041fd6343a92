package postflight

import (
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// TestIsControllerArtifact: only the controller's own artifact names
// (repopath.IsControllerArtifact) are left out of the range's ownership check (trust-model.md
// I3); anything else under .mastermind/ must be owned.
func TestIsControllerArtifact(t *testing.T) {
	snap := strings.Repeat("ab", 32)
	cases := map[string]bool{
		".mastermind/tasks/001-a/spec.md":                         true,
		".mastermind/tasks/001-a/executor-report.md":              true,
		".mastermind/tasks/001-a/state.json":                      true,
		".mastermind/tasks/001-a/audit.md":                        true,
		".mastermind/tasks/001-a/history-review.md":               true,
		".mastermind/tasks/001-a/history-review." + snap + ".md":  true,
		".mastermind/tasks/001-a/state.controller.lock":           true,
		".mastermind/tasks/_lessons.md":                           true,
		".mastermind/tasks/_lessons.md.lock":                      true,
		".mastermind/releases/001-a.md":                           true,
		".mastermind/tasks/001-a/history-review.evil.md":          false,
		".mastermind/tasks/001-a/payload.lock":                    true, // lock files of the task folder (*.lock)
		".mastermind/tasks/001-a/payload.go":                      false,
		".mastermind/tasks/001-a/sub/spec.md":                     false,
		".mastermind/tasks/not-a-task/spec.md":                    false,
		".mastermind/releases/notes.md":                           false,
		".mastermind/releases/001-a.sh":                           false,
		".mastermind/config":                                      false,
		".mastermind/tasks/001-a":                                 false,
		"spec.md":                                                 false,
		"src/.mastermind/tasks/001-a/spec.md":                     false,
		".mastermind/tasks/001-a/history-review." + snap + "x.md": false,
	}
	for p, want := range cases {
		if got := repopath.IsControllerArtifact(p); got != want {
			t.Errorf("IsControllerArtifact(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestNearestTasksScore: a path declared by a task is nearest; then the longest shared directory.
func TestNearestTasksScore(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want int
	}{
		{"a/b/c.go", "a/b/c.go", 1 << 20},
		{"a/b/c.go", "a/b/d.go", 3},
		{"a/b/c.go", "a/x/d.go", 1},
		{"c.go", "d.go", 1},
		{"c.go", "a/d.go", 0},
		{"x/c.go", "a/d.go", 0},
	} {
		if got := sharedDirs(c.p, c.s); got != c.want {
			t.Errorf("sharedDirs(%q, %q) = %d, want %d", c.p, c.s, got, c.want)
		}
	}
}
