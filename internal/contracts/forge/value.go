package forge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Object is a JSON object that keeps its keys in the order ECMAScript JSON.parse stores them:
// keys that are canonical array indices first in numeric order, then the other keys in first
// insertion order. A duplicate key keeps its first position and takes the last value (§1.3).
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty Object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Set stores v under k, keeping k's position when it is already present.
func (o *Object) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Get returns the value under k and whether k is present.
func (o *Object) Get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// Delete removes k.
func (o *Object) Delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, kk := range o.keys {
		if kk == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// Len returns the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// Keys returns the keys in ECMAScript property order: canonical array indices ascending, then
// the other keys in insertion order.
func (o *Object) Keys() []string {
	var idx []string
	var rest []string
	for _, k := range o.keys {
		if _, ok := arrayIndex(k); ok {
			idx = append(idx, k)
		} else {
			rest = append(rest, k)
		}
	}
	if len(idx) > 1 {
		sortIndexKeys(idx)
	}
	return append(idx, rest...)
}

// arrayIndex reports whether k is a canonical array index: "0", or [1-9][0-9]* below 2^32-1.
func arrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(k, 10, 64)
	if err != nil || n >= math.MaxUint32 {
		return 0, false
	}
	return n, true
}

func sortIndexKeys(keys []string) {
	// insertion sort: index keys are few
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0; j-- {
			a, _ := arrayIndex(keys[j-1])
			b, _ := arrayIndex(keys[j])
			if a <= b {
				break
			}
			keys[j-1], keys[j] = keys[j], keys[j-1]
		}
	}
}

// MaxDepth is the deepest nesting of arrays and objects ParseJSON accepts, so that hostile input
// cannot exhaust the stack. encoding/json's own limit is never reached, so every deeper input
// gets the same message.
const MaxDepth = 512

// ErrTooDeep is returned by ParseJSON for nesting deeper than MaxDepth levels.
var ErrTooDeep = fmt.Errorf("JSON nesting is deeper than the limit of %d levels", MaxDepth)

// ParseJSON decodes exactly one JSON value as ECMAScript JSON.parse does (agent-contracts.md
// §1.9); an escaped lone surrogate is held as WTF-8 so that Stringify writes it back. Nesting
// deeper than MaxDepth is ErrTooDeep, and any other error text is encoding/json's, which §1.4
// rule 0b quotes.
func ParseJSON(data []byte) (any, error) {
	if tooDeep(data) {
		return nil, ErrTooDeep
	}
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	r := &jsonReader{data: data}
	v, err := r.value(0)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// tooDeep reports whether data opens more than MaxDepth arrays or objects at once, counting only
// brackets outside strings.
func tooDeep(data []byte) bool {
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > MaxDepth {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

// jsonReader builds values from JSON that encoding/json has already validated.
type jsonReader struct {
	data []byte
	pos  int
}

var errJSONShape = errors.New("invalid JSON")

func (r *jsonReader) skipSpace() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *jsonReader) value(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, ErrTooDeep
	}
	r.skipSpace()
	if r.pos >= len(r.data) {
		return nil, errJSONShape
	}
	switch c := r.data[r.pos]; c {
	case '{':
		r.pos++
		o := NewObject()
		r.skipSpace()
		if r.pos < len(r.data) && r.data[r.pos] == '}' {
			r.pos++
			return o, nil
		}
		for {
			r.skipSpace()
			k, err := r.str()
			if err != nil {
				return nil, err
			}
			r.skipSpace()
			if r.pos >= len(r.data) || r.data[r.pos] != ':' {
				return nil, errJSONShape
			}
			r.pos++
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			o.Set(k, v)
			r.skipSpace()
			if r.pos >= len(r.data) {
				return nil, errJSONShape
			}
			r.pos++
			switch r.data[r.pos-1] {
			case ',':
			case '}':
				return o, nil
			default:
				return nil, errJSONShape
			}
		}
	case '[':
		r.pos++
		arr := []any{}
		r.skipSpace()
		if r.pos < len(r.data) && r.data[r.pos] == ']' {
			r.pos++
			return arr, nil
		}
		for {
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
			r.skipSpace()
			if r.pos >= len(r.data) {
				return nil, errJSONShape
			}
			r.pos++
			switch r.data[r.pos-1] {
			case ',':
			case ']':
				return arr, nil
			default:
				return nil, errJSONShape
			}
		}
	case '"':
		return r.str()
	case 't':
		return true, r.literal("true")
	case 'f':
		return false, r.literal("false")
	case 'n':
		return nil, r.literal("null")
	default:
		start := r.pos
		for r.pos < len(r.data) && strings.IndexByte("+-0123456789.eE", r.data[r.pos]) >= 0 {
			r.pos++
		}
		f, err := strconv.ParseFloat(string(r.data[start:r.pos]), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, err
		}
		return f, nil
	}
}

func (r *jsonReader) literal(word string) error {
	if !bytes.HasPrefix(r.data[r.pos:], []byte(word)) {
		return errJSONShape
	}
	r.pos += len(word)
	return nil
}

// str reads a JSON string at r.pos. Escapes decode to UTF-16 code units as JSON.parse does; a
// high surrogate followed by a low one is one character, any other surrogate stays alone and is
// held as WTF-8.
func (r *jsonReader) str() (string, error) {
	if r.pos >= len(r.data) || r.data[r.pos] != '"' {
		return "", errJSONShape
	}
	r.pos++
	var b []byte
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		switch {
		case c == '"':
			r.pos++
			return string(b), nil
		case c == '\\':
			if r.pos+1 >= len(r.data) {
				return "", errJSONShape
			}
			e := r.data[r.pos+1]
			r.pos += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				u, ok := r.hex4(r.pos)
				if !ok {
					return "", errJSONShape
				}
				r.pos += 4
				if utf16.IsSurrogate(rune(u)) && u < 0xDC00 && r.pos+1 < len(r.data) && r.data[r.pos] == '\\' && r.data[r.pos+1] == 'u' {
					if lo, ok := r.hex4(r.pos + 2); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						r.pos += 6
						b = utf8.AppendRune(b, utf16.DecodeRune(rune(u), rune(lo)))
						continue
					}
				}
				b = appendUnit(b, u)
			default:
				return "", errJSONShape
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			r.pos++
		default:
			ru, size := utf8.DecodeRune(r.data[r.pos:])
			if ru == utf8.RuneError && size == 1 {
				b = append(b, "\uFFFD"...)
			} else {
				b = append(b, r.data[r.pos:r.pos+size]...)
			}
			r.pos += size
		}
	}
	return "", errJSONShape
}

func (r *jsonReader) hex4(at int) (uint16, bool) {
	if at+4 > len(r.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(r.data[at:at+4]), 16, 16)
	return uint16(n), err == nil
}

// appendUnit appends one UTF-16 code unit: a surrogate as its WTF-8 bytes (ED A0–BF 80–BF), any
// other unit as UTF-8.
func appendUnit(b []byte, u uint16) []byte {
	if u >= 0xD800 && u <= 0xDFFF {
		return append(b, 0xED, 0xA0|byte(u>>6)&0x1F, 0x80|byte(u)&0x3F)
	}
	return utf8.AppendRune(b, rune(u))
}

// surrogateAt returns the UTF-16 surrogate held as WTF-8 at s[i:], if there is one.
func surrogateAt(s string, i int) (uint16, bool) {
	if i+2 >= len(s) || s[i] != 0xED || s[i+1] < 0xA0 || s[i+1] > 0xBF || s[i+2] < 0x80 || s[i+2] > 0xBF {
		return 0, false
	}
	return 0xD000 | uint16(s[i+1]&0x3F)<<6 | uint16(s[i+2]&0x3F), true
}

// WellFormed returns s with every lone surrogate and any other invalid byte replaced by U+FFFD,
// as ECMAScript's toWellFormed does: the UTF-8 form a parsed string takes in a message or a JSON
// envelope.
func WellFormed(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if _, ok := surrogateAt(s, i); ok {
			b.WriteRune(utf8.RuneError)
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

// utf16Units returns s as UTF-16 code units, as ECMAScript holds the string: WTF-8 surrogates are
// single units, other invalid bytes U+FFFD.
func utf16Units(s string) []uint16 {
	out := make([]uint16, 0, len(s))
	for i := 0; i < len(s); {
		if u, ok := surrogateAt(s, i); ok {
			out = append(out, u)
			i += 3
			continue
		}
		ru, size := utf8.DecodeRuneInString(s[i:])
		out = utf16.AppendRune(out, ru)
		i += size
	}
	return out
}

// jsString is ECMAScript String(v) for a parsed JSON value: null "null", arrays joined with ","
// where null elements become "", objects "[object Object]", numbers in Number-to-String form.
func jsString(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return t
	case bool:
		if t {
			return "true"
		}
		return "false"
	case float64:
		if math.IsInf(t, 1) {
			return "Infinity"
		} else if math.IsInf(t, -1) {
			return "-Infinity"
		}
		return formatNumber(t)
	case []any:
		return joinJS(t, ",", 0)
	case *Object:
		return "[object Object]"
	}
	return ""
}

// joinJS is Array.prototype.join: null elements are "", others String(element).
func joinJS(arr []any, sep string, depth int) string {
	if depth > MaxDepth {
		return ""
	}
	var b strings.Builder
	for i, e := range arr {
		if i > 0 {
			b.WriteString(sep)
		}
		switch t := e.(type) {
		case nil:
		case []any:
			b.WriteString(joinJS(t, ",", depth+1))
		default:
			b.WriteString(jsString(t))
		}
	}
	return b.String()
}

// formatNumber is ECMAScript Number::toString for a float64: shortest round trip, exponent form
// only for magnitudes >= 1e21 or < 1e-6, -0 as "0". Infinities and NaN return "null", as
// JSON.stringify writes them; jsNumberString is String's form.
func formatNumber(f float64) string {
	switch {
	case f == 0:
		return "0"
	case math.IsInf(f, 0) || math.IsNaN(f):
		return "null"
	}
	abs := math.Abs(f)
	if abs < 1e-6 || abs >= 1e21 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Go writes e-07 / e+21; ECMAScript writes e-7 / e+21.
		if i := strings.IndexByte(s, 'e'); i >= 0 && i+2 < len(s) {
			exp := strings.TrimLeft(s[i+2:], "0")
			if exp == "" {
				exp = "0"
			}
			s = s[:i+2] + exp
		}
		return s
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
