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

// FuzzParseBrief feeds arbitrary briefs (and so arbitrary OUTPUT schemas) through ParseBrief and,
// when a declaration results, validates a fixed return with it: neither may panic, and a brief
// is either a declaration or an error, never both or neither.
func FuzzParseBrief(f *testing.F) {
	for _, name := range []string{"brief.md", "headings-brief.md"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("## OUTPUT\n```json-schema\n{\"$ref\": \"#\"}\n```\n"))
	f.Add([]byte("## OUTPUT\n```json-schema\n{\"properties\": {\"a\": {\"$ref\": \"#/properties/a\"}}}\n```\n"))
	f.Add([]byte("# Output (v2)\n```headings\n## A ##\nB\n```\n## NEEDS INPUT\n"))
	f.Fuzz(func(t *testing.T, brief []byte) {
		d, err := ParseBrief(brief, "b.md")
		if (d == nil) == (err == nil) {
			t.Fatalf("ParseBrief returned %v and %v", d, err)
		}
		if d == nil {
			return
		}
		if _, err := Check(context.Background(), []byte(validJSON), d, nil); err != nil {
			t.Fatal(err)
		}
	})
}
