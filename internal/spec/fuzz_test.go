package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics, always returns a Spec with a hash, positions every
// positioned finding inside the file, and keeps its scope paths clean. Seeds are the golden inputs.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.md"))
	for _, in := range files {
		if data, err := os.ReadFile(in); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("---\r\nverify: [{cmd: x}]\r\n---"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, fs := Parse(data, "spec.md")
		if s == nil || len(s.Hash) != 64 {
			t.Fatalf("Parse returned no spec or hash")
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, fd := range fs {
			if fd.Line < 0 || fd.Line > lines || (fd.Line > 0 && fd.Column < 1) {
				t.Fatalf("finding outside the file (%d lines): %v", lines, fd)
			}
			if fd.Rule == "" || fd.Message == "" || !strings.HasPrefix(fd.Rule, "spec.") {
				t.Fatalf("bad finding %v", fd)
			}
		}
		for _, p := range s.Scope.Declared {
			if p == "" || strings.HasPrefix(p, "/") || strings.Contains("/"+p+"/", "/../") || !utf8.ValidString(p) {
				t.Fatalf("unclean declared path %q", p)
			}
		}
		seen := map[string]bool{}
		for _, c := range s.VerifyCommands {
			if c == "" || c != strings.TrimSpace(c) || seen[c] {
				t.Fatalf("bad verify command list %q", s.VerifyCommands)
			}
			seen[c] = true
		}
	})
}
