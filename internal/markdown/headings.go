package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// Heading is a heading block with its source line range.
type Heading struct {
	Level  int  // 1–6
	Setext bool // underlined (Name + "---"/"===") rather than ATX ("## Name")
	// Text is the heading's plain text: its inline content without emphasis markers, link
	// destinations or raw HTML, code span contents kept.
	Text string
	// FirstLine and LastLine are the 1-based source lines the heading occupies, inclusive; for a
	// setext heading LastLine is the underline.
	FirstLine, LastLine int
	Node                *ast.Heading
}

// TopHeadings returns the headings that are direct children of the document, in source order.
func (d *Doc) TopHeadings() []Heading {
	var hs []Heading
	for n := d.Root.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			continue
		}
		first, last := d.BlockLines(h)
		hs = append(hs, Heading{Level: h.Level, Setext: d.isSetext(h), Text: d.PlainText(h),
			FirstLine: first, LastLine: last, Node: h})
	}
	return hs
}

// isSetext reports whether h is a setext heading: its first source line does not start, after at
// most three spaces, with '#'.
func (d *Doc) isSetext(h *ast.Heading) bool {
	first, _ := d.BlockLines(h)
	line := strings.TrimLeft(string(d.LineText(first)), " ")
	return !strings.HasPrefix(line, "#")
}

// PlainText returns the text content of n's inline descendants: text, code span contents and
// autolink text, with markup, link destinations and raw HTML removed. A soft or hard line break
// becomes one space.
func (d *Doc) PlainText(n ast.Node) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			b.Write(t.Segment.Value(d.Source))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.AutoLink:
			b.Write(t.Label(d.Source))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// BlockLines returns the 1-based first and last source lines of block n, inclusive: a closing
// fence, a setext underline and an HTML block's closure line count, and a container spans to the
// last line of its last leaf. A block without a position gives (0, 0).
func (d *Doc) BlockLines(n ast.Node) (first, last int) {
	if n.Pos() >= 0 {
		first = d.Line(n.Pos())
	}
	segs := n.Lines()
	for i := 0; segs != nil && i < segs.Len(); i++ {
		s := segs.At(i)
		if first == 0 {
			first = d.Line(s.Start)
		}
		last = max(last, d.Line(max(s.Stop-1, s.Start)))
	}
	if first == 0 {
		return 0, 0
	}
	last = max(last, first)
	switch t := n.(type) {
	case *ast.Heading:
		if d.isSetextAt(first) {
			last++
		}
	case *ast.HTMLBlock:
		if t.HasClosure() {
			last = max(last, d.Line(t.ClosureLine.Start))
		}
	case *ast.FencedCodeBlock:
		// The closing fence, if any, is the line after the content or, without content, after
		// the opening fence, and always before the next block.
		next := last + 1
		if next <= d.LineCount() {
			if nb := d.nextBlockLine(n); nb == 0 || next < nb {
				last = next
			}
		}
	default:
		if n.Type() == ast.TypeBlock && n.LastChild() != nil && n.LastChild().Type() == ast.TypeBlock {
			_, l := d.BlockLines(n.LastChild())
			last = max(last, l)
		}
	}
	return first, last
}

// isSetextAt reports whether the heading starting on line n is a setext heading.
func (d *Doc) isSetextAt(n int) bool {
	line := strings.TrimLeft(string(d.LineText(n)), " ")
	return !strings.HasPrefix(line, "#")
}

// nextBlockLine returns the first line of the block that follows n in document order, or 0 when
// none follows.
func (d *Doc) nextBlockLine(n ast.Node) int {
	for c := n; c != nil; c = c.Parent() {
		if s := c.NextSibling(); s != nil {
			if s.Pos() >= 0 {
				return d.Line(s.Pos())
			}
			if s.Lines() != nil && s.Lines().Len() > 0 {
				return d.Line(s.Lines().At(0).Start)
			}
			return 0
		}
	}
	return 0
}
