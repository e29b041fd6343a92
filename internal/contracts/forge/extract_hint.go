package forge

import (
	"bytes"
	"fmt"

	"github.com/mastermind-controller/mastermind/internal/markdown"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

const forgeFence = "```" + InfoString

const indentedHint = "the " + forgeFence + " fence is indented four or more spaces, so CommonMark reads it as code or text, not as a fence; indent the fence at most three spaces"

// NoBlockHint explains why src has no complete forge-report block when the original's raw-text
// regex would have found one, or when the last block is never closed (§1.3 as amended). It
// returns what to fix and the 1-based line it concerns, or "" and 0.
func NoBlockHint(src []byte) (string, int) {
	idx := lastForgeFence(src)
	if idx < 0 {
		return "", 0
	}
	line := 1 + bytes.Count(src[:idx], []byte{'\n'})
	root := blockParser.Parse(text.NewReader(markdown.GuardNesting(src)))
	var hint string
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || hint != "" {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
		default:
			return ast.WalkContinue, nil
		}
		lines := n.Lines()
		if lines.Len() == 0 {
			return ast.WalkSkipChildren, nil
		}
		first, last := lines.At(0), lines.At(lines.Len()-1)
		if idx < first.Start || idx >= last.Stop {
			return ast.WalkSkipChildren, nil
		}
		if _, fenced := n.(*ast.FencedCodeBlock); fenced {
			open := bytes.Count(src[:first.Start], []byte{'\n'}) // the line before the first content line
			hint = fmt.Sprintf("the %s block is inside the fenced block opened at line %d, so it is an example, not the report; put the report outside other fences", forgeFence, open)
		} else {
			hint = indentedHint
		}
		return ast.WalkStop, nil
	})
	if hint != "" {
		return hint, line
	}
	lineStart := bytes.LastIndexByte(src[:idx], '\n') + 1
	run := idx
	for run > lineStart && src[run-1] == '`' {
		run--
	}
	prefix, width := stripContainerPrefix(src[lineStart:run])
	switch {
	case len(prefix) > 0:
		return fmt.Sprintf("%s does not start its line, so CommonMark does not read it as a fence; put the opening fence at the start of a line of its own", forgeFence), line
	case width >= 4:
		return indentedHint, line
	}
	rest := src[idx:]
	bodyStart := bytes.IndexByte(rest, '\n')
	if bodyStart >= 0 {
		body := rest[bodyStart+1:]
		if c := bytes.Index(body, []byte("```")); c >= 0 {
			cStart := bytes.LastIndexByte(body[:c], '\n') + 1
			if len(bytes.TrimLeft(body[cStart:c], " \t")) > 0 {
				closeLine := line + 1 + bytes.Count(body[:c], []byte{'\n'})
				return fmt.Sprintf("the closing ``` of the %s block opened at line %d is glued to the end of line %d, so CommonMark does not read it as a fence and the block is never closed; put the closing ``` on a line of its own", forgeFence, line, closeLine), closeLine
			}
		}
	}
	return fmt.Sprintf("the %s block opened at line %d is never closed; end it with a line holding only ```", forgeFence, line), line
}

// lastForgeFence returns the offset of the last "```forge-report" followed on its line only by
// blanks (the original's /```forge-report[ \t]*\r?\n/), or -1.
func lastForgeFence(src []byte) int {
	for end := len(src); ; {
		i := bytes.LastIndex(src[:end], []byte(forgeFence))
		if i < 0 {
			return -1
		}
		after := src[i+len(forgeFence):]
		if nl := bytes.IndexByte(after, '\n'); nl >= 0 {
			after = after[:nl]
		}
		if len(bytes.Trim(after, " \t\r")) == 0 {
			return i
		}
		end = i
	}
}

// stripContainerPrefix removes block-quote markers, list-item markers and the blanks between
// them from the text before a fence on its line, and returns what is left and the width in
// columns of the blanks after the last marker (a tab is four).
func stripContainerPrefix(p []byte) ([]byte, int) {
	width := 0
	for {
		n := 0
		for n < len(p) && (p[n] == ' ' || p[n] == '\t') {
			if p[n] == '\t' {
				width += 4
			} else {
				width++
			}
			n++
		}
		p = p[n:]
		switch {
		case len(p) == 0:
			return p, width
		case p[0] == '>':
			p, width = p[1:], 0
			continue
		case (p[0] == '-' || p[0] == '*' || p[0] == '+') && len(p) > 1 && (p[1] == ' ' || p[1] == '\t'):
			p, width = p[1:], 0
			continue
		}
		d := 0
		for d < len(p) && d < 9 && p[d] >= '0' && p[d] <= '9' {
			d++
		}
		if d > 0 && d+1 < len(p) && (p[d] == '.' || p[d] == ')') && (p[d+1] == ' ' || p[d+1] == '\t') {
			p, width = p[d+1:], 0
			continue
		}
		return p, width
	}
}
