package postflight

import (
	"testing"
)

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
