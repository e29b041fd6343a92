package filter

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"sync"

	"github.com/mastermind-controller/mastermind/internal/markdown"
	"github.com/yuin/goldmark/ast"
)

// Heading is one required heading of headings mode (agent-contracts.md §2.5). Level 0 matches
// any level. Raw is the requirement as written, used as the item path.
type Heading struct {
	Raw   string
	Level int
	Text  string // normalised: trimmed, internal white space collapsed
}

var (
	reqATX     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(#{1,6})(?:[ \t]+(.*))?$`) })
	closingSeq = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[ \t]+)#+[ \t]*$`) })
)

// ParseHeading parses one requirement: "## Findings" needs level 2, "Findings" any level. The
// closing #s of an ATX form are ignored. A blank requirement is an error.
func ParseHeading(s string) (Heading, error) {
	raw := strings.TrimSpace(s)
	h := Heading{Raw: raw}
	text := raw
	if m := reqATX().FindStringSubmatch(raw); m != nil {
		h.Level = len(m[1])
		text = closingSeq().ReplaceAllString(m[2], "")
	}
	h.Text = normalizeHeading(text)
	if h.Text == "" {
		return h, errors.New("a required heading needs text")
	}
	return h, nil
}

// normalizeHeading trims and collapses white space; comparison is case-insensitive.
func normalizeHeading(s string) string { return strings.Join(strings.Fields(s), " ") }

type docHeading struct {
	node  *ast.Heading
	level int
	text  string
	line  int
}

// topHeadings returns the document's top-level ATX and setext headings with their raw text,
// without the ATX closing sequences goldmark drops.
func topHeadings(doc *markdown.Doc) []docHeading {
	var out []docHeading
	for n := doc.Root.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Lines().Len() == 0 {
			continue
		}
		var parts []string
		for i := 0; i < h.Lines().Len(); i++ {
			seg := h.Lines().At(i)
			parts = append(parts, string(seg.Value(doc.Source)))
		}
		out = append(out, docHeading{node: h, level: h.Level, text: normalizeHeading(strings.Join(parts, " ")),
			line: doc.Line(h.Lines().At(0).Start)})
	}
	return out
}

// sectionEmpty reports whether no non-blank, non-heading block follows h before the next heading
// of the same or a higher level.
func sectionEmpty(h *ast.Heading, src []byte) bool {
	for n := h.NextSibling(); n != nil; n = n.NextSibling() {
		if nh, ok := n.(*ast.Heading); ok {
			if nh.Level <= h.Level {
				return true
			}
			continue
		}
		switch n.Kind() {
		case ast.KindThematicBreak:
			continue
		case ast.KindFencedCodeBlock, ast.KindCodeBlock:
			if !blankLines(n, src) {
				return false
			}
			continue
		}
		return false
	}
	return true
}

func blankLines(n ast.Node, src []byte) bool {
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		if len(bytes.TrimSpace(seg.Value(src))) > 0 {
			return false
		}
	}
	return true
}

// checkHeadings validates a Markdown return against required headings. On success it returns the
// clean output: the return from the first matched required heading's line to the end.
func checkHeadings(src []byte, reqs []Heading) (out []byte, items []Item) {
	doc := markdown.Parse(src)
	hs := topHeadings(doc)
	firstLine := 0
	for i, r := range reqs {
		var found *docHeading
		for j := range hs {
			if (r.Level == 0 || hs[j].level == r.Level) && strings.EqualFold(hs[j].text, r.Text) {
				found = &hs[j]
				break
			}
		}
		if found == nil {
			items = append(items, newItem(r.Raw, Required, "heading", "absent", RuleHeadingMissing, "", []int{i}))
			continue
		}
		if sectionEmpty(found.node, src) {
			items = append(items, newItem(r.Raw, Required, "heading", "section is empty", RuleHeadingEmpty, "", []int{i}))
		}
		if firstLine == 0 || found.line < firstLine {
			firstLine = found.line
		}
	}
	if len(items) > 0 {
		return nil, items
	}
	return src[doc.LineStart(firstLine):], nil
}
