package forge

import (
	"bytes"
	"github.com/mastermind-controller/mastermind/internal/markdown"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// InfoString is the exact info string of a forge-report fence.
const InfoString = "forge-report"

// Block is one complete forge-report fenced block.
type Block struct {
	// Content is the block's text with container prefixes (blockquote markers, list indentation)
	// removed, as CommonMark defines it.
	Content []byte
	// Line is the 1-based line of the opening fence in the input.
	Line int
}

// closedAttr marks a fenced code block whose closing fence goldmark saw.
var closedAttr = []byte("forge-closed")

// closingFenceParser wraps goldmark's fenced code block parser and records, on the node, that a
// closing fence was seen. goldmark itself closes an unterminated fence silently at the end of its
// container, and §1.3 requires such a block to be skipped.
type closingFenceParser struct{ parser.BlockParser }

func (p closingFenceParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	st := p.BlockParser.Continue(node, reader, pc)
	if st&parser.Close != 0 {
		node.SetAttribute(closedAttr, true)
	}
	return st
}

var blockParser = func() parser.Parser {
	var bps []util.PrioritizedValue
	for _, v := range parser.DefaultBlockParsers() {
		if bp, ok := v.Value.(parser.BlockParser); ok && bp == parser.NewFencedCodeBlockParser() {
			v = util.Prioritized(closingFenceParser{bp}, v.Priority)
		}
		bps = append(bps, v)
	}
	// Block structure only: fences are all extraction reads, and goldmark's inline parsers
	// are superlinear on link and emphasis floods (docs/hardening.md F31).
	return parser.NewParser(
		parser.WithBlockParsers(bps...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
}()

// StripBOM removes one leading UTF-8 byte order mark.
func StripBOM(src []byte) []byte { return bytes.TrimPrefix(src, []byte("\xEF\xBB\xBF")) }

// Blocks returns every complete fenced code block of src whose info string is exactly
// "forge-report", in document order, as §1.3 as amended reads them. src should have its BOM
// stripped.
func Blocks(src []byte) []Block {
	// The container limits of internal/markdown keep goldmark near-linear: unguarded, 1 MiB of
	// blank lines under 100 nested list items took 42 s and 14 GB, one line of 200,000 block
	// quotes 21 s (docs/hardening.md F29, F1). Segments still index src.
	root := blockParser.Parse(text.NewReader(markdown.GuardNesting(src)))
	var out []Block
	line, counted := 1, 0 // line number of src[counted], advanced incrementally (blocks come in order)
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		fc, ok := n.(*ast.FencedCodeBlock)
		if !ok || fc.Info == nil {
			return ast.WalkContinue, nil
		}
		if _, closed := fc.AttributeString("forge-closed"); !closed {
			return ast.WalkSkipChildren, nil
		}
		seg := fc.Info.Segment
		if !bytes.Equal(seg.Value(src), []byte(InfoString)) {
			return ast.WalkSkipChildren, nil
		}
		var content []byte
		lines := fc.Lines()
		for i := 0; i < lines.Len(); i++ {
			l := lines.At(i)
			for p := 0; p < l.Padding; p++ {
				content = append(content, ' ')
			}
			content = append(content, src[l.Start:l.Stop]...)
		}
		line += bytes.Count(src[counted:seg.Start], []byte{'\n'})
		counted = seg.Start
		out = append(out, Block{Content: content, Line: line})
		return ast.WalkSkipChildren, nil
	})
	return out
}

// Extract returns the last complete forge-report block of src, and false when there is none.
func Extract(src []byte) (Block, bool) {
	bs := Blocks(src)
	if len(bs) == 0 {
		return Block{}, false
	}
	return bs[len(bs)-1], true
}
