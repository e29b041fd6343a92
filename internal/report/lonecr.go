package report

import (
	"bytes"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// crPositions maps YAML positions to file positions through byte offsets when the decoded text
// holds a lone CR, which YAML breaks lines at but executor-report.md does not (§1.2).
type crPositions struct {
	text      []byte
	yamlStart []int // byte offset of each YAML line (CR, LF and CRLF breaks)
	lfStart   []int // byte offset of each LF-separated line of text
}

// hasLoneCR reports whether b holds a CR that is not followed by LF.
func hasLoneCR(b []byte) bool {
	for i := bytes.IndexByte(b, '\r'); i >= 0; {
		if i+1 >= len(b) || b[i+1] != '\n' {
			return true
		}
		j := bytes.IndexByte(b[i+1:], '\r')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

func newCRPositions(text []byte) *crPositions {
	c := &crPositions{text: text, yamlStart: []int{0}, lfStart: []int{0}}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			c.yamlStart = append(c.yamlStart, i+1)
			if text[i] == '\n' {
				c.lfStart = append(c.lfStart, i+1)
			}
		case '\n':
			c.yamlStart = append(c.yamlStart, i+1)
			c.lfStart = append(c.lfStart, i+1)
		}
	}
	return c
}

// offset returns the byte offset of YAML position p in text.
func (c *crPositions) offset(p yamlstrict.Pos) int {
	if p.Line < 1 || p.Line > len(c.yamlStart) {
		return -1
	}
	off := c.yamlStart[p.Line-1]
	for n := 1; n < p.Column && off < len(c.text); n++ {
		_, size := utf8.DecodeRune(c.text[off:])
		off += size
	}
	return off
}

// lfPosition returns the 1-based LF line of off and the code-point column from that line's
// start.
func (c *crPositions) lfPosition(off int) (int, int) {
	lo, hi := 0, len(c.lfStart)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if c.lfStart[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1, utf8.RuneCount(c.text[c.lfStart[lo]:off]) + 1
}

// filePos maps a YAML position to a file position: in bare form the text is the file after its
// BOM, and in sentinel form the line is then mapped through the fence's content lines.
func (l *located) crFilePos(p yamlstrict.Pos) (int, int, bool) {
	if l.cr == nil {
		return 0, 0, false
	}
	off := l.cr.offset(p)
	if off < 0 {
		return 0, 0, false
	}
	line, col := l.cr.lfPosition(off)
	if l.fence != nil {
		line, col = l.fence.ContentPosition(line, col)
	}
	return line, col, true
}
