package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// MarkdownView is a View with a Markdown job-summary form of its own (the gate against a
// protected base, whose range findings belong to no task); other views get the summary of their
// finding sets. The summary is rendered from the
// command's own result, never from files in the repository (trust-model.md §5 step 5).
type MarkdownView interface {
	// WriteMarkdown writes the summary and reports true, or writes nothing and reports false
	// to have the summary of the view's finding sets instead.
	WriteMarkdown(w *Markdown) bool
}

// Markdown collects a job summary. Every text put in a cell or a paragraph goes through
// MarkdownText or MarkdownCode, so that nothing taken from a finding, a path or a task name can
// open a link, an HTML tag or a table cell.
type Markdown struct{ b strings.Builder }

// Heading writes "## text" (level 2) or "### text" (level 3), followed by a blank line.
func (m *Markdown) Heading(level int, text string) {
	fmt.Fprintf(&m.b, "%s %s\n\n", strings.Repeat("#", level), text)
}

// Para writes one paragraph of already-escaped text.
func (m *Markdown) Para(s string) { fmt.Fprintf(&m.b, "%s\n\n", s) }

// Table writes a table with header cells head and rows of already-escaped cells, then a blank
// line. An empty rows writes nothing.
func (m *Markdown) Table(head []string, rows [][]string) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(&m.b, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for _, r := range rows {
		fmt.Fprintf(&m.b, "| %s |\n", strings.Join(r, " | "))
	}
	m.b.WriteString("\n")
}

// MarkdownText escapes s as literal Markdown text on one line, for a paragraph or a table cell
// of a job summary (integrations.md §4): line breaks and tabs become spaces; control and bidi
// characters are escaped (textsafe); the ASCII characters that open inline Markdown or HTML
// (\ ` * _ [ ] < > | ! ~ # &) are escaped anywhere ('&' as "&amp;"); "-", "+" and "=" at the
// start, where they would open a list or a heading; and GFM autolinks are broken (the ":" of
// "://", the "." after "www", every "@"), so an executor's text cannot add markup, links or
// images.
func MarkdownText(s string) string {
	s = textsafe.Escape(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s))
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r < 0x80 && strings.ContainsRune("\\`*_[]<>|!~#@", r),
			i == 0 && strings.ContainsRune("-+=", r),
			r == ':' && strings.HasPrefix(s[i:], "://"),
			r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// MarkdownCode renders s as inline code on one line ("" for empty s). A code span cannot escape
// backticks, so the fence is one backtick longer than the longest run inside; '|' is escaped so
// a table cell stays one cell (GFM reads \| as | in a code span inside a table cell).
func MarkdownCode(s string) string {
	s = textsafe.Escape(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	s = strings.ReplaceAll(s, "|", `\|`)
	if s == "" {
		return ""
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// writeMarkdownView writes v's own job summary; false when v has none to give.
func writeMarkdownView(s Streams, mv MarkdownView) (bool, error) {
	var m Markdown
	if !mv.WriteMarkdown(&m) {
		return false, nil
	}
	_, err := io.WriteString(s.Out, m.b.String())
	return true, err
}
