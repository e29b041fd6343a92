package filter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
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
// JSON (the encoding/json message), a duplicate object key, or nesting deeper than MaxDepth.
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
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, data, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &SyntaxError{Msg: "invalid character after top-level value", Offset: dec.InputOffset()}
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, data []byte, depth int) (*Value, error) {
	off := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, &SyntaxError{Msg: err.Error(), Offset: off}
	}
	switch t := tok.(type) {
	case nil:
		return &Value{Kind: KindNull}, nil
	case bool:
		return &Value{Kind: KindBool, Bool: t}, nil
	case json.Number:
		return &Value{Kind: KindNumber, Num: t}, nil
	case string:
		return &Value{Kind: KindString, Str: t}, nil
	case json.Delim:
		if depth >= MaxDepth {
			return nil, &SyntaxError{Msg: fmt.Sprintf("nesting deeper than %d levels", MaxDepth), Offset: off}
		}
		if t == '[' {
			v := &Value{Kind: KindArray, Items: []*Value{}}
			for dec.More() {
				item, err := decodeValue(dec, data, depth+1)
				if err != nil {
					return nil, err
				}
				v.Items = append(v.Items, item)
			}
			_, _ = dec.Token() // ']'
			return v, nil
		}
		v := &Value{Kind: KindObject, Members: []Member{}}
		seen := map[string]bool{}
		for dec.More() {
			koff := dec.InputOffset()
			kt, err := dec.Token()
			if err != nil {
				return nil, &SyntaxError{Msg: err.Error(), Offset: koff}
			}
			key, _ := kt.(string)
			if seen[key] {
				return nil, &SyntaxError{Msg: fmt.Sprintf("duplicate object key %s", strconv.Quote(key)), Offset: keyStart(data, dec.InputOffset()) + 1}
			}
			seen[key] = true
			val, err := decodeValue(dec, data, depth+1)
			if err != nil {
				return nil, err
			}
			v.Members = append(v.Members, Member{Key: key, Value: val})
		}
		_, _ = dec.Token() // '}'
		return v, nil
	}
	return nil, &SyntaxError{Msg: fmt.Sprintf("unexpected token %v", tok), Offset: off}
}

// keyStart finds the opening quote of the string token that ends just before offset end.
func keyStart(data []byte, end int64) int64 {
	for i := end - 2; i >= 0 && i < int64(len(data)); i-- {
		if data[i] != '"' {
			continue
		}
		bs := 0
		for j := i - 1; j >= 0 && data[j] == '\\'; j-- {
			bs++
		}
		if bs%2 == 0 {
			return i
		}
	}
	return 0
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
