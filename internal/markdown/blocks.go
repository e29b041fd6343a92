package markdown

import (
	"github.com/yuin/goldmark/ast"
)

// Span is an inclusive range of 1-based source lines.
type Span struct{ Start, End int }

// Contains reports whether 1-based line lies inside s.
func (s Span) Contains(line int) bool { return line >= s.Start && line <= s.End }

// TopLevel returns the children of the document root in source order.
func (d *Doc) TopLevel() []ast.Node {
	var out []ast.Node
	for n := d.Root.FirstChild(); n != nil; n = n.NextSibling() {
		out = append(out, n)
	}
	return out
}

// KindName names a block node the way findings do: "paragraph", "heading", "list", "list item",
// "block quote", "fenced code block", "indented code block", "HTML block", "thematic break",
// "link reference definition", or the goldmark kind for anything else.
func KindName(n ast.Node) string {
	switch n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return "paragraph"
	case *ast.Heading:
		return "heading"
	case *ast.List:
		return "list"
	case *ast.ListItem:
		return "list item"
	case *ast.Blockquote:
		return "block quote"
	case *ast.FencedCodeBlock:
		return "fenced code block"
	case *ast.CodeBlock:
		return "indented code block"
	case *ast.HTMLBlock:
		return "HTML block"
	case *ast.ThematicBreak:
		return "thematic break"
	case *ast.LinkReferenceDefinition:
		return "link reference definition"
	}
	return n.Kind().String()
}

// NodeSpan returns the source lines a block node covers: from the line of its start (goldmark's
// Pos) to its last content line, closure line, closing fence or last child, whichever is last.
// A node without any position returns the zero Span.
func (d *Doc) NodeSpan(n ast.Node) Span {
	var s Span
	grow := func(off int) {
		if off < 0 || off > len(d.Source) {
			return
		}
		l := d.Line(off)
		if s.Start == 0 || l < s.Start {
			s.Start = l
		}
		if l > s.End {
			s.End = l
		}
	}
	if p := n.Pos(); p >= 0 {
		grow(p)
	}
	if n.Type() == ast.TypeBlock {
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			grow(seg.Start)
			if seg.Stop > seg.Start {
				grow(seg.Stop - 1)
			}
		}
	}
	switch b := n.(type) {
	case *ast.HTMLBlock:
		if b.HasClosure() {
			grow(b.ClosureLine.Start)
		}
	case *ast.FencedCodeBlock:
		if f := d.Fence(b); f.CloseLine > 0 {
			grow(d.LineStart(f.CloseLine))
		}
	}
	if n.Type() == ast.TypeBlock {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if c.Type() != ast.TypeBlock {
				continue
			}
			cs := d.NodeSpan(c)
			if cs.Start == 0 {
				continue
			}
			if s.Start == 0 || cs.Start < s.Start {
				s.Start = cs.Start
			}
			if cs.End > s.End {
				s.End = cs.End
			}
		}
	}
	return s
}

// IsBlankLine reports whether 1-based line n holds only spaces and tabs (or nothing).
func (d *Doc) IsBlankLine(n int) bool {
	for _, c := range d.LineText(n) {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}
