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

// Markdown collects a job summary. Every text put in a cell or a paragraph goes through Text or
// Code, so that nothing taken from a finding, a path or a task name can open a link, an HTML
// tag or a table cell.
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

// mdPunct are the characters escaped in Markdown text: those that open emphasis, code, links,
// HTML, entities or strikethrough anywhere in a line, and '|' for table cells. (Block markers
// such as '#' or '-' only act at the start of a line, where escaped text is never put.)
const mdPunct = "\\`*_[]<>|~&"

// MarkdownText escapes s as literal Markdown text on one line: control and bidi characters are
// escaped (textsafe), line breaks become spaces, Markdown and HTML punctuation gets a backslash.
func MarkdownText(s string) string {
	s = textsafe.Escape(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	var b strings.Builder
	for _, r := range s {
		if r < 128 && strings.ContainsRune(mdPunct, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// MarkdownCode is s as inline code: a code span whose fence is longer than any run of backticks
// in s, with '|' written as an HTML entity-free escape so a table cell stays one cell.
func MarkdownCode(s string) string {
	s = textsafe.Escape(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	s = strings.ReplaceAll(s, "|", `\|`)
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
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
