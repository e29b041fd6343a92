// Package textsafe escapes untrusted text before it reaches a terminal or a text artifact, as
// spec-and-lifecycle.md §7.1 ("Terminal safety") requires: C0 controls, DEL, C1 controls and the
// bidi controls U+061C, U+200E, U+200F, U+202A–U+202E and U+2066–U+2069 become `\u` plus four
// uppercase hex digits. Beyond the design's list, every other character a reader cannot see or
// tell from another is escaped the same way (format characters such as U+200B and U+FEFF, line
// and paragraph separators, spaces other than U+0020), so "READ\u200BME.md" never prints as
// README.md (docs/hardening.md). Invalid UTF-8 bytes become `\xHH`. Everything else is kept.
package textsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NeedsEscape reports whether r must be escaped in text output.
func NeedsEscape(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f,
		r >= 0x202a && r <= 0x202e,
		r >= 0x2066 && r <= 0x2069:
		return true
	case r < 0x80:
		return false
	}
	// Invisible: format characters (Cf), line and paragraph separators, non-ASCII spaces.
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Zs)
}

// Escape returns s with every rune for which NeedsEscape is true written as `\uXXXX`, and every
// invalid UTF-8 byte written as `\xHH`. A string with nothing to escape is returned unchanged.
func Escape(s string) string {
	clean := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || NeedsEscape(r) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02X`, s[i])
		case NeedsEscape(r):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// EscapeJSON rewrites encoded JSON so that every rune for which NeedsEscape is true and that
// encoding/json leaves raw (DEL, C1 controls, bidi controls) becomes a JSON `\uXXXX` escape. The
// JSON value is unchanged for a consumer; only its bytes become safe to show on a terminal
// (spec-and-lifecycle.md §7.1: "In the JSON block the same characters are written as JSON \u
// escapes"). Such runes can only occur inside JSON strings, where the escape is valid.
func EscapeJSON(js []byte) []byte {
	need := false
	for i := 0; i < len(js); {
		r, n := utf8.DecodeRune(js[i:])
		if r >= 0x7f && NeedsEscape(r) {
			need = true
			break
		}
		i += n
	}
	if !need {
		return js
	}
	var b strings.Builder
	for i := 0; i < len(js); {
		r, n := utf8.DecodeRune(js[i:])
		if r >= 0x7f && NeedsEscape(r) {
			fmt.Fprintf(&b, `\u%04X`, r)
		} else {
			b.Write(js[i : i+n])
		}
		i += n
	}
	return []byte(b.String())
}
