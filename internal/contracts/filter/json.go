package filter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/jsonstrict"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON value kinds.
const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

// MaxDepth is the deepest nesting of arrays and objects a return or schema may have; deeper
// input is malformed (the same limit as yamlstrict.DecodeJSON).
const MaxDepth = 64

// Value is one JSON value that keeps what encoding/json forgets: object members stay in source
// order and numbers keep their literal text. Exactly one payload field is meaningful per Kind.
type Value struct {
	Kind    Kind
	Bool    bool
	Num     json.Number // the literal as written, for KindNumber
	Str     string      // the decoded string, for KindString
	Items   []*Value    // KindArray
	Members []Member    // KindObject, in source order; keys are unique
}

// Member is one key/value pair of a JSON object.
type Member struct {
	Key   string
	Value *Value
}

// Get returns the member value for key.
func (v *Value) Get(key string) (*Value, bool) {
	if v == nil || v.Kind != KindObject {
		return nil, false
	}
	for _, m := range v.Members {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// SyntaxError is a JSON text that does not parse. Offset is the byte offset in the parsed text
// where the decoder stopped.
type SyntaxError struct {
	Msg    string
	Offset int64
}

func (e *SyntaxError) Error() string { return e.Msg }

// ParseJSON parses exactly one RFC 8259 JSON value. It fails with a *SyntaxError for invalid
// JSON (the encoding/json message, agent-contracts.md §2.4), a duplicate object key, or nesting
// deeper than MaxDepth (both found by internal/jsonstrict). Invalid UTF-8 inside strings becomes
// U+FFFD, as encoding/json does; the raw return was checked for UTF-8 before.
func ParseJSON(data []byte) (*Value, error) {
	if !json.Valid(data) {
		var x any
		err := json.Unmarshal(data, &x)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &SyntaxError{Msg: se.Error(), Offset: se.Offset}
		}
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, &SyntaxError{Msg: err.Error()}
	}
	v, err := jsonstrict.Decode(data, jsonstrict.Options{MaxDepth: MaxDepth, AllowInvalidUTF8: true})
	// Offsets follow encoding/json's convention: the offset just after the offending byte.
	var de *jsonstrict.DuplicateKeyError
	var xe *jsonstrict.DepthError
	switch {
	case errors.As(err, &de):
		return nil, &SyntaxError{Msg: "duplicate object key " + strconv.Quote(de.Name), Offset: de.Offset + 1}
	case errors.As(err, &xe):
		return nil, &SyntaxError{Msg: fmt.Sprintf("nesting deeper than %d levels", MaxDepth), Offset: xe.Offset + 1}
	case err != nil:
		return nil, &SyntaxError{Msg: err.Error()}
	}
	return fromStrict(v), nil
}

// fromStrict converts a decoded tree to a Value.
func fromStrict(v *jsonstrict.Value) *Value {
	switch v.Kind {
	case jsonstrict.KindBool:
		return &Value{Kind: KindBool, Bool: v.Bool}
	case jsonstrict.KindNumber:
		return &Value{Kind: KindNumber, Num: json.Number(v.Number)}
	case jsonstrict.KindString:
		return &Value{Kind: KindString, Str: v.String}
	case jsonstrict.KindArray:
		out := &Value{Kind: KindArray, Items: make([]*Value, len(v.Items))}
		for i, it := range v.Items {
			out.Items[i] = fromStrict(it)
		}
		return out
	case jsonstrict.KindObject:
		out := &Value{Kind: KindObject, Members: make([]Member, len(v.Members))}
		for i, m := range v.Members {
			out.Members[i] = Member{Key: m.Name, Value: fromStrict(m.Value)}
		}
		return out
	}
	return &Value{Kind: KindNull}
}

// Any converts v to the encoding/json generic form (map[string]any, []any, json.Number, string,
// bool, nil) that the JSON Schema validator consumes.
func (v *Value) Any() any {
	switch v.Kind {
	case KindBool:
		return v.Bool
	case KindNumber:
		return v.Num
	case KindString:
		return v.Str
	case KindArray:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			out[i] = it.Any()
		}
		return out
	case KindObject:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			out[m.Key] = m.Value.Any()
		}
		return out
	}
	return nil
}

// Indent returns v as JSON with 2-space indentation and a trailing newline: keys in source order,
// numbers as their literals, no HTML escaping (agent-contracts.md §2.7 "Accepted").
func (v *Value) Indent() []byte {
	var b bytes.Buffer
	v.write(&b, "\n")
	b.WriteByte('\n')
	return b.Bytes()
}

// MarshalJSON writes v compactly with keys in source order and numbers as their literals.
func (v *Value) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	v.write(&b, "")
	return b.Bytes(), nil
}

// Compact returns v as compact JSON text.
func (v *Value) Compact() string {
	b, _ := v.MarshalJSON()
	return string(b)
}

// write renders v; nl is "" for compact output, otherwise "\n" plus the current indentation.
func (v *Value) write(b *bytes.Buffer, nl string) {
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
		b.WriteString(string(v.Num))
	case KindString:
		writeString(b, v.Str)
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
			it.write(b, inner)
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
			writeString(b, m.Key)
			b.WriteString(sep)
			m.Value.write(b, inner)
		}
		b.WriteString(nl)
		b.WriteByte('}')
	}
}

// writeString writes s as a JSON string, escaping only what JSON requires (", \ and control
// characters); invalid UTF-8 becomes U+FFFD as encoding/json does.
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

// typePhrase names v's JSON type with an article, for "wrong type: got <...>" and "got <...>".
func typePhrase(v *Value) string {
	switch v.Kind {
	case KindNull:
		return "null"
	case KindBool:
		return "a boolean"
	case KindNumber:
		return "a number"
	case KindString:
		return "a string"
	case KindArray:
		return "an array"
	}
	return "an object"
}

func jsonNumber(s string) json.Number { return json.Number(s) }
