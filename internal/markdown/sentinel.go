package markdown

import (
	"bytes"
	"fmt"

	"github.com/yuin/goldmark/ast"
)

// IsTopLevelComment reports whether n is a comment block, CommonMark HTML block type 2, whose
// parent is the document (executor-report-v1.md §1.4 sentinel rules 1 and 2).
func IsTopLevelComment(n ast.Node) bool {
	h, ok := n.(*ast.HTMLBlock)
	if !ok || h.HTMLBlockType != ast.HTMLBlockType2 {
		return false
	}
	_, top := n.Parent().(*ast.Document)
	return top
}

// BlockText returns the raw source text of a block's lines, including an HTML block's closure
// line. goldmark's HTML block segments include the indentation, so the text starts at column 1.
func (d *Doc) BlockText(n ast.Node) []byte {
	var buf bytes.Buffer
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		buf.Write(seg.Value(d.Source))
	}
	if h, ok := n.(*ast.HTMLBlock); ok && h.HasClosure() {
		cl := h.ClosureLine
		buf.Write(cl.Value(d.Source))
	}
	return buf.Bytes()
}

// CheckSentinel checks the top-level comment block n against the exact sentinel text by
// executor-report-v1.md §1.4 rules 3 and 4. It returns "" when n is the sentinel, otherwise the
// failed rule in message form, such as "spans K lines".
func (d *Doc) CheckSentinel(n ast.Node, text string) string {
	span := d.NodeSpan(n)
	if k := span.End - span.Start + 1; k != 1 {
		return fmt.Sprintf("spans %d lines", k)
	}
	line := bytes.TrimRight(d.LineText(span.Start), " \t")
	if string(line) == text {
		return ""
	}
	trimmed := bytes.TrimLeft(line, " \t")
	if indent := len(line) - len(trimmed); indent > 0 {
		if string(trimmed) == text {
			return fmt.Sprintf("is indented by %d spaces", indent)
		}
	}
	if i := bytes.Index(trimmed, []byte("-->")); i >= 0 && i+3 < len(trimmed) && string(trimmed[:i+3]) == text {
		return "has text after -->"
	}
	if indent := len(line) - len(trimmed); indent > 0 {
		return fmt.Sprintf("is indented by %d spaces", indent)
	}
	return fmt.Sprintf("is not spelled exactly %q", text)
}
