package audit

import (
	"strings"
	"testing"
)

// TestCheckForbids: lifecycle-v2.md §2 — a changed path a forbids pattern matches is
// forbidden_path_changed, listed in files_modified or not, declared in scope or not; a
// forbidden path outside the scope is not also unexpected_file; a later !pattern re-allows.
func TestCheckForbids(t *testing.T) {
	base := map[string]string{"src/a.go": "a\n", "tests/a_test.go": "t\n", ".github/workflows/ci.yml": "on: push\n",
		"package.json": "{}\n", "web/package.json": "{}\n", "tests/fixtures/keep.txt": "k\n"}
	cases := []struct {
		name, forbids string
		work          map[string]string
		want          []string
	}{
		{"nothing forbidden changes", "  - tests/**\n", map[string]string{"src/a.go": "a2\n"}, nil},
		{"an edited test", "  - tests/**\n", map[string]string{"src/a.go": "a2\n", "tests/a_test.go": "t2\n"},
			[]string{"forbidden_path_changed tests/a_test.go"}},
		{"an added test", "  - tests/**\n", map[string]string{"src/a.go": "a2\n", "tests/b_test.go": "b\n"},
			[]string{"forbidden_path_changed tests/b_test.go"}},
		{"a deleted test", "  - tests/**\n", map[string]string{"src/a.go": "a2\n", "tests/a_test.go": ""},
			[]string{"forbidden_path_changed tests/a_test.go"}},
		{"a CI file", "  - .github/**\n", map[string]string{"src/a.go": "a2\n", ".github/workflows/ci.yml": "on: [push]\n"},
			[]string{"forbidden_path_changed .github/workflows/ci.yml"}},
		{"a name at any depth", "  - package.json\n", map[string]string{"src/a.go": "a2\n", "web/package.json": "{\"x\":1}\n"},
			[]string{"forbidden_path_changed web/package.json"}},
		{"an anchored name", "  - /package.json\n", map[string]string{"src/a.go": "a2\n", "web/package.json": "{\"x\":1}\n"},
			[]string{"unexpected_file web/package.json"}},
		{"a directory pattern", "  - tests/\n", map[string]string{"src/a.go": "a2\n", "tests/fixtures/keep.txt": "k2\n"},
			[]string{"forbidden_path_changed tests/fixtures/keep.txt"}},
		{"re-allowed by a later pattern", "  - tests/**\n  - '!tests/fixtures/**'\n",
			map[string]string{"src/a.go": "a2\n", "tests/fixtures/keep.txt": "k2\n", "tests/a_test.go": "t2\n"},
			[]string{"forbidden_path_changed tests/a_test.go", "unexpected_file tests/fixtures/keep.txt"}},
		{"a declared path is still forbidden", "  - 'src/*.go'\n", map[string]string{"src/a.go": "a2\n"},
			[]string{"forbidden_path_changed src/a.go"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "touches:\n  - file: src/a.go\nforbids:\n"+tc.forbids, base, tc.work)
			// Pre-flight refuses a declared path that is forbidden (spec.declaration_conflict);
			// the audit does not rely on that and still reports the change.
			conflict := false
			for _, x := range f.spFs {
				conflict = conflict || x.Rule == "spec.declaration_conflict"
				if x.Rule == "spec.frontmatter_invalid" {
					t.Fatalf("spec finding: %v", x)
				}
			}
			if conflict != strings.Contains(tc.name, "declared") {
				t.Fatalf("spec findings: %v", f.spFs)
			}
			var files []string
			for p := range tc.work {
				files = append(files, p)
			}
			r, _ := f.run(t, completeReport(files...))
			fs, err := checkWithRuns(r, checkForbids)
			if err != nil {
				t.Fatal(err)
			}
			sfs, err := checkWithRuns(r, checkScope)
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, append(fs, sfs...), tc.want...)
			for _, x := range fs {
				if x.FieldString("pattern") == "" || !strings.Contains(x.Message, x.FieldString("pattern")) {
					t.Errorf("finding %v names no pattern", x)
				}
			}
		})
	}
}

// TestCheckForbidsNone: without forbids nothing is forbidden and the scope check is unchanged.
func TestCheckForbidsNone(t *testing.T) {
	f := newFixture(t, "touches:\n  - file: a.go\n", map[string]string{"a.go": "a\n"}, map[string]string{"a.go": "a2\n", "tests/x.go": "x\n"})
	r, _ := f.run(t, completeReport("a.go", "tests/x.go"))
	fs, err := checkWithRuns(r, checkForbids)
	if err != nil || fs != nil {
		t.Fatalf("checkForbids = %v, %v", fs, err)
	}
	sfs, _ := checkWithRuns(r, checkScope)
	wantKinds(t, sfs, "unexpected_file tests/x.go")
}
