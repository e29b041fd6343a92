package markdown

import (
	"sort"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Doc is a parsed CommonMark document and its source. Offsets in goldmark segments index Source.
type Doc struct {
	Source []byte
	Root   ast.Node
	lines  []int // byte offset of the start of each line
	capped []int // 1-based lines the nesting guard changed, ascending (guard.go)
	limits NestingLimits
	blank  int // blank lines (countBlankLines), which set limits
}

// Parse parses src, with any leading BOM already stripped, as CommonMark with goldmark and no
// extensions. It never fails, and the guards of guard.go keep it near-linear on hostile input.
func Parse(src []byte) *Doc { return parse(src, true) }

// ParseBlocks is Parse without inline parsing: the same blocks, lines and fences, but no inline
// children. It is linear in the input apart from the container cap, and all the executor report
// needs (executor-report-v1.md §1.4).
func ParseBlocks(src []byte) *Doc { return parse(src, false) }

func parse(src []byte, inline bool) *Doc {
	blank := countBlankLines(src)
	lim := nestingLimits(blank)
	capped, cappedLines := capNestingAt(src, lim.Markers, lim.Columns)
	root := newParser(inline).Parse(text.NewReader(capped))
	d := &Doc{Source: src, Root: root, lines: []int{0}, capped: cappedLines, limits: lim, blank: blank}
	for i, c := range src {
		if c == '\n' && i+1 <= len(src) {
			d.lines = append(d.lines, i+1)
		}
	}
	return d
}

// LineCount returns the number of lines in the source; a final line without a newline counts.
func (d *Doc) LineCount() int {
	n := len(d.lines)
	if n > 1 && d.lines[n-1] == len(d.Source) {
		return n - 1
	}
	return n
}

// Line returns the 1-based line that contains byte offset off.
func (d *Doc) Line(off int) int {
	return sort.Search(len(d.lines), func(i int) bool { return d.lines[i] > off })
}

// LineStart returns the byte offset where 1-based line n starts.
func (d *Doc) LineStart(n int) int {
	if n < 1 {
		return 0
	}
	if n > len(d.lines) {
		return len(d.Source)
	}
	return d.lines[n-1]
}

// LineText returns 1-based line n without its line ending (LF or CRLF).
func (d *Doc) LineText(n int) []byte {
	start := d.LineStart(n)
	end := len(d.Source)
	if n < len(d.lines) {
		end = d.lines[n]
	}
	b := d.Source[start:end]
	if len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}

// Position returns the 1-based line and column of byte offset off, the column counting code
// points from the start of the line, a tab as one.
func (d *Doc) Position(off int) (line, col int) {
	line = d.Line(off)
	start := d.LineStart(line)
	if off > len(d.Source) {
		off = len(d.Source)
	}
	return line, utf8.RuneCount(d.Source[start:off]) + 1
}
