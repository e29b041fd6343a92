package render

import (
	"unicode/utf16"
	"unicode/utf8"
)

// unitColumns converts a finding's code-point column on line to the columns rdjson and SARIF
// count: UTF-8 bytes (reviewdog's Position.column) and UTF-16 code units (SARIF's default
// columnKind). Column 1 needs no line. ok is false when the line is unknown or shorter than the
// column, so the caller leaves the column out rather than guess it.
func unitColumns(line string, known bool, col int) (bytes, units int, ok bool) {
	if col == 1 {
		return 1, 1, true
	}
	if !known || col < 1 {
		return 0, 0, false
	}
	bytes, units = 1, 1
	for n := 1; n < col; n++ {
		if line == "" {
			return 0, 0, false
		}
		r, size := utf8.DecodeRuneInString(line)
		line = line[size:]
		bytes += size
		if r == utf8.RuneError && size == 1 {
			units++
		} else {
			units += utf16.RuneLen(r)
		}
	}
	return bytes, units, true
}

// columns returns the UTF-8 and UTF-16 columns of loc (unitColumns), reading its line through
// s.Lines.
func (s FindingSet) columns(loc Location) (bytes, units int, ok bool) {
	if loc.Line <= 0 || loc.Column <= 0 {
		return 0, 0, false
	}
	var line string
	known := false
	if s.Lines != nil && loc.Column > 1 {
		line, known = s.Lines(loc.Path, loc.Line)
	}
	return unitColumns(line, known, loc.Column)
}
