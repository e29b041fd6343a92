package spec

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/yuin/goldmark/ast"
)

// requiredSections lists the mandatory non-empty sections per mode (§1.3).
var requiredSections = map[string][]string{
	ModeVerified: {"Goals", "Scope", "Acceptance Criteria", "Tests Plan", "Final Verification"},
	ModeLite:     {"Goals"},
	ModeStandard: {"Goals", "Alternatives Considered", "Tests Plan", "Documentation Plan", "Observability Plan", "Performance Considerations"},
	ModeStrict:   {"Goals", "Alternatives Considered", "Tests Plan", "Documentation Plan", "Observability Plan", "Performance Considerations"},
}

// RequiredSections returns the mandatory section names for mode, those of "standard" for an
// unknown one.
func RequiredSections(mode string) []string {
	if r, ok := requiredSections[mode]; ok {
		return append([]string(nil), r...)
	}
	return append([]string(nil), requiredSections[ModeStandard]...)
}

// NormalizeSectionName applies §1.3 name normalisation to a heading's plain text: remove one
// trailing parenthesised group (the plain text of "Tests Plan *(MANDATORY)*" is
// "Tests Plan (MANDATORY)", which gives "Tests Plan"), trim, and collapse internal white space
// to one space. Case is kept; callers compare with strings.EqualFold.
func NormalizeSectionName(text string) string {
	t := strings.TrimSpace(text)
	if strings.HasSuffix(t, ")") {
		depth := 0
		for i := len(t) - 1; i >= 0; i-- {
			switch t[i] {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				t = t[:i]
				break
			}
		}
	}
	return strings.Join(strings.Fields(t), " ")
}

// readSections collects the level-2 sections and the title, and checks duplicates and the
// mandatory sections of the mode.
func (p *parser) readSections() {
	d := p.body
	hs := d.TopHeadings()
	seenL2, seenL1 := false, false
	for i, h := range hs {
		if h.Level == 1 && !seenL2 && !seenL1 {
			seenL1 = true
			p.spec.Title = strings.Join(strings.Fields(h.Text), " ")
		}
		if h.Level != 2 {
			continue
		}
		seenL2 = true
		// The body runs to the next level-1 or level-2 heading.
		endLine := 0
		for _, n := range hs[i+1:] {
			if n.Level <= 2 {
				endLine = n.FirstLine
				break
			}
		}
		start := d.LineStart(h.LastLine + 1)
		end := len(d.Source)
		if endLine > 0 {
			end = d.LineStart(endLine)
		}
		start = min(start, end)
		line, _ := p.bodyPos(h.FirstLine, 1)
		p.spec.Sections = append(p.spec.Sections, Section{
			Name:     NormalizeSectionName(h.Text),
			Heading:  h.Text,
			Line:     line,
			Body:     string(d.Source[start:end]),
			NonEmpty: p.hasContent(h.Node, endLine),
		})
	}
	// One map lookup per section: comparing every pair took 12.6 s for 80,000 sections.
	first := map[string]int{} // foldKey(name) -> index of its first section
	for i, s := range p.spec.Sections {
		k := foldKey(s.Name)
		j, seen := first[k]
		if !seen {
			first[k] = i
			continue
		}
		prev := p.spec.Sections[j]
		p.add(RuleSectionDuplicate, s.Line, 1, "",
			fmt.Sprintf("section %q at line %d repeats the section at line %d (names compare without case); merge them into one",
				s.Name, s.Line, prev.Line),
			fieldSection(s.Name))
	}
	if !p.modeKnown {
		return // the mode cannot be read, so the mandatory set is unknown
	}
	mode := p.spec.Frontmatter.Mode
	for _, want := range requiredSections[mode] {
		var first *Section
		ok := false
		for i := range p.spec.Sections {
			if strings.EqualFold(p.spec.Sections[i].Name, want) {
				if first == nil {
					first = &p.spec.Sections[i]
				}
				ok = ok || p.spec.Sections[i].NonEmpty
			}
		}
		switch {
		case ok:
		case first == nil:
			p.add(RuleSectionMissing, 0, 0, "",
				fmt.Sprintf("mode %s requires a non-empty \"## %s\" section; none was found", mode, want),
				fieldSection(want))
		default:
			p.add(RuleSectionMissing, first.Line, 1, "",
				fmt.Sprintf("section %q is empty; mode %s requires it to hold content (blank lines and HTML comments do not count)", first.Name, mode),
				fieldSection(want))
		}
	}
}

// hasContent reports whether any top-level block after heading h and before body line endLine
// (0 = the end) is neither blank nor an HTML comment block.
func (p *parser) hasContent(h ast.Node, endLine int) bool {
	for n := h.NextSibling(); n != nil; n = n.NextSibling() {
		if hd, ok := n.(*ast.Heading); ok && hd.Level <= 2 {
			return false
		}
		if endLine > 0 {
			if first, _ := p.body.BlockLines(n); first >= endLine {
				return false
			}
		}
		if hb, ok := n.(*ast.HTMLBlock); ok && hb.HTMLBlockType == ast.HTMLBlockType2 {
			continue
		}
		if _, ok := n.(*ast.TextBlock); ok && len(strings.TrimSpace(p.body.PlainText(n))) == 0 {
			continue
		}
		return true
	}
	return false
}

func fieldSection(name string) finding.Field { return finding.Field{Key: "section", Value: name} }

// foldKey maps s to a key that two strings share exactly when strings.EqualFold reports them
// equal: every rune becomes the smallest rune of its simple case-folding orbit.
func foldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		lo := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			lo = min(lo, f)
		}
		b.WriteRune(lo)
	}
	return b.String()
}
