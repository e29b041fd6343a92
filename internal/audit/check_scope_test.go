package audit

import "testing"

// TestCheckScope: §10.3 — a changed path outside the declared scope is unexpected_file; an
// unchanged touches or expected_docs path is missing_expected_file; creates are in scope and
// their absence is §10.4's, not §10.3's.
func TestCheckScope(t *testing.T) {
	front := "touches:\n  - file: a.go\ncreates:\n  - n.go\nexpected_docs:\n  - docs/a.md\n"
	base := map[string]string{"a.go": "package a\n", "docs/a.md": "# A\n", "other.go": "package o\n"}
	cases := []struct {
		name string
		work map[string]string
		want []string
	}{
		{"all in scope and changed", map[string]string{"a.go": "package a // x\n", "n.go": "package n\n", "docs/a.md": "# A!\n"}, nil},
		{"outside the scope", map[string]string{"a.go": "package a // x\n", "docs/a.md": "# A!\n", "other.go": "package o // x\n"},
			[]string{"unexpected_file other.go"}},
		{"untracked outside the scope", map[string]string{"a.go": "package a // x\n", "docs/a.md": "# A!\n", "tmp/scratch.txt": "x\n"},
			[]string{"unexpected_file tmp/scratch.txt"}},
		{"declared but unchanged", map[string]string{"n.go": "package n\n"},
			[]string{"missing_expected_file a.go", "missing_expected_file docs/a.md"}},
		{"task records are not scope", map[string]string{"a.go": "package a // x\n", "docs/a.md": "# A!\n", ".mastermind/tasks/020-cache/audit.md": "controller\n"}, nil},
		// A controller name holding bytes the controller never wrote is a changed path (#26
		// item 4).
		{"a forged task record is out of scope", map[string]string{"a.go": "package a // x\n", "docs/a.md": "# A!\n", ".mastermind/tasks/020-cache/audit.md": "payload\n"},
			[]string{"unexpected_file .mastermind/tasks/020-cache/audit.md"}},
		// Any other file below .mastermind/ is a changed path (trust-model.md I3).
		{"other file in the task folder is out of scope", map[string]string{"a.go": "package a // x\n", "docs/a.md": "# A!\n", ".mastermind/tasks/020-cache/x.md": "x\n"},
			[]string{"unexpected_file .mastermind/tasks/020-cache/x.md"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, front, base, tc.work)
			f.control = controllerContent{f.root}
			r, _ := f.run(t, completeReport())
			fs, err := checkWithRuns(r, checkScope)
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, fs, tc.want...)
		})
	}
}

// TestCheckScopeDeletes: lifecycle-v2.md §1 — a deletes path that was deleted is in scope; one
// that is still present (unchanged, edited, or removed from the index only) is
// missing_expected_file; a deleted path not under deletes stays unexpected_file.
func TestCheckScopeDeletes(t *testing.T) {
	front := "touches:\n  - file: a.go\ndeletes:\n  - old.go\n"
	base := map[string]string{"a.go": "package a\n", "old.go": "package a // old\n", "keep.go": "package a\n"}
	cases := []struct {
		name     string
		work     map[string]string
		rmCached bool
		want     []string
	}{
		{"deleted", map[string]string{"a.go": "package a // x\n", "old.go": ""}, false, nil},
		{"still present", map[string]string{"a.go": "package a // x\n"}, false,
			[]string{"missing_expected_file old.go"}},
		{"edited instead", map[string]string{"a.go": "package a // x\n", "old.go": "package a // edited\n"}, false,
			[]string{"missing_expected_file old.go"}},
		{"removed from the index only", map[string]string{"a.go": "package a // x\n"}, true,
			[]string{"missing_expected_file old.go"}},
		{"another file deleted", map[string]string{"a.go": "package a // x\n", "old.go": "", "keep.go": ""}, false,
			[]string{"unexpected_file keep.go"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, front, base, tc.work)
			if tc.rmCached {
				gitCmd(t, f.root, "rm", "-q", "--cached", "old.go")
			}
			r, _ := f.run(t, completeReport())
			fs, err := checkWithRuns(r, checkScope)
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, fs, tc.want...)
			for _, x := range fs {
				if x.FieldString("file") == "old.go" && x.Message != "declared under deletes but not deleted: old.go" {
					t.Errorf("message %q", x.Message)
				}
			}
		})
	}
}
