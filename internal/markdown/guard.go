package markdown

import (
	"bytes"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Hostile-input guards: goldmark is quadratic on deep container nesting within one line, on
// unclosed link destinations and on unmatched mixed emphasis (docs/hardening.md F1, F2).
// MaxContainerMarkers caps the first and the inline budget the other two; neither changes the
// result for a document a person writes.

// MaxContainerMarkers is the number of block-quote and list-item markers at the start of one
// source line that are parsed as containers; the next is parsed as text. From the first capped
// line on the top level may differ from CommonMark's (hardening F1), which Doc.CappedBefore
// reports.
const MaxContainerMarkers = 100

// inlineBudget bounds link and emphasis parsing: in a paragraph or heading whose byte length
// times its number of trigger characters exceeds it, those characters are literal text. Code
// spans, autolinks and raw HTML are still parsed there.
const inlineBudget = 1 << 20

// capNesting returns src unchanged when no line is over the nesting limits, and otherwise a
// copy of the same length in which the first byte past the limit is '|', with the 1-based numbers
// of the changed lines. A thematic break candidate is left alone, since goldmark reads it cheaply.
func capNesting(src []byte) ([]byte, []int) {
	lim := nestingLimits(countBlankLines(src))
	return capNestingAt(src, lim.Markers, lim.Columns)
}

// GuardNesting returns src with the container limits applied, for callers that run their own
// goldmark block parser instead of Parse. Offsets are unchanged, and src itself is returned when
// nothing is capped.
func GuardNesting(src []byte) []byte {
	capped, _ := capNesting(src)
	return capped
}

// NestingLimits are the container limits one document was parsed with: at most Markers
// container markers, and Columns columns of blanks before a marker, open containers on a line.
type NestingLimits struct {
	Markers, Columns int
}

// nestingBudget bounds a document's blank lines times its container depth, because goldmark
// keeps one entry per open block for every blank line of a block group; the nesting limits
// shrink with the number of blank lines (docs/hardening.md F29).
const nestingBudget = 1 << 19

// nestingLimits returns the limits for a document with blank blank lines (see nestingBudget).
func nestingLimits(blank int) NestingLimits {
	m := min(MaxContainerMarkers, nestingBudget/max(blank, 1))
	return NestingLimits{Markers: m, Columns: min(MaxIndentColumns, 2*m+4)}
}

// countBlankLines returns the number of lines of src that hold only spaces, tabs and a carriage
// return, a final empty line included.
func countBlankLines(src []byte) int {
	n := 0
	for start := 0; start <= len(src); {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		if isBlank(src[start:end]) {
			n++
		}
		start = end + 1
	}
	return n
}

// Limits returns the nesting limits d was parsed with, which the lines CappedBefore reports
// exceeded.
func (d *Doc) Limits() NestingLimits { return d.limits }

// BlankLineCount returns the number of blank lines of the source, which set Limits.
func (d *Doc) BlankLineCount() int { return d.blank }

// capNestingAt is capNesting with explicit limits, small ones for the fuzz target.
func capNestingAt(src []byte, maxMarkers, maxBlanks int) ([]byte, []int) {
	out := src
	var lines []int
	line := 1
	for start := 0; start < len(src); line++ {
		end := start
		for end < len(src) && src[end] != '\n' {
			end++
		}
		if at := excessMarker(src[start:end], maxMarkers, maxBlanks); at >= 0 {
			if &out[0] == &src[0] {
				out = append([]byte(nil), src...)
			}
			out[start+at] = '|'
			lines = append(lines, line)
		}
		start = end + 1
	}
	return out, lines
}

// MaxIndentColumns is the white space, in columns, that the run of blanks and container markers
// starting a line may hold; the blank after it is parsed as text. Indentation nesting is
// quadratic in goldmark (hardening F1), and 128 columns still allow 64 levels.
const MaxIndentColumns = 128

// excessMarker returns the offset in line of the byte to neutralise, or -1: the first container
// marker beyond MaxContainerMarkers, or the first blank beyond MaxIndentColumns, in the run of
// blanks and markers that starts the line.
func excessMarker(line []byte, maxMarkers, maxBlanks int) int {
	n, i, col, blanks := 0, 0, 0, 0
	listStart := -1
	for i < len(line) {
		if c := line[i]; c == ' ' || c == '\t' {
			w := 1
			if c == '\t' {
				w = 4 - col%4
			}
			col += w
			blanks += w
			if blanks > maxBlanks {
				// Only a container marker after the blanks can open a container (the quadratic
				// case); text or a blank rest opens nothing and is left alone, so an indented log
				// or code line in a report is never capped.
				if !markerAt(line, i) {
					return -1
				}
				return i
			}
			i++
			continue
		}
		at := i
		switch c := line[i]; {
		case c == '>':
			i++
		case c == '-' || c == '+' || c == '*':
			if i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t' {
				return -1
			}
			if listStart < 0 {
				listStart = i
			}
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j >= len(line) || (line[j] != '.' && line[j] != ')') || (j+1 < len(line) && line[j+1] != ' ' && line[j+1] != '\t') {
				return -1
			}
			if listStart < 0 {
				listStart = i
			}
			i = j + 1
		default:
			return -1
		}
		col += i - at
		n++
		if n > maxMarkers {
			if listStart >= 0 && thematicCandidate(line[listStart:]) {
				return -1
			}
			return at
		}
	}
	return -1
}

// thematicCandidate reports whether s holds only one of '-' and '*' plus blanks.
func thematicCandidate(s []byte) bool {
	var c byte
	for _, b := range s {
		switch b {
		case ' ', '\t', '\r':
		case '-', '*':
			if c != 0 && c != b {
				return false
			}
			c = b
		default:
			return false
		}
	}
	return true
}

// budgetKey caches, per paragraph or heading, whether link and emphasis parsing is off.
var budgetKey = parser.NewContextKey()

// docTriggersKey counts the link and emphasis trigger characters of the paragraphs parsed
// normally so far; past docInlineBudget of them, later paragraphs are literal text too.
var docTriggersKey = parser.NewContextKey()

// docInlineBudget is the number of link and emphasis trigger characters parsed as such in one
// document's paragraphs, about 50 MB of goldmark nodes; headings are exempt.
const docInlineBudget = 1 << 18

// inlineGuard is an inline parser that runs before the link and emphasis parsers for their
// trigger characters. In a block over inlineBudget it turns the character into literal text;
// otherwise it declines and the usual parser runs.
type inlineGuard struct{}

func (inlineGuard) Trigger() []byte { return []byte{'[', ']', '!', '*', '_'} }

func (inlineGuard) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	over, _ := pc.Get(budgetKey).(map[ast.Node]bool)
	if over == nil {
		over = map[ast.Node]bool{}
		pc.Set(budgetKey, over)
	}
	off, known := over[parent]
	if !known {
		src := block.Source()
		size, triggers := 0, 0
		lines := parent.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			size += seg.Len()
			for _, b := range src[seg.Start:seg.Stop] {
				switch b {
				case '[', ']', '!', '*', '_':
					triggers++
				}
			}
		}
		off = size*triggers > inlineBudget
		if !off && parent.Kind() != ast.KindHeading {
			// The document's budget: goldmark keeps a node of about 190 bytes for every link
			// and emphasis character it parses, so 4 MiB of short "[[[…" paragraphs, each
			// under the block budget, took 1.26 GB. Headings are exempt (section names).
			n, _ := pc.Get(docTriggersKey).(int)
			n += triggers
			pc.Set(docTriggersKey, n)
			off = n > docInlineBudget
		}
		over[parent] = off
	}
	if !off {
		return nil
	}
	// One text node for the run up to the next byte another inline parser or the line-break
	// handling may want, since a node per character cost 190 bytes each (hardening F33).
	line, seg := block.PeekLine()
	n := bytes.IndexAny(line, "`<\\& \t\r\n")
	if n < 0 {
		n = len(line)
	}
	n = max(n, 1) // at least the trigger byte itself
	block.Advance(n)
	return ast.NewTextSegment(seg.WithStop(seg.Start + n))
}

// newParser returns goldmark's CommonMark parser (no extensions) with the inline guard, or with
// no inline parsers at all when inline is false (block structure only).
func newParser(inline bool) parser.Parser {
	opts := []parser.Option{
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	}
	if inline {
		ips := append([]util.PrioritizedValue{util.Prioritized(inlineGuard{}, 150)}, parser.DefaultInlineParsers()...)
		opts = append(opts, parser.WithInlineParsers(ips...))
	}
	return parser.NewParser(opts...)
}

// CappedBefore returns the first capped line at or before line n, or 0. Before it the top-level
// structure is exactly CommonMark's; from it on it may differ, so callers that must be exact
// refuse what starts there or later.
func (d *Doc) CappedBefore(n int) int {
	if len(d.capped) == 0 || d.capped[0] > n {
		return 0
	}
	return d.capped[0]
}

// markerAt reports whether the first byte after the run of blanks at line[i:] starts a block-quote
// or list-item marker (as excessMarker recognises them).
func markerAt(line []byte, i int) bool {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) {
		return false
	}
	sep := func(j int) bool { return j >= len(line) || line[j] == ' ' || line[j] == '\t' || line[j] == '\r' }
	switch c := line[i]; {
	case c == '>':
		return true
	case c == '-' || c == '+' || c == '*':
		return sep(i + 1)
	case c >= '0' && c <= '9':
		j := i
		for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		return j < len(line) && (line[j] == '.' || line[j] == ')') && sep(j+1)
	}
	return false
}

// isBlank reports whether s holds only spaces, tabs and a carriage return, as the rest of a line
// that CommonMark reads as blank does.
func isBlank(s []byte) bool {
	for _, c := range s {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
