package jsonstrict

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Any converts v to the encoding/json generic form: map[string]any, []any, json.Number (the
// literal), string, bool or nil, as a JSON Schema validator consumes it.
func (v *Value) Any() any {
	switch v.Kind {
	case KindBool:
		return v.Bool
	case KindNumber:
		return json.Number(v.Number)
	case KindString:
		return v.String
	case KindArray:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			out[i] = it.Any()
		}
		return out
	case KindObject:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			out[m.Name] = m.Value.Any()
		}
		return out
	}
	return nil
}

// Indent returns v as JSON with 2-space indentation and a trailing newline: members in source
// order, numbers as their literals, strings escaped only where JSON requires.
func (v *Value) Indent() []byte {
	var b bytes.Buffer
	writeValue(&b, v, "\n")
	b.WriteByte('\n')
	return b.Bytes()
}

// MarshalJSON writes v as compact JSON, as Indent does without white space.
func (v *Value) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	writeValue(&b, v, "")
	return b.Bytes(), nil
}

// Compact returns v as compact JSON text (MarshalJSON).
func (v *Value) Compact() string {
	b, _ := v.MarshalJSON()
	return string(b)
}

// writeValue renders v; nl is "" for compact output, otherwise "\n" plus the current indentation.
func writeValue(b *bytes.Buffer, v *Value, nl string) {
	inner := nl
	if nl != "" {
		inner = nl + "  "
	}
	sep := ":"
	if nl != "" {
		sep = ": "
	}
	switch v.Kind {
	case KindNull:
		b.WriteString("null")
	case KindBool:
		b.WriteString(strconv.FormatBool(v.Bool))
	case KindNumber:
		b.WriteString(v.Number)
	case KindString:
		writeString(b, v.String)
	case KindArray:
		if len(v.Items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(inner)
			writeValue(b, it, inner)
		}
		b.WriteString(nl)
		b.WriteByte(']')
	case KindObject:
		if len(v.Members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(inner)
			writeString(b, m.Name)
			b.WriteString(sep)
			writeValue(b, m.Value, inner)
		}
		b.WriteString(nl)
		b.WriteByte('}')
	}
}

// writeString writes s as a JSON string, escaping only the quote, the backslash and control
// characters; invalid UTF-8 becomes U+FFFD as encoding/json does.
func writeString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c == '\b':
				b.WriteString(`\b`)
			case c == '\f':
				b.WriteString(`\f`)
			case c < 0x20:
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(`\ufffd`)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}
