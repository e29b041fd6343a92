package gitscope

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
)

// FuzzParseGitOutput feeds arbitrary bytes to the diff and ls-files parsers and the merge: they
// must never panic, and any accepted output must merge into a sorted, unique set.
func FuzzParseGitOutput(f *testing.F) {
	f.Add([]byte("M\x00a\x00D\x00b\x00A\x00c\x00"), []byte("b\x00inner/\x00"))
	f.Add([]byte("R100\x00a\x00b\x00"), []byte(""))
	f.Add([]byte("M\x00"), []byte("/\x00"))
	f.Add([]byte("M\x00a"), []byte("x"))
	f.Fuzz(func(t *testing.T, diff, others []byte) {
		var n1, n2 int64
		d, err1 := parseDiff(newNulReader(bytes.NewReader(diff), &n1))
		o, err2 := parseOthers(newNulReader(bytes.NewReader(others), &n2))
		for _, err := range []error{err1, err2} {
			var se *shapeError
			if err != nil && !errors.As(err, &se) && err != io.ErrUnexpectedEOF {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
		}
		if err1 != nil || err2 != nil {
			return
		}
		want := mergeBySort(slices.Clone(d), slices.Clone(o))
		m := mergeEntries(d, o)
		if !slices.EqualFunc(m, want, func(x, y Entry) bool {
			return bytes.Equal(x.Path, y.Path) && x.Status == y.Status && x.NestedRepository == y.NestedRepository
		}) {
			t.Fatalf("mergeEntries = %v, the sort-based merge gives %v", render(m), render(want))
		}
		for i := 1; i < len(m); i++ {
			if bytes.Compare(m[i-1].Path, m[i].Path) >= 0 {
				t.Fatalf("not sorted/unique at %d: %q %q", i, m[i-1].Path, m[i].Path)
			}
		}
		for _, e := range m {
			if len(e.Path) == 0 {
				t.Fatal("empty path accepted")
			}
		}
	})
}

// mergeBySort is the merge of gitscope.md §1 written the plain way (one stable sort of both
// lists, diff first), the oracle mergeEntries's linear merge must equal.
func mergeBySort(diff, others []Entry) []Entry {
	all := slices.Concat(diff, others)
	slices.SortStableFunc(all, func(x, y Entry) int { return bytes.Compare(x.Path, y.Path) })
	var out []Entry
	for _, e := range all {
		out = appendMerged(out, e)
	}
	return out
}

func TestParseGitVersion(t *testing.T) {
	for in, want := range map[string]bool{
		"git version 2.24.0\n": true, "git version 2.39.5\n": true, "git version 3.0\n": true,
		"git version 2.23.4\n": false, "git version 1.9\n": false, "garbage": false,
		"git version 2.45.1.windows.1\n": true, "git version 2\n": false,
	} {
		if _, got := parseGitVersion([]byte(in)); got != want {
			t.Errorf("parseGitVersion(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestMergeRules(t *testing.T) {
	e := func(p string, s Status) Entry { return Entry{Path: []byte(p), Status: s, UTF8: true} }
	got := mergeEntries(
		[]Entry{e("f", StatusDeleted), e("u", StatusModified), e("u", StatusDeleted), e("a", StatusAdded)},
		[]Entry{e("f", StatusUntracked), {Path: []byte("n"), Status: StatusUntracked, NestedRepository: true, UTF8: true}},
	)
	equalLines(t, "merge", render(got), []string{"A a", "M f", "? n nested", "M u"})
}

// FuzzParseFilterDrivers feeds arbitrary `git config -z --name-only` output to the driver-name
// parser: no panic, and every accepted name can be written as a -c key (no '=', NUL, newline),
// sorted and unique.
func FuzzParseFilterDrivers(f *testing.F) {
	f.Add([]byte("filter.lfs.clean\x00filter.a.b.process\x00filter..clean\x00"))
	f.Add([]byte("filter.a=b.clean\x00"))
	f.Add([]byte("filter.x"))
	f.Fuzz(func(t *testing.T, out []byte) {
		ds, err := parseFilterDrivers(out)
		if err != nil {
			return
		}
		for i, d := range ds {
			if bytes.ContainsAny([]byte(d), "=\n\x00") {
				t.Fatalf("driver %q accepted", d)
			}
			if i > 0 && ds[i-1] >= d {
				t.Fatalf("not sorted/unique: %q %q", ds[i-1], d)
			}
		}
	})
}
