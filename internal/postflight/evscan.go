package postflight

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// evScanner reads the evidence JSON of audit.md value by value from a reader, scanning bytes in
// bulk: a value is either skipped (only its extent is found) or returned whole for
// encoding/json (or the plain-string fast path) to decode, so that a 175 MB evidence block is
// read with one small buffer (gitscope.md §8.1 scenario B). It checks the structure it walks
// (strings, brackets, separators); the values it returns are validated by their decoder, the
// values it skips only by that structure — a repeated post-flight uses an audit.md only when it
// is the one the controller wrote (its hash), which is valid JSON throughout.
type evScanner struct {
	r        io.Reader
	buf      []byte
	pos, end int
	err      error  // the reader's error, once buf is drained
	val      []byte // the value being returned
}

func newEvScanner(r io.Reader) *evScanner {
	return &evScanner{r: r, buf: make([]byte, 64<<10)}
}

// fill reads more input into an empty buffer; false at the end of the input or on an error
// (s.err).
func (s *evScanner) fill() bool {
	if s.pos < s.end {
		return true
	}
	for s.err == nil {
		n, err := s.r.Read(s.buf)
		s.pos, s.end, s.err = 0, n, err
		if n > 0 {
			return true
		}
	}
	return false
}

// unexpectedEnd is the error of input that ends (or fails) inside the JSON.
func (s *evScanner) unexpectedEnd() error {
	if s.err != nil && s.err != io.EOF {
		return s.err
	}
	return io.ErrUnexpectedEOF
}

// next skips whitespace and returns the next byte without consuming it; ok is false at the end
// of the input.
func (s *evScanner) next() (byte, bool) {
	for s.fill() {
		for ; s.pos < s.end; s.pos++ {
			switch c := s.buf[s.pos]; c {
			case ' ', '\n', '\t', '\r':
			default:
				return c, true
			}
		}
	}
	return 0, false
}

// expect consumes the byte c after whitespace.
func (s *evScanner) expect(c byte) error {
	b, ok := s.next()
	if !ok {
		return s.unexpectedEnd()
	}
	if b != c {
		return fmt.Errorf("evidence JSON: expected %q, found %q", c, b)
	}
	s.pos++
	return nil
}

// finish requires the rest of the input to be whitespace.
func (s *evScanner) finish() error {
	if _, ok := s.next(); ok {
		return errors.New("data after the evidence JSON")
	}
	if s.err != io.EOF {
		return s.err
	}
	return nil
}

// value reads the next JSON value after whitespace. With keep it returns the value's bytes
// (valid until the next call), otherwise nil.
func (s *evScanner) value(keep bool) ([]byte, error) {
	s.val = s.val[:0]
	c, ok := s.next()
	if !ok {
		return nil, s.unexpectedEnd()
	}
	depth := 0
	inString, escaped := false, false
	switch c {
	case '"':
	case '{', '[':
	default:
		// A number or literal: up to the next delimiter.
		if c == ',' || c == ':' || c == '}' || c == ']' {
			return nil, fmt.Errorf("evidence JSON: unexpected %q", c)
		}
		for s.fill() {
			i := s.pos
			for ; i < s.end; i++ {
				switch s.buf[i] {
				case ',', '}', ']', ' ', '\n', '\t', '\r', ':':
					s.take(i, keep)
					return s.val, nil
				}
			}
			s.take(i, keep)
		}
		if s.err != io.EOF {
			return nil, s.err
		}
		return s.val, nil
	}
	for s.fill() {
		i := s.pos
		for ; i < s.end; i++ {
			b := s.buf[i]
			if inString {
				switch {
				case escaped:
					escaped = false
				case b == '\\':
					escaped = true
				case b == '"':
					inString = false
					if depth == 0 {
						s.take(i+1, keep)
						return s.val, nil
					}
				}
				continue
			}
			switch b {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.take(i+1, keep)
					return s.val, nil
				}
			}
		}
		s.take(i, keep)
	}
	return nil, s.unexpectedEnd()
}

// take consumes the buffer up to i, keeping the bytes in val with keep.
func (s *evScanner) take(i int, keep bool) {
	if keep {
		s.val = append(s.val, s.buf[s.pos:i]...)
	}
	s.pos = i
}

// key reads an object key and the colon after it. A key with escapes is returned as written
// (no key the evidence needs has any).
func (s *evScanner) key() (string, error) {
	if c, ok := s.next(); !ok {
		return "", s.unexpectedEnd()
	} else if c != '"' {
		return "", fmt.Errorf("evidence JSON: expected a key, found %q", c)
	}
	v, err := s.value(true)
	if err != nil {
		return "", err
	}
	k := string(v[1 : len(v)-1])
	return k, s.expect(':')
}

// more reports whether the object or array continues (consuming the comma) or ends (consuming
// close).
func (s *evScanner) more(close byte, first bool) (bool, error) {
	c, ok := s.next()
	if !ok {
		return false, s.unexpectedEnd()
	}
	switch {
	case c == close:
		s.pos++
		return false, nil
	case first:
		return true, nil
	case c == ',':
		s.pos++
		return true, nil
	}
	return false, fmt.Errorf("evidence JSON: expected ',' or %q, found %q", close, c)
}

// isNull reports whether v is the literal null.
func isNull(v []byte) bool { return bytes.Equal(v, []byte("null")) }
