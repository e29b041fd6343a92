package markdown

import (
	"bytes"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
)

// ContentLine maps one content line of a code block back to the source.
type ContentLine struct {
	Line    int // 1-based source line
	Start   int // byte offset in Doc.Source where the content of this line starts
	Removed int // code points CommonMark removed before Start on that source line (indentation, container markers)
	Padding int // virtual spaces CommonMark inserted in front of the content (a partly consumed tab)
}

// Fence describes a fenced or indented code block (CommonMark 0.31.2 §4.4, §4.5).
type Fence struct {
	Node     ast.Node
	Fenced   bool   // false for an indented code block
	Char     byte   // '`' or '~'; 0 for an indented code block
	Length   int    // length of the opening fence run
	Indent   int    // spaces before the opening fence (0–3)
	OpenLine int    // line of the opening fence; first content line for an indented block
	Info     string // info string as CommonMark trims it, escapes not processed
	// CloseLine is the line of the closing fence, 0 when the fence runs to the end of its
	// container. It is exact for top-level fences; a nested fence's is recognised after stripping
	// block-quote markers and indentation.
	CloseLine int
	Content   []byte        // the code block content exactly as CommonMark defines it
	Lines     []ContentLine // one per content line, in order
}

// Fence returns the description of a fenced code block node.
func (d *Doc) Fence(n *ast.FencedCodeBlock) Fence {
	f := Fence{Node: n, Fenced: true}
	start := n.Pos()
	if start < 0 || start >= len(d.Source) {
		start = 0
	}
	f.OpenLine = d.Line(start)
	if start < len(d.Source) {
		f.Char = d.Source[start]
		for i := start; i < len(d.Source) && d.Source[i] == f.Char; i++ {
			f.Length++
		}
	}
	ls := d.LineStart(f.OpenLine)
	for i := ls; i < start && (d.Source[i] == ' '); i++ {
		f.Indent++
	}
	if n.Info != nil {
		f.Info = string(n.Info.Segment.Value(d.Source))
	}
	d.fillContent(&f, n)
	last := f.OpenLine
	if len(f.Lines) > 0 {
		last = f.Lines[len(f.Lines)-1].Line
	}
	if next := last + 1; next <= d.LineCount() && d.isClosingFence(next, f.Char, f.Length) {
		f.CloseLine = next
	}
	return f
}

// isClosingFence reports whether line n closes a fence of char c and length at least length:
// indentation below 4 (after any block-quote markers), a run of c at least length long, then only
// spaces and tabs.
func (d *Doc) isClosingFence(n int, c byte, length int) bool {
	t := d.LineText(n)
	// strip block-quote markers so a closing fence inside a quote is recognised
	for {
		i := 0
		for i < len(t) && i < 3 && t[i] == ' ' {
			i++
		}
		if i < len(t) && t[i] == '>' {
			t = t[i+1:]
			if len(t) > 0 && t[0] == ' ' {
				t = t[1:]
			}
			continue
		}
		break
	}
	t = bytes.TrimLeft(t, " ")
	if len(t) > 0 && t[0] == '\t' {
		return false
	}
	k := 0
	for k < len(t) && t[k] == c {
		k++
	}
	if k < length || k == 0 {
		return false
	}
	return len(bytes.Trim(t[k:], " \t")) == 0
}

// fillContent collects a code block's content and its line mapping from goldmark's segments.
func (d *Doc) fillContent(f *Fence, n ast.Node) {
	lines := n.Lines()
	var buf bytes.Buffer
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		v := seg.Value(d.Source)
		buf.Write(v)
		if seg.ForceNewline && (len(v) == 0 || v[len(v)-1] != '\n') {
			buf.WriteByte('\n')
		}
		l := d.Line(seg.Start)
		ls := d.LineStart(l)
		removed := 0
		if seg.Start >= ls && seg.Start <= len(d.Source) {
			removed = utf8.RuneCount(d.Source[ls:seg.Start])
		}
		f.Lines = append(f.Lines, ContentLine{Line: l, Start: seg.Start, Removed: removed, Padding: seg.Padding})
	}
	f.Content = buf.Bytes()
}

// CodeBlock returns the description of an indented code block node.
func (d *Doc) CodeBlock(n *ast.CodeBlock) Fence {
	f := Fence{Node: n}
	d.fillContent(&f, n)
	if len(f.Lines) > 0 {
		f.OpenLine = f.Lines[0].Line
	} else if p := n.Pos(); p >= 0 {
		f.OpenLine = d.Line(p)
	}
	return f
}

// CodeBlocks returns every fenced and indented code block in the document, at any depth, in
// document order.
func (d *Doc) CodeBlocks() []Fence {
	var out []Fence
	_ = ast.Walk(d.Root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch b := n.(type) {
		case *ast.FencedCodeBlock:
			out = append(out, d.Fence(b))
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock:
			out = append(out, d.CodeBlock(b))
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// ContentPosition maps a 1-based line and column inside f.Content to a file position, using the
// content-line segments (executor-report-v1.md §1.6): the file line is the source line of that
// content line, and the column adds the code points CommonMark removed from it. Lines beyond the
// content map past the last content line.
func (f Fence) ContentPosition(line, col int) (int, int) {
	if line < 1 {
		return line, col
	}
	if line > len(f.Lines) {
		if len(f.Lines) == 0 {
			return f.OpenLine + line, col
		}
		last := f.Lines[len(f.Lines)-1]
		return last.Line + line - len(f.Lines), col
	}
	cl := f.Lines[line-1]
	c := col + cl.Removed - cl.Padding
	if c < 1 {
		c = 1
	}
	return cl.Line, c
}
