package markdown

import "github.com/yuin/goldmark/ast"

// LineClass classifies a source line by the block that holds it.
type LineClass uint8

// Line classes. LineProse is every line that is not inside one of the other three.
const (
	LineProse        LineClass = iota
	LineFencedCode             // inside a fenced code block, fences included
	LineIndentedCode           // inside an indented code block
	LineHTML                   // inside an HTML block (comments included)
)

// LineClasses returns the class of every source line, indexed by 1-based line number. Blocks
// nested in lists and block quotes are classified too, since VERIFY lines are read only from
// prose lines (spec-and-lifecycle.md §1.5).
func (d *Doc) LineClasses() []LineClass {
	classes := make([]LineClass, d.LineCount()+2)
	mark := func(n ast.Node, c LineClass) {
		first, last := d.BlockLines(n)
		for l := first; l >= 1 && l <= last && l < len(classes); l++ {
			classes[l] = c
		}
	}
	_ = ast.Walk(d.Root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *ast.FencedCodeBlock:
			mark(n, LineFencedCode)
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock:
			mark(n, LineIndentedCode)
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock:
			mark(n, LineHTML)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return classes
}
