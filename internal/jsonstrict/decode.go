package jsonstrict

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
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

// Value is one decoded JSON value. Exactly one payload field is meaningful per Kind.
type Value struct {
	Kind    Kind
	Offset  int64    // byte offset in the decoded text of the value's first byte
	Bool    bool     // KindBool
	Number  string   // KindNumber: the literal as written, e.g. "1.0" or "1e400"
	String  string   // KindString: the decoded string
	Items   []*Value // KindArray, never nil
	Members []Member // KindObject, in source order, names unique; never nil
}

// Member is one name/value pair of a JSON object.
type Member struct {
	Name   string
	Offset int64 // byte offset of the name's opening quote
	Value  *Value
}

// Get returns the value of the member name of an object.
func (v *Value) Get(name string) (*Value, bool) {
	if v == nil || v.Kind != KindObject {
		return nil, false
	}
	for _, m := range v.Members {
		if m.Name == name {
			return m.Value, true
		}
	}
	return nil, false
}

// Options adjust Decode. The zero value is the strictest form.
type Options struct {
	// MaxDepth is the deepest nesting of arrays and objects allowed, the root container being depth
	// 1; 0 means no limit beyond the tokenizer's own 10000.
	MaxDepth int
	// AllowInvalidUTF8 accepts invalid UTF-8 and lone surrogate escapes inside strings, each
	// decoded as U+FFFD, as encoding/json does.
	AllowInvalidUTF8 bool
}

// DuplicateKeyError is an object that names the same member twice. Names are compared after
// unescaping, so "a" and "\u0061" are the same name.
type DuplicateKeyError struct {
	Name        string
	Pointer     string // RFC 6901 pointer of the repeated member
	Offset      int64  // byte offset of the repeated name's opening quote
	FirstOffset int64  // byte offset of the first occurrence's opening quote
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("duplicate object key %s at byte offset %d (first at byte offset %d)",
		strconv.Quote(e.Name), e.Offset, e.FirstOffset)
}

// DepthError is nesting deeper than Options.MaxDepth.
type DepthError struct {
	Max     int
	Pointer string // RFC 6901 pointer of the container that is one level too deep
	Offset  int64  // byte offset of its opening bracket
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("nesting deeper than %d levels at byte offset %d", e.Max, e.Offset)
}

// SyntaxError is text that is not one JSON value. Offset is the byte offset at or after which
// the text stops being valid; Err is the tokenizer's error.
type SyntaxError struct {
	Offset int64
	Err    error
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte offset %d: %v", e.Offset, e.Err)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// Decode parses data as exactly one JSON value. Errors are *SyntaxError, *DuplicateKeyError or
// *DepthError; the first problem in source order wins. Whitespace around the value is allowed; a
// byte-order mark is not.
func Decode(data []byte, opts Options) (*Value, error) {
	d := &decoder{
		dec: jsontext.NewDecoder(bytes.NewReader(data),
			jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(opts.AllowInvalidUTF8)),
		max:          opts.MaxDepth,
		allowInvalid: opts.AllowInvalidUTF8,
	}
	v, err := d.value("", 0)
	if err != nil {
		return nil, err
	}
	end := d.dec.InputOffset()
	if _, err := d.dec.ReadToken(); !errors.Is(err, io.EOF) {
		for end < int64(len(data)) && isSpace(data[end]) {
			end++
		}
		return nil, &SyntaxError{Offset: end, Err: errors.New("invalid character after top-level value")}
	}
	return v, nil
}

// Stream decodes a sequence of JSON values from r, separated by white space as in JSON Lines,
// each by the rules of Decode, so that a long sequence is read with one small buffer.
type Stream struct{ d *decoder }

// NewStream returns a Stream reading from r.
func NewStream(r io.Reader, opts Options) *Stream {
	return &Stream{d: &decoder{
		dec: jsontext.NewDecoder(r,
			jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(opts.AllowInvalidUTF8)),
		max:          opts.MaxDepth,
		allowInvalid: opts.AllowInvalidUTF8,
	}}
}

// Next returns the next value of the sequence, or io.EOF after the last one. Offsets count from
// the start of the sequence.
func (s *Stream) Next() (*Value, error) {
	if s.d.dec.PeekKind() == 0 {
		if _, err := s.d.dec.ReadToken(); !errors.Is(err, io.EOF) {
			return nil, s.d.syntax(err)
		}
		return nil, io.EOF
	}
	return s.d.value("", 0)
}

type decoder struct {
	dec          *jsontext.Decoder
	max          int
	allowInvalid bool
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (d *decoder) syntax(err error) error {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return &SyntaxError{Offset: se.ByteOffset, Err: se.Err}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &SyntaxError{Offset: d.dec.InputOffset(), Err: io.ErrUnexpectedEOF}
	}
	return &SyntaxError{Offset: d.dec.InputOffset(), Err: err}
}

// value decodes the value at ptr; depth is the number of containers around it.
func (d *decoder) value(ptr string, depth int) (*Value, error) {
	switch d.dec.PeekKind() {
	case '{', '[':
		tok, err := d.dec.ReadToken()
		if err != nil {
			return nil, d.syntax(err)
		}
		off := d.dec.InputOffset() - 1
		if d.max > 0 && depth+1 > d.max {
			return nil, &DepthError{Max: d.max, Pointer: ptr, Offset: off}
		}
		if tok.Kind() == '[' {
			return d.array(ptr, depth+1, off)
		}
		return d.object(ptr, depth+1, off)
	}
	raw, err := d.dec.ReadValue()
	if err != nil {
		return nil, d.syntax(err)
	}
	v := &Value{Offset: d.dec.InputOffset() - int64(len(raw))}
	switch raw.Kind() {
	case 'n':
		v.Kind = KindNull
	case 't', 'f':
		v.Kind, v.Bool = KindBool, raw.Kind() == 't'
	case '0':
		v.Kind, v.Number = KindNumber, string(raw)
	case '"':
		s, err := jsontext.AppendUnquote(nil, raw)
		if err != nil && !d.allowInvalid {
			return nil, &SyntaxError{Offset: v.Offset, Err: err}
		}
		v.Kind, v.String = KindString, string(s)
	}
	return v, nil
}

func (d *decoder) array(ptr string, depth int, off int64) (*Value, error) {
	v := &Value{Kind: KindArray, Offset: off, Items: []*Value{}}
	for d.dec.PeekKind() != ']' {
		item, err := d.value(jsonptr.AppendIndex(ptr, len(v.Items)), depth)
		if err != nil {
			return nil, err
		}
		v.Items = append(v.Items, item)
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, d.syntax(err)
	}
	return v, nil
}

func (d *decoder) object(ptr string, depth int, off int64) (*Value, error) {
	v := &Value{Kind: KindObject, Offset: off, Members: []Member{}}
	first := map[string]int64{}
	for d.dec.PeekKind() != '}' {
		raw, err := d.dec.ReadValue()
		if err != nil {
			return nil, d.syntax(err)
		}
		noff := d.dec.InputOffset() - int64(len(raw))
		nb, err := jsontext.AppendUnquote(nil, raw)
		if err != nil && !d.allowInvalid {
			return nil, &SyntaxError{Offset: noff, Err: err}
		}
		name := string(nb)
		mptr := jsonptr.Append(ptr, name)
		if f, dup := first[name]; dup {
			return nil, &DuplicateKeyError{Name: name, Pointer: mptr, Offset: noff, FirstOffset: f}
		}
		first[name] = noff
		mv, err := d.value(mptr, depth)
		if err != nil {
			return nil, err
		}
		v.Members = append(v.Members, Member{Name: name, Offset: noff, Value: mv})
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, d.syntax(err)
	}
	return v, nil
}
