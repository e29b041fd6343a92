package cli

import (
	"fmt"
	"strings"
)

// MaxTextFindings is the most findings a run-task text result lists (lifecycle-v2.md §9); audit.md
// and --json keep every finding.
const MaxTextFindings = 50

// capAuditSummary limits the finding lines of an audit summary (the human part of audit.md,
// spec-and-lifecycle.md §7.1: header lines, a blank line, one "  <icon> <kind>: <message>" line
// per finding with its indented detail lines, a blank line, the rest) to max findings. The lines
// kept are shared fairly among the kinds, in their order (the findings are already grouped by
// kind, §9.3), so every kind is seen; one line then counts the rest by kind: "  … and N more
// (audit.md lists all): <n> <kind>, …". A summary with at most max findings is returned as is.
func capAuditSummary(summary string, max int) string {
	lines := strings.SplitAfter(summary, "\n")
	start := -1
	for i, l := range lines {
		if l == "\n" {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return summary
	}
	type entry struct{ lines []string }
	type group struct {
		kind    string
		entries []entry
		shown   int
	}
	var groups []*group
	end := start
	for ; end < len(lines) && lines[end] != "\n" && lines[end] != ""; end++ {
		l := lines[end]
		if strings.HasPrefix(l, "      ") && len(groups) > 0 {
			g := groups[len(groups)-1]
			e := &g.entries[len(g.entries)-1]
			e.lines = append(e.lines, l)
			continue
		}
		kind := findingLineKind(l)
		if len(groups) == 0 || groups[len(groups)-1].kind != kind {
			groups = append(groups, &group{kind: kind})
		}
		g := groups[len(groups)-1]
		g.entries = append(g.entries, entry{lines: []string{l}})
	}
	total := 0
	for _, g := range groups {
		total += len(g.entries)
	}
	if total <= max {
		return summary
	}
	// Round-robin over the kinds until the budget is spent.
	for budget := max; budget > 0; {
		progressed := false
		for _, g := range groups {
			if budget > 0 && g.shown < len(g.entries) {
				g.shown++
				budget--
				progressed = true
			}
		}
		if !progressed {
			break
		}
	}
	var b strings.Builder
	for _, l := range lines[:start] {
		b.WriteString(l)
	}
	var rest []string
	for _, g := range groups {
		for _, e := range g.entries[:g.shown] {
			for _, l := range e.lines {
				b.WriteString(l)
			}
		}
		if n := len(g.entries) - g.shown; n > 0 {
			rest = append(rest, fmt.Sprintf("%d %s", n, g.kind))
		}
	}
	fmt.Fprintf(&b, "  … and %d more (audit.md lists all): %s\n", total-max, strings.Join(rest, ", "))
	for _, l := range lines[end:] {
		b.WriteString(l)
	}
	return b.String()
}

// findingLineKind is the kind of an audit.md finding line "  <icon> <kind>: <message>".
func findingLineKind(l string) string {
	s := strings.TrimLeft(l, " ")
	if _, after, ok := strings.Cut(s, " "); ok {
		s = after
	}
	kind, _, _ := strings.Cut(s, ":")
	return kind
}
