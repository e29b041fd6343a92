package filter

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzFilter feeds arbitrary raw returns through both declaration modes with the union on. It
// checks that Check never panics or errors without a repository, that an accepted JSON return
// re-parses to the same clean output, that an accepted headings return is a suffix of the input,
// and that a rejection always lists at least one item inside a well-formed REJECT block.
func FuzzFilter(f *testing.F) {
	raws, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.raw"))
	for _, p := range raws {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{validJSON, "", "{", "```json\n[1]\n```", "```yaml\na: ~\n```", "## Findings\nx\n## Evidence\ny\n",
		`{"status": "needs_input"}`, "\xef\xbb\xbf{}", "Findings\n---\n", "```json\n{\"a\": 1}", "\xff"} {
		f.Add([]byte(s))
	}
	jsonDecl := loadBrief(f, "brief.md")
	headDecl := loadBrief(f, "headings-brief.md")
	headDecl.Union = true
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, d := range []*Declaration{jsonDecl, headDecl} {
			res, err := Check(context.Background(), raw, d, nil)
			if err != nil {
				t.Fatalf("Check without a repository returned an error: %v", err)
			}
			if res.Accepted {
				if len(res.Items) != 0 {
					t.Fatal("accepted with items")
				}
				if res.Object != nil {
					v, err := ParseJSON(res.Output)
					if err != nil || string(v.Indent()) != string(res.Output) {
						t.Fatalf("clean output does not round-trip: %v\n%s", err, res.Output)
					}
				} else if !strings.HasSuffix(string(raw), string(res.Output)) {
					t.Fatalf("headings output is not a suffix of the return")
				}
				continue
			}
			if len(res.Items) == 0 {
				t.Fatal("rejected without items")
			}
			text := RejectText(res.Items)
			if !strings.HasPrefix(text, RejectFirstLine+"\n"+ListHeader+"\n  - ") || !strings.HasSuffix(text, "\n"+RedispatchLine+"\n") ||
				strings.Count(text, "\n") != len(res.Items)+3 {
				t.Fatalf("malformed REJECT block:\n%s", text)
			}
		}
	})
}
