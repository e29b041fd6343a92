package postflight

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/markdown"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/yuin/goldmark/ast"
)

// MaxReviewBytes is the largest history-review.md accepted as complete (§8.2: 1 MiB).
const MaxReviewBytes = 1 << 20

// The five bullet fields of history-review.md (§8.2), in template order.
const (
	ReviewAuditSnapshot = "Audit snapshot"
	ReviewContext       = "Context"
	ReviewLesson        = "Lesson"
	ReviewReason        = "Reason"
	ReviewEvidence      = "Evidence"
)

// ReviewFieldNames lists the five fields in template order.
var ReviewFieldNames = []string{ReviewAuditSnapshot, ReviewContext, ReviewLesson, ReviewReason, ReviewEvidence}

// reasonPending is the template's Reason value; a review that keeps it is incomplete (§8.2).
const reasonPending = "semantic review required"

// bulletField matches a bullet field line "- **Name:** value" with any list marker and
// indentation. Whether the line counts is ProseLines' to decide.
var bulletField = regexp.MustCompile(`^[ \t]*[-*+][ \t]+\*\*([^*]+):\*\*(.*)$`)

// ProseLines reports for every 1-based line of a CommonMark document whether it is prose: not in
// a code block, an HTML block or a block quote. It adds block quotes to markdown.Doc.LineClasses,
// for history-review.md and the lessons file.
func ProseLines(d *markdown.Doc) []bool {
	classes := d.LineClasses()
	prose := make([]bool, len(classes))
	for i, c := range classes {
		prose[i] = i > 0 && c == markdown.LineProse
	}
	_ = ast.Walk(d.Root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if _, ok := n.(*ast.Blockquote); ok {
			s := d.NodeSpan(n)
			for l := max(s.Start, 1); l <= s.End && l < len(prose); l++ {
				prose[l] = false
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return prose
}

// ReviewField is one occurrence of a bullet field in a prose line.
type ReviewField struct {
	Name  string // one of ReviewFieldNames
	Value string // the text after "**Name:**", trimmed
	Line  int    // 1-based line
}

// ParseReviewFields returns the bullet fields of history-review.md that appear in prose lines,
// by name, in source order. A leading UTF-8 BOM is ignored; CRLF line endings are accepted.
// Field lines in code blocks, HTML comments and block quotes are not returned. Names other than
// the five of §8.2 are ignored.
func ParseReviewFields(src []byte) map[string][]ReviewField {
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	d := markdown.Parse(src)
	prose := ProseLines(d)
	known := map[string]bool{}
	for _, n := range ReviewFieldNames {
		known[n] = true
	}
	out := map[string][]ReviewField{}
	for n := 1; n <= d.LineCount() && n < len(prose); n++ {
		if !prose[n] {
			continue
		}
		m := bulletField.FindSubmatch(d.LineText(n))
		if m == nil || !known[string(m[1])] {
			continue
		}
		name := string(m[1])
		out[name] = append(out[name], ReviewField{Name: name, Value: strings.TrimSpace(string(m[2])), Line: n})
	}
	return out
}

// ReviewProblem is one reason a history review is not complete. Line is the 1-based line of the
// offending field, or 0 for a missing field or an unreadable file.
type ReviewProblem struct {
	Field   string // the field name; "" for a problem with the file itself
	Line    int
	Message string
}

// Format renders the problem as "<file>:<line>: <message>" ("<file>: <message>" without a line).
func (p ReviewProblem) Format(file string) string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", file, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", file, p.Message)
}

// CheckReview applies the "Complete" rules of §8.2 to the bytes of history-review.md and returns
// every problem in field order, nil when complete. The size and file-type rules are readReview's;
// values are escaped for terminal output.
func CheckReview(src []byte, snapshot string) []ReviewProblem {
	fields := ParseReviewFields(src)
	var ps []ReviewProblem
	for _, name := range ReviewFieldNames {
		occ := fields[name]
		switch {
		case len(occ) == 0:
			ps = append(ps, ReviewProblem{Field: name, Message: fmt.Sprintf("field %q is missing; add one line %q", name, "- **"+name+":** "+reviewHint(name, snapshot))})
			continue
		case len(occ) > 1:
			lines := make([]string, len(occ))
			for i, o := range occ {
				lines[i] = fmt.Sprint(o.Line)
			}
			ps = append(ps, ReviewProblem{Field: name, Line: occ[1].Line,
				Message: fmt.Sprintf("field %q appears %d times (lines %s); it must appear exactly once", name, len(occ), strings.Join(lines, ", "))})
			continue
		}
		f := occ[0]
		v := textsafe.Escape(f.Value)
		switch name {
		case ReviewAuditSnapshot:
			if f.Value != snapshot {
				ps = append(ps, ReviewProblem{Field: name, Line: f.Line,
					Message: fmt.Sprintf("field %q is %q; expected %s, the snapshot of the held audit", name, v, snapshot)})
			}
		case ReviewContext, ReviewLesson:
			if l := strings.ToLower(f.Value); l != "updated" && l != "not applicable" {
				ps = append(ps, ReviewProblem{Field: name, Line: f.Line,
					Message: fmt.Sprintf("field %q is %q; expected \"updated\" or \"not applicable\"", name, v)})
			}
		case ReviewReason:
			switch {
			case f.Value == "":
				ps = append(ps, ReviewProblem{Field: name, Line: f.Line,
					Message: fmt.Sprintf("field %q is empty; expected one sentence explaining both choices", name)})
			case strings.EqualFold(f.Value, reasonPending):
				ps = append(ps, ReviewProblem{Field: name, Line: f.Line,
					Message: fmt.Sprintf("field %q is still %q; replace it with one sentence explaining both choices", name, reasonPending)})
			}
		}
	}
	return ps
}

func reviewHint(name, snapshot string) string {
	switch name {
	case ReviewAuditSnapshot:
		return snapshot
	case ReviewContext, ReviewLesson:
		return "updated"
	case ReviewReason:
		return "<one sentence>"
	}
	return "<evidence paths>"
}

// readReview reads history-review.md under the §8.2 file rules. A refusal is returned as a
// ReviewProblem, so the review is not complete; err is set only for other I/O failures.
func readReview(t Task) ([]byte, *ReviewProblem, error) {
	return readReviewWith(t, func(_, rel string, limit int64) ([]byte, error) { return fsx.ReadInRoot(t.Root, rel, limit) })
}

// readReviewWith is readReview with the read done by read, through the task folder's handle in a
// run-task.
func readReviewWith(t Task, read func(name, rel string, limit int64) ([]byte, error)) ([]byte, *ReviewProblem, error) {
	data, err := read("history-review.md", t.HistoryReviewRel(), MaxReviewBytes)
	if err == nil {
		return data, nil, nil
	}
	var msg string
	switch fsx.ReasonOf(err) {
	case fsx.ReasonMissing:
		msg = "the file is missing; rerun post-flight (run-task --post-only) to create a pending review"
	case fsx.ReasonSymlink, fsx.ReasonSymlinkedAncestor:
		msg = "the file is a symbolic link (or reached through one) and is refused; replace it with a regular file"
	case fsx.ReasonNotRegular:
		msg = "the file is not a regular file and is refused"
	case fsx.ReasonTooLarge:
		msg = fmt.Sprintf("the file is larger than %d bytes (1 MiB) and is refused", MaxReviewBytes)
	case fsx.ReasonUnstable:
		msg = "the file changed while it was being read; retry"
	case fsx.ReasonOutsideRoot:
		msg = "the file is outside the repository and is refused"
	default:
		return nil, nil, fmt.Errorf("read %s: %w", t.HistoryReviewRel(), err)
	}
	return nil, &ReviewProblem{Message: msg}, nil
}

// reviewSnapshot returns the review's Audit snapshot value when it appears exactly once in a prose
// line as 64 lowercase hex digits; "" otherwise.
func reviewSnapshot(src []byte) string {
	occ := ParseReviewFields(src)[ReviewAuditSnapshot]
	if len(occ) == 1 && hex64.MatchString(occ[0].Value) {
		return occ[0].Value
	}
	return ""
}
