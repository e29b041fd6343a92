package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckDeclared: §10.4 — declared files must be regular files; a declared creation must be
// absent from the baseline, added or untracked, and a regular file.
func TestCheckDeclared(t *testing.T) {
	cases := []struct {
		name  string
		front string
		base  map[string]string
		work  map[string]string
		link  string // a path made a symlink to a.go in the working tree
		want  []string
	}{
		{"creation added", "touches:\n  - file: a.go\ncreates:\n  - n.go\n", map[string]string{"a.go": "a\n"},
			map[string]string{"n.go": "n\n"}, "", nil},
		{"creation exists in the baseline", "creates:\n  - a.go\n", map[string]string{"a.go": "a\n"},
			map[string]string{"a.go": "a2\n"}, "", []string{"declared_file_unavailable a.go (creation_exists_in_baseline)"}},
		{"creation not made", "creates:\n  - n.go\n", map[string]string{"a.go": "a\n"}, nil, "",
			[]string{"declared_file_unavailable n.go (creation_not_added)"}},
		{"creation is a symlink", "creates:\n  - n.go\n", map[string]string{"a.go": "a\n"}, nil, "n.go",
			[]string{"declared_file_unavailable n.go (target_not_regular)"}},
		{"touched file deleted", "touches:\n  - file: a.go\n", map[string]string{"a.go": "a\n", "b.go": "b\n"},
			map[string]string{"a.go": ""}, "", []string{"declared_file_unavailable a.go (target_missing)"}},
		{"expected doc deleted", "expected_docs:\n  - d.md\n", map[string]string{"d.md": "d\n"},
			map[string]string{"d.md": ""}, "", []string{"declared_file_unavailable d.md (target_missing)"}},
		{"deletes path deleted", "touches:\n  - file: a.go\ndeletes:\n  - b.go\n", map[string]string{"a.go": "a\n", "b.go": "b\n"},
			map[string]string{"a.go": "a2\n", "b.go": ""}, "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.front, tc.base, tc.work)
			if tc.link != "" {
				if err := os.Symlink("a.go", filepath.Join(f.root, tc.link)); err != nil {
					t.Fatal(err)
				}
			}
			r, _ := f.run(t, completeReport())
			fs, err := checkDeclared(r)
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, fs, tc.want...)
			for _, x := range fs {
				hint := strings.Contains(x.Message, "list it under deletes")
				touched := strings.Contains(tc.front, "file: "+x.FieldString("file"))
				if want := touched && x.FieldString("reason") == ReasonTargetMissing; hint != want {
					t.Errorf("message %q: the deletes hint is for a missing touches path only", x.Message)
				}
			}
		})
	}
}

// TestCheckDeclaredBaselineUnavailable: a failed baseline lookup makes every declared creation
// creation_baseline_unavailable instead of passing it.
func TestCheckDeclaredBaselineUnavailable(t *testing.T) {
	f := newFixture(t, "creates:\n  - n.go\n", map[string]string{"a.go": "a\n"}, map[string]string{"n.go": "n\n"})
	r, _ := f.run(t, completeReport())
	r.in.Prefetch.entries = &pending[entriesResult]{ch: make(chan entriesResult, 1)}
	r.in.Prefetch.entries.ch <- entriesResult{err: os.ErrPermission}
	fs, err := checkDeclared(r)
	if err != nil {
		t.Fatal(err)
	}
	wantKinds(t, fs, "declared_file_unavailable n.go (creation_baseline_unavailable)")
}
