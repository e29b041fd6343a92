package postflight

import (
	"slices"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// TestChangedPathUnrepresentable: a changed path that is valid UTF-8 but that no files_modified
// entry can name (a backslash, a control character, leading or trailing white space, a drive-like
// first component) is changed_path_unrepresentable, escaped, and left out of every other
// comparison: it is never reported as missing from files_modified or as outside the scope. A
// report entry `a\b.go` normalises to `a/b.go` and so can only ever name the real path a/b.go.
func TestChangedPathUnrepresentable(t *testing.T) {
	cases := []struct {
		name   string
		files  []string // created in the work tree (untracked)
		listed []string // files_modified besides the scope files
		want   []string // "kind file" of every finding that is not about the scope files
	}{
		{"backslash next to a real slash path",
			[]string{`internal\cache\x.go`, "internal/cache/x.go"}, []string{"internal/cache/x.go"},
			[]string{`changed_path_unrepresentable internal\cache\x.go`, "unexpected_file internal/cache/x.go"}},
		{"backslash entry cannot stand for the backslash file",
			[]string{`internal\cache\y.go`}, []string{`internal\cache\y.go`},
			[]string{`changed_path_unrepresentable internal\cache\y.go`, "executor_report_unexpected_file internal/cache/y.go"}},
		{"control character", []string{"notes/a\tb.txt"}, nil,
			[]string{`changed_path_unrepresentable notes/a\u0009b.txt`}},
		{"trailing white space", []string{"notes/b.txt "}, nil,
			[]string{"changed_path_unrepresentable notes/b.txt "}},
		{"leading white space", []string{" c.txt"}, nil,
			[]string{"changed_path_unrepresentable  c.txt"}},
		{"drive-like first component", []string{"c:notes.txt"}, nil,
			[]string{"changed_path_unrepresentable c:notes.txt"}},
		{"not UTF-8", []string{"notes/\xff.txt"}, nil,
			[]string{`changed_path_unrepresentable notes/\xFF.txt`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, opts := newTaskRepo(t)
			writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = newLRU()\n")
			writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 0 }\n")
			writeFile(t, root, "docs/cache.md", "# Cache\n\nLRU.\n")
			for _, f := range tc.files {
				writeFile(t, root, f, "x\n")
			}
			listed := append([]string{"internal/cache/cache.go", "internal/cache/lru.go", "docs/cache.md"}, tc.listed...)
			for i, l := range listed {
				listed[i] = "'" + strings.ReplaceAll(l, "'", "''") + "'"
			}
			writeFile(t, root, reportRel, reportText(listed, ""))
			res := run(t, opts, ModePostOnly)
			var got []string
			for f := range res.AllFindings() {
				got = append(got, f.Rule+" "+f.FieldString("file"))
				if f.Rule == finding.KindChangedPathUnrepresentable && (!strings.Contains(f.Message, "cannot be audited") || f.Class != finding.ClassError) {
					t.Errorf("finding %v", f)
				}
			}
			for f := range res.AllFindings() {
				if f.Rule == finding.KindChangedPathUnrepresentable && tc.name == "control character" {
					if want := `a changed path cannot be listed in files_modified (a control character) and cannot be audited: "notes/a\u0009b.txt"`; f.Message != want {
						t.Errorf("message %q, want %q", f.Message, want)
					}
				}
				if f.Rule == finding.KindChangedPathUnrepresentable && tc.name == "not UTF-8" {
					if want := `a changed path is not valid UTF-8 and cannot be audited: notes/\xFF.txt`; f.Message != want {
						t.Errorf("message %q, want %q", f.Message, want)
					}
				}
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(got, want) {
				t.Errorf("findings\n got  %q\n want %q\n%s", got, want, res.AuditSummary)
			}
			if res.Outcome != OutcomePostBroken || res.Verdict != VerdictBroken {
				t.Errorf("outcome %s verdict %s", res.Outcome, res.Verdict)
			}
		})
	}
}
