package report

import (
	"fmt"
	"strings"
	"unicode"
)

// invisible reports whether r is a character a reader cannot see or tell from another in a
// message: a format character (Cf: zero-width space and joiners, word joiner, soft hyphen, the
// byte-order mark, bidi marks), a line or paragraph separator (Zl, Zp), or a space other than
// U+0020 (Zs: no-break space, ideographic space, …). A field named "status\u200b" must not print
// as "status".
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) || (r != ' ' && unicode.Is(unicode.Zs, r))
}

// escapeInvisible writes every invisible character of s as \uXXXX (textsafe already escapes
// controls and bidi characters; this covers the rest of what hides in a field name or path).
func escapeInvisible(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii || strings.IndexFunc(s, invisible) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if invisible(r) {
			fmt.Fprintf(&b, `\u%04X`, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
