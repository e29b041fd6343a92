package markdown

import "bytes"

// Frontmatter is the position of a leading YAML frontmatter block (spec-and-lifecycle.md §1.2,
// agent-contracts.md §3.2). Offsets index the text given to SplitFrontmatter.
type Frontmatter struct {
	// Present is true when the text starts exactly with the line "---" (LF or CRLF).
	Present bool
	// Closed is true when a later line equals "---" once trailing spaces, tabs and CR are
	// removed; the first such line closes the frontmatter.
	Closed bool
	// Start is the offset of the first byte after the opening line.
	Start int
	// End is the offset of the closing line (0 unless Closed): the YAML is text[Start:End].
	End int
	// Body is the offset just after the closing line and its line feed (0 unless Closed).
	Body int
}

// SplitFrontmatter finds the frontmatter delimiters of text, whose BOM the caller has removed.
// It is not YAML-aware: the first line that is "---" after trimming closes the block.
func SplitFrontmatter(text []byte) Frontmatter {
	var fm Frontmatter
	switch {
	case bytes.HasPrefix(text, []byte("---\n")):
		fm.Start = 4
	case bytes.HasPrefix(text, []byte("---\r\n")):
		fm.Start = 5
	default:
		return fm
	}
	fm.Present = true
	for start := fm.Start; start < len(text); {
		end := bytes.IndexByte(text[start:], '\n')
		next := len(text)
		if end >= 0 {
			end += start
			next = end + 1
		} else {
			end = len(text)
		}
		if string(bytes.TrimRight(text[start:end], " \t\r")) == "---" {
			fm.Closed, fm.End, fm.Body = true, start, next
			return fm
		}
		start = next
	}
	return fm
}
