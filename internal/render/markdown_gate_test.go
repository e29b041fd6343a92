package render

import (
	"bytes"
	"strings"
	"testing"
)

// TestMarkdownEscaping: text taken from findings, paths or task names renders as literal text on
// one line and stays inside its table cell: no link, HTML, emphasis, code span or extra cell.
func TestMarkdownEscaping(t *testing.T) {
	for in, want := range map[string]string{
		"plain c.go (+1 more)":         "plain c.go (+1 more)",
		"[x](http://evil) <img src=x>": `\[x\](http\://evil) \<img src=x\>`,
		"a|b *c* _d_ `e` ~f~ &amp;":    "a\\|b \\*c\\* \\_d\\_ \\`e\\` \\~f\\~ &amp;amp;",
		// The gate summary's text breaks autolinks and block starts as the finding sets' does.
		"- see www.evil.example @someone": `\- see www\.evil.example \@someone`,
		"two\nlines\r\nhere":              "two lines here",
		// textsafe's escapes keep their backslash, doubled so Markdown shows it literally.
		"bidi \u202e and \x1b[31m": `bidi \\u202E and \\u001B\[31m`,
	} {
		if got := MarkdownText(in); got != want {
			t.Errorf("MarkdownText(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"c.go":       "`c.go`",
		"a`b":        "``a`b``",
		"`start":     "`` `start ``",
		"x|y":        "`x\\|y`",
		"line\nnext": "`line next`",
		"":           "",
	} {
		if got := MarkdownCode(in); got != want {
			t.Errorf("MarkdownCode(%q) = %q, want %q", in, got, want)
		}
	}
}

type mdView struct{ Plain }

func (mdView) WriteMarkdown(m *Markdown) bool {
	m.Heading(2, "title")
	m.Table([]string{"A", "B"}, [][]string{{"1", MarkdownText("x|y")}})
	m.Table([]string{"none"}, nil)
	return true
}

// setsView has a summary of its own only when asked to; otherwise its finding sets' is used.
type setsView struct{ Plain }

func (setsView) WriteMarkdown(*Markdown) bool { return false }

// TestMarkdownRenderer: the markdown format writes a MarkdownView's own summary, and the finding
// sets' summary for a view that declines to write one.
func TestMarkdownRenderer(t *testing.T) {
	r, err := For(FormatMarkdown, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := r.Render(Streams{Out: &out, Err: &out}, mdView{}); err != nil {
		t.Fatal(err)
	}
	want := "## title\n\n| A | B |\n|---|---|\n| 1 | x\\|y |\n\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	out.Reset()
	if err := r.Render(Streams{Out: &out, Err: &out}, setsView{}); err != nil || !strings.HasPrefix(out.String(), "## mastermind") {
		t.Errorf("a view that declines: %v %q", err, out.String())
	}
}
