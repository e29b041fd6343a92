package yamlstrict

import "unicode/utf8"

// lineIndex maps yaml.v3 positions back to byte offsets in the decoded text,
// counting line breaks as yaml.v3 does. A non-ASCII line gets a code-point
// offset table on first lookup, so the total cost stays linear.
type lineIndex struct {
	src   []byte
	start []int  // byte offset of each line's first byte
	ascii []bool // line holds only ASCII bytes
	runes map[int][]int32
}

func newLineIndex(src []byte) *lineIndex {
	ix := &lineIndex{src: src, start: []int{0}}
	ascii := true
	for i := 0; i < len(src); {
		c := src[i]
		n := 0 // length of the line break at i, 0 if none
		switch {
		case c == '\r' && i+1 < len(src) && src[i+1] == '\n':
			n = 2
		case c == '\r' || c == '\n':
			n = 1
		case c == 0xC2 && i+1 < len(src) && src[i+1] == 0x85:
			n = 2
		case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9):
			n = 3
		}
		if n == 0 {
			if c >= utf8.RuneSelf {
				ascii = false
			}
			i++
			continue
		}
		ix.ascii = append(ix.ascii, ascii)
		ascii = true
		i += n
		ix.start = append(ix.start, i)
	}
	ix.ascii = append(ix.ascii, ascii)
	return ix
}

// offset returns the byte offset of line:col, or -1 when there is no such
// character.
func (ix *lineIndex) offset(line, col int) int {
	if line < 1 || line > len(ix.start) || col < 1 {
		return -1
	}
	l := line - 1
	begin := ix.start[l]
	end := len(ix.src)
	if l+1 < len(ix.start) {
		end = ix.start[l+1]
	}
	if ix.ascii[l] {
		if off := begin + col - 1; off < end {
			return off
		}
		return -1
	}
	if ix.runes == nil {
		ix.runes = map[int][]int32{}
	}
	tab, ok := ix.runes[l]
	if !ok {
		for i := begin; i < end; {
			tab = append(tab, int32(i))
			_, size := utf8.DecodeRune(ix.src[i:end])
			i += size
		}
		ix.runes[l] = tab
	}
	if col-1 < len(tab) {
		return int(tab[col-1])
	}
	return -1
}

// tagAt returns the tag as written at line:col, such as "!!str", or "" when
// no tag starts there.
func (ix *lineIndex) tagAt(line, col int) string {
	off := ix.offset(line, col)
	if off < 0 || ix.src[off] != '!' {
		return ""
	}
	end := off + 1
	if end < len(ix.src) && ix.src[end] == '<' {
		for end < len(ix.src) && ix.src[end] != '>' && ix.src[end] != '\n' && ix.src[end] != '\r' {
			end++
		}
		if end < len(ix.src) && ix.src[end] == '>' {
			end++
		}
		return string(ix.src[off:end])
	}
	for end < len(ix.src) {
		switch ix.src[end] {
		case ' ', '\t', '\r', '\n', ',', '[', ']', '{', '}':
			return string(ix.src[off:end])
		}
		end++
	}
	return string(ix.src[off:end])
}

// firstInvalidUTF8 returns the 1-based line and code-point column of the
// first byte that is not valid UTF-8 (lines split at LF).
func firstInvalidUTF8(src []byte) (Pos, bool) {
	line, col := 1, 1
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size == 1 {
			return Pos{line, col}, true
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return Pos{}, false
}
