package postflight

import (
	"bytes"
	"fmt"
	"strings"
)

// MaxSummaryFindings is the most findings Outcome.AuditSummary lists, and so the most a run-task
// text result shows (lifecycle-v2.md §9); audit.md and --json keep every finding.
const MaxSummaryFindings = 50

// CapAuditSummary limits the finding lines of the human part of audit.md to max findings, shared
// among the kinds so every kind is seen, with one line counting the rest (lifecycle-v2.md §9). A
// summary with at most max findings is returned as is.
func CapAuditSummary(summary string, max int) string {
	s := newSummaryCap(max)
	s.WriteString(summary)
	return s.String()
}

// summaryCap is CapAuditSummary by streaming: it takes the human part of audit.md line by line and
// keeps only what the capped summary shows, so a large audit's summary is never in memory whole
// (gitscope.md §8.1 scenario B).
type summaryCap struct {
	max     int
	partial []byte // a line not yet ended by '\n'
	part    int    // 0: header, 1: findings, 2: tail
	head    strings.Builder
	groups  []*capGroup
	total   int
	tail    strings.Builder
}

// capGroup is one run of findings of the same kind.
type capGroup struct {
	kind string
	// entries are the first max entries' lines (a finding line and its detail lines).
	entries []string
	n       int
}

func newSummaryCap(max int) *summaryCap { return &summaryCap{max: max} }

// Write feeds p, any part of the summary.
func (s *summaryCap) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.partial = append(s.partial, p...)
			break
		}
		if len(s.partial) > 0 {
			s.partial = append(s.partial, p[:i+1]...)
			s.line(s.partial)
			s.partial = s.partial[:0]
		} else {
			s.line(p[:i+1])
		}
		p = p[i+1:]
	}
	return n, nil
}

// WriteString feeds str.
func (s *summaryCap) WriteString(str string) (int, error) { return s.Write([]byte(str)) }

// line takes one line ending in '\n' (or, from String, the last unterminated one). Lines past
// what the capped summary shows are only counted, never copied.
func (s *summaryCap) line(l []byte) {
	switch s.part {
	case 0:
		s.head.Write(l)
		if len(l) == 1 && l[0] == '\n' {
			s.part = 1
		}
	case 1:
		if len(l) == 1 && l[0] == '\n' {
			s.part = 2
			s.tail.Write(l)
			return
		}
		if bytes.HasPrefix(l, []byte("      ")) && len(s.groups) > 0 {
			g := s.groups[len(s.groups)-1]
			if g.n <= s.max {
				g.entries[len(g.entries)-1] += string(l)
			}
			return
		}
		kind := findingLineKind(l)
		if len(s.groups) == 0 || s.groups[len(s.groups)-1].kind != string(kind) {
			s.groups = append(s.groups, &capGroup{kind: string(kind)})
		}
		g := s.groups[len(s.groups)-1]
		g.n++
		s.total++
		if g.n <= s.max {
			g.entries = append(g.entries, string(l))
		}
	default:
		s.tail.Write(l)
	}
}

// String returns the capped summary of everything written.
func (s *summaryCap) String() string {
	if len(s.partial) > 0 {
		l := s.partial
		s.partial = nil
		s.line(l)
	}
	var b strings.Builder
	b.WriteString(s.head.String())
	if s.part == 0 {
		return b.String()
	}
	shown := make([]int, len(s.groups))
	if s.total <= s.max {
		// Every entry is kept: no group has more than total.
		for i, g := range s.groups {
			shown[i] = g.n
		}
	} else {
		// Round-robin over the kinds until the budget is spent.
		for budget := s.max; budget > 0; {
			progressed := false
			for i, g := range s.groups {
				if budget > 0 && shown[i] < g.n {
					shown[i]++
					budget--
					progressed = true
				}
			}
			if !progressed {
				break
			}
		}
	}
	var rest []string
	for i, g := range s.groups {
		for _, e := range g.entries[:shown[i]] {
			b.WriteString(e)
		}
		if n := g.n - shown[i]; n > 0 {
			rest = append(rest, fmt.Sprintf("%d %s", n, g.kind))
		}
	}
	if s.total > s.max {
		fmt.Fprintf(&b, "  … and %d more (audit.md lists all): %s\n", s.total-s.max, strings.Join(rest, ", "))
	}
	b.WriteString(s.tail.String())
	return b.String()
}

// findingLineKind is the kind of an audit.md finding line "  <icon> <kind>: <message>".
func findingLineKind(l []byte) []byte {
	s := bytes.TrimLeft(l, " ")
	if _, after, ok := bytes.Cut(s, []byte(" ")); ok {
		s = after
	}
	kind, _, _ := bytes.Cut(s, []byte(":"))
	return kind
}
