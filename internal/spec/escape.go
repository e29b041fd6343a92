package spec

import (
	"fmt"
	"strings"
	"unicode"
)

// invisible reports whether r cannot be seen or told from another character in a message: a
// format character (Cf: zero-width space and joiners, soft hyphen, BOM, bidi marks), a line or
// paragraph separator (Zl, Zp), or a space other than U+0020 (Zs). A section named
// "Goals\u200b" must not print as "Goals" (docs/hardening.md).
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) || (r != ' ' && unicode.Is(unicode.Zs, r))
}

// escapeInvisible writes every invisible character of s as \uXXXX; control and bidi characters
// are escaped earlier by textsafe where messages quote input.
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
