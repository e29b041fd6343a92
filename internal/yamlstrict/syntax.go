package yamlstrict

import (
	"fmt"
	"sort"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// syntaxChecker rejects as decode.syntax the YAML 1.2 violations that yaml.v3
// accepts, listed in executor-report-v1.md §2.5, by looking at the source of
// every quoted scalar and outermost flow collection once.
type syntaxChecker struct {
	ix     *lineIndex
	src    []byte
	issues []Issue
}

func (c *syntaxChecker) fail(p Pos, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.issues = append(c.issues, Issue{Rule: RuleSyntax, Pos: p, Message: msgSyntax("YAML", msg)})
}

// lineOf returns the 1-based line holding byte offset off.
func (c *syntaxChecker) lineOf(off int) int {
	return sort.Search(len(c.ix.start), func(i int) bool { return c.ix.start[i] > off })
}

// posOf returns the position of byte offset off.
func (c *syntaxChecker) posOf(off int) Pos {
	l := c.lineOf(off)
	return Pos{l, utf8.RuneCount(c.src[c.ix.start[l-1]:off]) + 1}
}

// contentStart returns the offset of n's content: its position, moved past
// any properties (tag, anchor) and the white space or comments after them.
// It returns -1 when the position is unknown.
func (c *syntaxChecker) contentStart(n *yaml.Node) int {
	off := c.ix.offset(n.Line, n.Column)
	if off < 0 {
		return -1
	}
	for off < len(c.src) {
		switch ch := c.src[off]; ch {
		case '!', '&':
			if ch == '!' && off+1 < len(c.src) && c.src[off+1] == '<' {
				for off < len(c.src) && c.src[off] != '>' {
					off++
				}
			}
			for off < len(c.src) && !isSpaceOrBreak(c.src[off]) {
				off++
			}
		case ' ', '\t', '\r', '\n':
			off++
		case '#':
			for off < len(c.src) && c.src[off] != '\n' && c.src[off] != '\r' {
				off++
			}
		default:
			return off
		}
	}
	return -1
}

func isSpaceOrBreak(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

type checkItem struct {
	n    *yaml.Node
	need int // spaces a continuation line needs (0: no requirement)
}

// check visits the tree below root.
func (c *syntaxChecker) check(root *yaml.Node) {
	stack := []checkItem{{root, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := it.n
		switch n.Kind {
		case yaml.ScalarNode:
			if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
				if off := c.contentStart(n); off >= 0 && (c.src[off] == '"' || c.src[off] == '\'') {
					c.scanQuoted(off, it.need)
				}
			}
		case yaml.MappingNode, yaml.SequenceNode:
			if n.Style&yaml.FlowStyle != 0 {
				if off := c.contentStart(n); off >= 0 && (c.src[off] == '[' || c.src[off] == '{') {
					c.scanFlow(off, it.need, quotedStarts(c, n))
				}
				continue
			}
			need := it.need
			if len(n.Content) > 0 {
				at := n
				if n.Kind == yaml.MappingNode {
					at = n.Content[0]
				}
				if off := c.contentStart(at); off >= 0 {
					if n.Kind == yaml.MappingNode {
						off = c.ix.offset(at.Line, at.Column) // the entry starts at the key's properties
					}
					if off >= 0 {
						need = c.posOf(off).Column
					}
				}
			}
			for i := len(n.Content) - 1; i >= 0; i-- {
				stack = append(stack, checkItem{n.Content[i], need})
			}
		}
	}
}

// quotedStarts returns the offsets of the opening quotes of every quoted
// scalar in the flow collection n.
func quotedStarts(c *syntaxChecker, n *yaml.Node) map[int]bool {
	set := map[int]bool{}
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x.Kind == yaml.ScalarNode && x.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			if off := c.contentStart(x); off >= 0 {
				set[off] = true
			}
		}
		if x.Kind == yaml.MappingNode || x.Kind == yaml.SequenceNode {
			stack = append(stack, x.Content...)
		}
	}
	return set
}

// checkLine checks that line l (1-based), which lies inside a quoted scalar
// or flow collection, is blank, a comment line, or indented by at least need
// spaces.
func (c *syntaxChecker) checkLine(l, need int, inQuoted bool) {
	if need <= 0 || l < 1 || l > len(c.ix.start) {
		return
	}
	off := c.ix.start[l-1]
	end := len(c.src)
	if l < len(c.ix.start) {
		end = c.ix.start[l]
	}
	spaces := 0
	for off+spaces < end && c.src[off+spaces] == ' ' {
		spaces++
	}
	j := off + spaces
	for j < end && (c.src[j] == ' ' || c.src[j] == '\t') {
		j++
	}
	if j == end || c.src[j] == '\r' || c.src[j] == '\n' {
		return
	}
	if !inQuoted && c.src[j] == '#' {
		return
	}
	if spaces < need {
		c.fail(Pos{l, spaces + 1}, "this line continues a flow collection or quoted scalar, so it must be indented by at least %d space(s), more than its parent block (tabs do not count)", need)
	}
}

// scanQuoted scans the quoted scalar whose opening quote is at off and
// returns the offset after its closing quote (len(src) if unclosed).
func (c *syntaxChecker) scanQuoted(off, need int) int {
	q := c.src[off]
	line := c.lineOf(off)
	i := off + 1
	end := len(c.src)
	for i < len(c.src) {
		for line < len(c.ix.start) && i >= c.ix.start[line] {
			line++
			c.checkLine(line, need, true)
		}
		ch := c.src[i]
		if q == '"' && ch == '\\' {
			if i+1 < len(c.src) && !validEscape(c.src[i+1]) {
				r, _ := utf8.DecodeRune(c.src[i+1:])
				c.fail(c.posOf(i), "invalid escape \\%s in a double-quoted scalar", string(r))
			}
			if i+1 < len(c.src) && c.src[i+1] != '\r' && c.src[i+1] != '\n' {
				i += 2
			} else {
				i++
			}
			continue
		}
		if ch == q {
			if q == '\'' && i+1 < len(c.src) && c.src[i+1] == '\'' {
				i += 2
				continue
			}
			end = i + 1
			break
		}
		i++
	}
	if end < len(c.src) && c.src[end] == '#' {
		c.fail(c.posOf(end), "a comment needs white space before '#'")
	}
	return end
}

func validEscape(b byte) bool {
	switch b {
	case '0', 'a', 'b', 't', '\t', 'n', 'v', 'f', 'r', 'e', ' ', '"', '/', '\\', 'N', '_', 'L', 'P', 'x', 'u', 'U', '\r', '\n':
		return true
	}
	return false
}

// scanFlow scans the flow collection whose opening bracket is at off,
// checking its continuation lines and its quoted scalars, and returns the
// offset after the matching closing bracket.
func (c *syntaxChecker) scanFlow(off, need int, quoted map[int]bool) int {
	line := c.lineOf(off)
	depth := 0
	for i := off; i < len(c.src); {
		for line < len(c.ix.start) && i >= c.ix.start[line] {
			line++
			c.checkLine(line, need, false)
		}
		ch := c.src[i]
		switch {
		case quoted[i]:
			i = c.scanQuoted(i, need)
			line = c.lineOf(i - 1)
			continue
		case ch == '#' && (i == off || isSpaceOrBreak(c.src[i-1])):
			for i < len(c.src) && c.src[i] != '\n' && c.src[i] != '\r' {
				i++
			}
			continue
		case ch == '[' || ch == '{':
			depth++
		case ch == ']' || ch == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return len(c.src)
}
