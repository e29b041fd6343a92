package forge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
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

// arrayIndex reports whether k is a canonical array index ("0" or [1-9][0-9]* below 2^32-1).
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

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 512

// ErrTooDeep is returned by ParseJSON for nesting deeper than 512 levels.
var ErrTooDeep = errors.New("JSON nesting deeper than 512 levels")

// ParseJSON decodes exactly one JSON value as ECMAScript JSON.parse does: objects become *Object
// (duplicate keys: last value at the first key's position), arrays []any, strings string,
// numbers float64 (out-of-range magnitudes become ±Inf, which encode as null), booleans bool and
// null nil. The error text is Go's encoding/json message, which §1.4 rule 0b quotes.
func ParseJSON(data []byte) (any, error) {
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, ErrTooDeep
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key is not a string")
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, err
		}
		return f, nil
	case string, bool, nil:
		return t, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
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
	if depth > maxDepth {
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
// only for magnitudes >= 1e21 or < 1e-6, -0 as "0". Infinities and NaN (JSON.stringify writes
// them as null) return "null"; String(Infinity) would be "Infinity", see jsNumberString.
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
