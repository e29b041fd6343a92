package markdown

import (
	"bytes"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
)

// CodeSpan is one inline code span of the document.
type CodeSpan struct {
	// Text is the span's content as goldmark gives it: the bytes between the backtick runs, with
	// one leading and one trailing space removed when both are present, and line endings turned
	// into spaces.
	Text string
	// Line and Column are the 1-based position of the opening backticks, in code points.
	Line, Column int
	// SingleLine is true when the whole span, backticks included, is on one source line.
	SingleLine bool
}

// CodeSpans returns every inline code span in source order. Code blocks and HTML blocks hold no
// inline content, and raw inline HTML is not parsed for code spans, so every span returned lies
// outside code blocks and HTML (spec-and-lifecycle.md §1.4).
func (d *Doc) CodeSpans() []CodeSpan {
	var spans []CodeSpan
	var cur cursor
	_ = ast.Walk(d.Root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		cs, ok := n.(*ast.CodeSpan)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		var text bytes.Buffer
		single := true
		for c := cs.FirstChild(); c != nil; c = c.NextSibling() {
			t, ok := c.(*ast.Text)
			if !ok {
				continue
			}
			v := t.Segment.Value(d.Source)
			if bytes.ContainsAny(v, "\r\n") || t.SoftLineBreak() || t.HardLineBreak() {
				single = false
			}
			text.Write(bytes.ReplaceAll(bytes.ReplaceAll(v, []byte("\r\n"), []byte(" ")), []byte("\n"), []byte(" ")))
		}
		sp := CodeSpan{Text: text.String(), SingleLine: single}
		if cs.Pos() >= 0 {
			sp.Line, sp.Column = cur.position(d, cs.Pos())
		}
		spans = append(spans, sp)
		return ast.WalkSkipChildren, nil
	})
	return spans
}

// cursor computes positions of increasing offsets incrementally, counting a column from the
// previous offset on the same line, so that many positions on one long line cost linear time.
type cursor struct {
	line, off, col int // last result; line 0 means none
}

func (c *cursor) position(d *Doc, off int) (int, int) {
	if off > len(d.Source) {
		off = len(d.Source)
	}
	line := d.Line(off)
	if c.line == line && off >= c.off {
		c.col += utf8.RuneCount(d.Source[c.off:off])
		c.off = off
		return line, c.col
	}
	line, col := d.Position(off)
	c.line, c.off, c.col = line, off, col
	return line, col
}
