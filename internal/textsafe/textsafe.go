// Package textsafe escapes untrusted text before it reaches a terminal or a text artifact, as
// spec-and-lifecycle.md §7.1 requires, and beyond that list every character a reader cannot see
// or tell from another, so that "READ\u200BME.md" never prints as README.md. Invalid UTF-8 bytes
// become `\xHH`.
package textsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"
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

// PrintableASCII reports whether s holds only printable ASCII (0x20 to 0x7e), which Escape
// leaves as it is; a caller holding bytes can test them without converting.
func PrintableASCII[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// Escape returns s with every rune for which NeedsEscape is true written as `\uXXXX`, and every
// invalid UTF-8 byte written as `\xHH`. A string with nothing to escape is returned unchanged.
func Escape(s string) string {
	if PrintableASCII(s) {
		return s // the common path needs no rune decoding
	}
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

// EscapeJSON rewrites encoded JSON so that every rune NeedsEscape reports and encoding/json
// leaves raw becomes a JSON \u escape. The value is unchanged for a consumer; only its bytes
// become safe to show on a terminal.
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
	b := make([]byte, 0, len(js)+64)
	for i := 0; i < len(js); {
		r, n := utf8.DecodeRune(js[i:])
		if r >= 0x7f && NeedsEscape(r) {
			b = appendJSONEscape(b, r)
		} else {
			b = append(b, js[i:i+n]...)
		}
		i += n
	}
	return b
}

// appendJSONEscape appends r as a JSON escape: `\uXXXX` with uppercase hex digits, or for a rune
// beyond U+FFFF its UTF-16 surrogate pair (RFC 8259 §7), so the decoded value stays r.
func appendJSONEscape(b []byte, r rune) []byte {
	const hex = "0123456789ABCDEF"
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		return appendJSONEscape(appendJSONEscape(b, hi), lo)
	}
	return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// JSONWriter is EscapeJSON as a stream: the bytes written to it reach the underlying writer with
// the same escapes EscapeJSON would apply to their concatenation. A rune split across two Writes
// is held (at most 3 bytes) until its end arrives; Flush writes a held incomplete rune as is, as
// EscapeJSON does with invalid UTF-8. A JSONWriter is not safe for concurrent use.
type JSONWriter struct {
	w    io.Writer
	held [utf8.UTFMax]byte
	nh   int
	esc  [12]byte
}

// NewJSONWriter returns a JSONWriter that writes to w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

// Write escapes p and writes it on; it returns len(p) unless the underlying writer fails, and
// then the first error of the underlying writer.
func (j *JSONWriter) Write(p []byte) (int, error) {
	n := len(p)
	if j.nh > 0 {
		// Decode the held bytes followed by the start of p; the held bytes may also turn out to
		// be invalid UTF-8, each then written as is (as EscapeJSON does).
		var b [2 * utf8.UTFMax]byte
		held := j.nh
		k := copy(b[:], j.held[:held])
		k += copy(b[k:], p)
		i := 0
		for i < held {
			if !utf8.FullRune(b[i:k]) {
				// b holds all of p, and the rune is still incomplete.
				j.nh = copy(j.held[:], b[i:k])
				return n, nil
			}
			r, size := utf8.DecodeRune(b[i:k])
			if err := j.rune(r, b[i:i+size]); err != nil {
				j.nh = 0
				return 0, err
			}
			i += size
		}
		p = p[i-held:]
		j.nh = 0
	}
	start := 0
	for i := 0; i < len(p); {
		if p[i] < 0x7f {
			i++
			continue
		}
		if !utf8.FullRune(p[i:]) {
			if _, err := j.w.Write(p[start:i]); err != nil {
				return 0, err
			}
			j.nh = copy(j.held[:], p[i:])
			return n, nil
		}
		r, size := utf8.DecodeRune(p[i:])
		if NeedsEscape(r) {
			if _, err := j.w.Write(p[start:i]); err != nil {
				return 0, err
			}
			if err := j.rune(r, nil); err != nil {
				return 0, err
			}
			start = i + size
		}
		i += size
	}
	if start < len(p) {
		if _, err := j.w.Write(p[start:]); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// rune writes r escaped when it needs it, else its bytes raw.
func (j *JSONWriter) rune(r rune, raw []byte) error {
	if r >= 0x7f && NeedsEscape(r) {
		_, err := j.w.Write(appendJSONEscape(j.esc[:0], r))
		return err
	}
	_, err := j.w.Write(raw)
	return err
}

// Flush writes a held incomplete rune as is. It does not flush the underlying writer.
func (j *JSONWriter) Flush() error {
	if j.nh == 0 {
		return nil
	}
	_, err := j.w.Write(j.held[:j.nh])
	j.nh = 0
	return err
}
