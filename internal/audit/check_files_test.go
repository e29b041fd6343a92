package audit

import "testing"

// TestCheckFilesModified: §10.2 on a real changed set — every changed path listed, every listed
// path changed, controller artifacts never count as changed, unrepresentable paths leave the comparison.
func TestCheckFilesModified(t *testing.T) {
	base := map[string]string{"a.go": "package a\n", "b.go": "package b\n"}
	cases := []struct {
		name   string
		work   map[string]string
		listed []string
		want   []string
	}{
		{"all listed", map[string]string{"a.go": "package a // x\n", "n.go": "package n\n"}, []string{"a.go", "n.go"}, nil},
		{"changed but not listed", map[string]string{"a.go": "package a // x\n", "b.go": ""}, []string{"a.go"},
			[]string{"executor_report_missing_changed_file b.go"}},
		{"listed but unchanged", map[string]string{"a.go": "package a // x\n"}, []string{"a.go", "b.go"},
			[]string{"executor_report_unexpected_file b.go"}},
		// Only controller names holding the controller's bytes are left out of the changed set
		// (trust-model.md I3): a listed state.json the controller wrote is never a changed path;
		// one holding bytes it never wrote is, like any other file below .mastermind/, and must
		// be listed (#26 item 4).
		{"controller artifact listed", map[string]string{".mastermind/tasks/020-cache/state.json": "controller\n"}, []string{".mastermind/tasks/020-cache/state.json"},
			[]string{"executor_report_unexpected_file .mastermind/tasks/020-cache/state.json"}},
		{"forged controller name not listed", map[string]string{".mastermind/tasks/020-cache/state.json": "{}\n"}, nil,
			[]string{"executor_report_missing_changed_file .mastermind/tasks/020-cache/state.json"}},
		{"other file below .mastermind listed", map[string]string{".mastermind/tasks/020-cache/notes.md": "x\n"}, []string{".mastermind/tasks/020-cache/notes.md"}, nil},
		{"code below .mastermind not listed", map[string]string{".mastermind/lib/x.go": "package lib\n"}, nil,
			[]string{"executor_report_missing_changed_file .mastermind/lib/x.go"}},
		{"unrepresentable path is not asked for", map[string]string{`x\y.go`: "x\n"}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", base, tc.work)
			f.control = controllerContent{f.root}
			r, _ := f.run(t, completeReport(tc.listed...))
			fs, err := checkWithRuns(r, checkFilesModified)
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, fs, tc.want...)
		})
	}
}

// TestUnrepresentable: newRun turns paths no files_modified entry can name into
// changed_path_unrepresentable and keeps them out of D.
func TestUnrepresentable(t *testing.T) {
	f := newFixture(t, "", map[string]string{"a.go": "package a\n"}, map[string]string{
		`dir\x.go`: "x\n", "sp ace.go ": "x\n", "notes/\xff.txt": "x\n", "ok.go": "package ok\n"})
	r, pre := f.run(t, completeReport())
	wantKinds(t, pre, `changed_path_unrepresentable dir\x.go`, "changed_path_unrepresentable sp ace.go ",
		`changed_path_unrepresentable notes/\xFF.txt`)
	if len(r.d) != 1 || string(r.d[0].Path) != "ok.go" {
		t.Errorf("D = %v, want only ok.go", r.d)
	}
}
