package forge

import "strings"

// isJSSpace reports whether r is white space under ECMAScript trim() (WhiteSpace and
// LineTerminator): tab, LF, VT, FF, CR, space, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029,
// U+202F, U+205F, U+3000 and U+FEFF (§1.4). Go's unicode.IsSpace differs (no U+FEFF, adds U+0085).
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// jsTrim is ECMAScript String.prototype.trim.
func jsTrim(s string) string { return strings.TrimFunc(s, isJSSpace) }

// isBlank reports whether s is empty after ECMAScript trim.
func isBlank(s string) bool { return jsTrim(s) == "" }

// jsSpaceClass is the ECMAScript \s class written out for RE2, whose \s is ASCII-only without VT.
const jsSpaceClass = `\t\n\x0B\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`
