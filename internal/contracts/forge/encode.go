package forge

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// Field is one top-level key of an event line, written in the given order.
type Field struct {
	Key   string
	Value any
}

// Stringify appends v serialised exactly as ECMAScript JSON.stringify does with no white space
// (§1.9), a lone surrogate held as WTF-8 written back as its escape. A stray invalid byte is
// U+FFFD.
func Stringify(dst []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		if t {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case float64:
		return append(dst, formatNumber(t)...)
	case int:
		return append(dst, formatNumber(float64(t))...)
	case int64:
		return append(dst, formatNumber(float64(t))...)
	case string:
		return appendString(dst, t)
	case []any:
		dst = append(dst, '[')
		for i, e := range t {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = Stringify(dst, e)
		}
		return append(dst, ']')
	case *Object:
		dst = append(dst, '{')
		for i, k := range t.Keys() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, k)
			dst = append(dst, ':')
			dst = Stringify(dst, t.vals[k])
		}
		return append(dst, '}')
	case []Field:
		dst = append(dst, '{')
		for i, f := range t {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, f.Key)
			dst = append(dst, ':')
			dst = Stringify(dst, f.Value)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

const hexDigits = "0123456789abcdef"

func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
				i += size - 1
				continue
			}
			// Not UTF-8: a surrogate held as WTF-8 (ParseJSON) or a stray byte.
			dst = append(dst, s[start:i]...)
			if hi, ok := surrogateAt(s, i); ok {
				if lo, ok := surrogateAt(s, i+3); ok && hi < 0xDC00 && lo >= 0xDC00 {
					// Two halves joined by concatenation are one character, as in ECMAScript.
					dst = utf8.AppendRune(dst, utf16.DecodeRune(rune(hi), rune(lo)))
					i += 5
				} else {
					// JSON.stringify writes a lone surrogate as a lowercase \u escape (ES2019).
					dst = append(dst, '\\', 'u', hexDigits[hi>>12], hexDigits[hi>>8&0xf], hexDigits[hi>>4&0xf], hexDigits[hi&0xf])
					i += 2
				}
			} else {
				dst = append(dst, "\uFFFD"...)
			}
			start = i + 1
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Canonical returns canonical(event) of §1.9: the event without entry_hash and prev_hash, its
// top-level keys ordered with canonical array indices first (numeric order) and the rest ascending
// by UTF-16 code units, serialised with Stringify.
func Canonical(event *Object) []byte {
	var idx, rest []string
	for _, k := range event.keys {
		if k == "entry_hash" || k == "prev_hash" {
			continue
		}
		if _, ok := arrayIndex(k); ok {
			idx = append(idx, k)
		} else {
			rest = append(rest, k)
		}
	}
	sortIndexKeys(idx)
	slices.SortFunc(rest, compareUTF16)
	fields := make([]Field, 0, len(idx)+len(rest))
	for _, k := range append(idx, rest...) {
		fields = append(fields, Field{k, event.vals[k]})
	}
	return Stringify(nil, fields)
}

// EntryHash returns the lowercase hex SHA-256 of canonical(event) + prevHash (§1.9).
func EntryHash(event *Object, prevHash string) string {
	sum := sha256.Sum256(append(Canonical(event), prevHash...))
	return hex.EncodeToString(sum[:])
}

// compareUTF16 orders strings by UTF-16 code units, as ECMAScript's default sort does.
func compareUTF16(a, b string) int {
	if isASCII(a) && isASCII(b) {
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	}
	return slices.Compare(utf16Units(a), utf16Units(b))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
