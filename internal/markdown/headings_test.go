package markdown

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTopHeadings(t *testing.T) {
	src := "# Title *x*\n\n## A `code` [link](http://x) <b>h</b>\ntext\n\nSetext\nover two\n---\n\n> ## quoted\n\n- ## listed\n\n```\n## fenced\n```\n\n##\n### Three\n"
	var got []string
	for _, h := range Parse([]byte(src)).TopHeadings() {
		got = append(got, fmt.Sprintf("%d %v %q %d-%d", h.Level, h.Setext, h.Text, h.FirstLine, h.LastLine))
	}
	want := []string{
		`1 false "Title x" 1-1`,
		`2 false "A code link h" 3-3`,
		`2 true "Setext over two" 6-8`,
		`2 false "" 18-18`,
		`3 false "Three" 19-19`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
}

func TestLineClasses(t *testing.T) {
	src := "p\n```sh\ncode\n```\nafter\n\n    indented\n\n<!--\nc\n-->\n> ```\n> x\nlazy\n- ```\n  y\n"
	d := Parse([]byte(src))
	cl := d.LineClasses()
	var got []string
	for n := 1; n <= d.LineCount(); n++ {
		got = append(got, fmt.Sprintf("%d:%d", n, cl[n]))
	}
	want := []string{"1:0", "2:1", "3:1", "4:1", "5:0", "6:0", "7:2", "8:0", "9:3", "10:3", "11:3",
		"12:1", "13:1", "14:0", "15:1", "16:1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestCodeSpans(t *testing.T) {
	src := "a `x/y.go` b `` `t` `` c ``multi\nline``\n\n    `in code`\n\n<div>`in html`</div>\n\n<span a=\"`raw`\">`after`</span>\n"
	var got []string
	for _, cs := range Parse([]byte(src)).CodeSpans() {
		got = append(got, fmt.Sprintf("%q %d:%d %v", cs.Text, cs.Line, cs.Column, cs.SingleLine))
	}
	want := []string{`"x/y.go" 1:3 true`, "\"`t`\" 1:14 true", `"multi line" 1:26 false`, `"after" 8:17 true`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
}

// FuzzStructure checks the heading, code-span and line-class helpers never panic and keep line
// numbers inside the document.
func FuzzStructure(f *testing.F) {
	f.Add([]byte("# T\n## A\n```\nx\n"))
	f.Add([]byte("Setext\n---\n> ```\n`a`\n<!--\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		d := Parse(src)
		n := d.LineCount()
		for _, h := range d.TopHeadings() {
			if h.FirstLine < 1 || h.LastLine < h.FirstLine || h.LastLine > n+1 {
				t.Fatalf("heading lines %d-%d of %d", h.FirstLine, h.LastLine, n)
			}
		}
		for _, cs := range d.CodeSpans() {
			if cs.Line < 0 || cs.Line > n+1 {
				t.Fatalf("code span line %d of %d", cs.Line, n)
			}
		}
		if len(d.LineClasses()) != n+2 {
			t.Fatal("line classes length")
		}
	})
}
