package audit

import (
	"fmt"
	"strings"
	"testing"
)

// TestPairRenames: lifecycle-v2.md §1 — a deleted deletes path and an added creates path with
// the same or ≥ 50% similar content are a rename; each path pairs once, best score first; paths
// outside deletes or creates, and unrelated contents, pair nothing.
func TestPairRenames(t *testing.T) {
	body := func(tag string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "func %s%d() int { return %d }\n", tag, i, i)
		}
		return b.String()
	}
	a, b := body("a", 20), body("b", 20)
	aEdited := strings.Replace(strings.Replace(a, "a3()", "x3()", 1), "a7()", "x7()", 1)
	cases := []struct {
		name, front string
		base, work  map[string]string
		want        string
	}{
		{"same content", "deletes:\n  - old.go\ncreates:\n  - new.go\n",
			map[string]string{"old.go": a}, map[string]string{"old.go": "", "new.go": a}, "old.go → new.go 100"},
		{"edited while moved", "deletes:\n  - old.go\ncreates:\n  - new.go\n",
			map[string]string{"old.go": a}, map[string]string{"old.go": "", "new.go": aEdited}, "old.go → new.go 90"},
		{"unrelated content", "deletes:\n  - old.go\ncreates:\n  - new.go\n",
			map[string]string{"old.go": a}, map[string]string{"old.go": "", "new.go": b}, ""},
		{"two moves, best pairs", "deletes:\n  - a.go\n  - b.go\ncreates:\n  - x/a.go\n  - x/b.go\n",
			map[string]string{"a.go": a, "b.go": b}, map[string]string{"a.go": "", "b.go": "", "x/b.go": b, "x/a.go": aEdited},
			"a.go → x/a.go 90; b.go → x/b.go 100"},
		{"one source, two copies", "deletes:\n  - a.go\ncreates:\n  - x.go\n  - y.go\n",
			map[string]string{"a.go": a}, map[string]string{"a.go": "", "x.go": aEdited, "y.go": a}, "a.go → y.go 100"},
		{"not deleted", "touches:\n  - file: k.go\ndeletes:\n  - old.go\ncreates:\n  - new.go\n",
			map[string]string{"old.go": a, "k.go": "k\n"}, map[string]string{"k.go": "k2\n", "new.go": a}, ""},
		{"deletion not declared", "touches:\n  - file: old.go\ncreates:\n  - new.go\n",
			map[string]string{"old.go": a}, map[string]string{"old.go": "", "new.go": a}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.front, tc.base, tc.work)
			r, _ := f.run(t, completeReport())
			rs, err := pairRenames(r)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, rn := range rs {
				got = append(got, fmt.Sprintf("%s → %s %d", rn.From, rn.To, rn.Similarity))
			}
			if g := strings.Join(got, "; "); g != tc.want {
				t.Errorf("renames %q, want %q", g, tc.want)
			}
		})
	}
}
