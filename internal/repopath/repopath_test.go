package repopath

import (
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		reason Reason
	}{
		{"internal/cache/lru.go", "internal/cache/lru.go", ""},
		{"./internal/cache/lru.go", "internal/cache/lru.go", ""},
		{"././a", "a", ""},
		{`internal\cache\lru.go`, "internal/cache/lru.go", ""},
		{".mastermind/tasks/x/spec.md", ".mastermind/tasks/x/spec.md", ""},
		{"../shared/cache.go", "", ReasonDotDot},
		{"a/../b", "", ReasonDotDot},
		{"/home/dev/repo/go.mod", "", ReasonAbsolute},
		{`\\server\share\x`, "", ReasonAbsolute},
		{"C:/work/notes.txt", "", ReasonDrive},
		{`c:\x`, "", ReasonDrive},
		{"C:x", "", ReasonDrive},
		{" src/a.go", "", ReasonSpace},
		{"src/a.go\u00a0", "", ReasonSpace},
		{"a//b", "", ReasonEmptyPart},
		{"src/", "", ReasonEmptyPart},
		{"a/./b", "", ReasonDot},
		{".", "", ReasonDot},
		{"a\tb", "", ReasonControl},
		{"a\x7fb", "", ReasonControl},
		{"", "", ReasonEmpty},
		{strings.Repeat("a", 4097), "", ReasonTooLong},
		{strings.Repeat("a/", 64) + "b", "", ReasonTooManyParts},
		{strings.Repeat("a/", 63) + "b", strings.Repeat("a/", 63) + "b", ""},
	}
	for _, tt := range tests {
		got, err := Clean(tt.in)
		if tt.reason == "" {
			if err != nil || got != tt.want {
				t.Errorf("Clean(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			continue
		}
		e, ok := err.(*Error)
		if !ok || e.Reason != tt.reason {
			t.Errorf("Clean(%q) error = %v; want reason %q", tt.in, err, tt.reason)
		}
	}
}

func TestHelpers(t *testing.T) {
	if !IsControlPath(".mastermind/lib/x.go") || IsControlPath(".mastermindx/a") {
		t.Error("IsControlPath")
	}
	if !IsAncestor("docs", "docs/a.md") || IsAncestor("docs", "docsx/a.md") || IsAncestor("docs", "docs") {
		t.Error("IsAncestor")
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"a/b", "./a", `a\b`, "../x", "C:x", "a//b", " a", "a\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Clean(s)
		if err != nil {
			return
		}
		// A clean path is stable under Clean and has no escaping component.
		if n2, err2 := Clean(n); err2 != nil || n2 != n {
			t.Fatalf("Clean not idempotent: %q -> %q -> %q, %v", s, n, n2, err2)
		}
		for _, part := range strings.Split(n, "/") {
			if part == ".." || part == "." || part == "" {
				t.Fatalf("Clean(%q) = %q has component %q", s, n, part)
			}
		}
	})
}
