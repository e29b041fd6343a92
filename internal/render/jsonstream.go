package render

import (
	"bufio"
	"bytes"
	"encoding"
	"encoding/json"
	"io"
	"iter"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// jsonStream writes a value as WriteJSON does, but element by element for every Array it reaches
// through structs, pointers and slices, so a large array is never held whole. A container it does
// not understand, such as a map, is left to encoding/json: the bytes are the same, only not
// streamed.
type jsonStream struct {
	out *bufio.Writer
	esc *textsafe.JSONWriter
	buf bytes.Buffer
	enc *json.Encoder
	err error
	// scratch holds the structural bytes put writes; fields is plainAudit's.
	scratch []byte
	fields  []finding.Field
}

// jsonIndent is the indentation of one nesting level, as WriteJSON has always written it.
const jsonIndent = "  "

func newJSONStream(w io.Writer) *jsonStream {
	s := &jsonStream{out: bufio.NewWriterSize(w, 64<<10)}
	s.esc = textsafe.NewJSONWriter(s.out)
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false)
	return s
}

// writeJSON writes v and a newline, then flushes.
func (s *jsonStream) writeJSON(v any) error {
	s.value(reflect.ValueOf(v), 0)
	s.put("\n")
	if s.err == nil {
		s.err = s.esc.Flush()
	}
	if s.err == nil {
		s.err = s.out.Flush()
	}
	return s.err
}

// put writes str through scratch, as the escaper has no WriteString.
func (s *jsonStream) put(str string) {
	if s.err == nil {
		s.scratch = append(s.scratch[:0], str...)
		_, s.err = s.esc.Write(s.scratch)
	}
}

func (s *jsonStream) newline(depth int) {
	s.put("\n")
	s.put(indent(depth))
}

// plainAudit writes the audit finding a as encoding/json would indent it depth levels deep, when
// every key and value is a plain string or an int; otherwise it writes nothing and returns false.
// Large audits then skip a marshal and re-indent per finding (gitscope.md §8.1 scenario B).
func (s *jsonStream) plainAudit(a finding.Audit, depth int) bool {
	f := finding.Finding(a)
	s.fields = append(append(s.fields[:0], finding.Field{Key: "kind", Value: f.Rule}, finding.Field{Key: "class", Value: string(f.Class)},
		finding.Field{Key: "message", Value: f.Text()}), f.Fields...)
	for _, fl := range s.fields {
		if !finding.PlainJSONString(fl.Key) {
			return false
		}
		switch v := fl.Value.(type) {
		case string:
			if !finding.PlainJSONString(v) {
				return false
			}
		case int:
		default:
			return false
		}
	}
	ind := indent(depth)
	b := append(s.scratch[:0], '{')
	for i, fl := range s.fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(append(append(b, '\n'), ind...), jsonIndent...), '"'), fl.Key...)
		b = append(b, '"', ':', ' ')
		switch v := fl.Value.(type) {
		case string:
			b = append(append(append(b, '"'), v...), '"')
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		}
	}
	b = append(append(append(b, '\n'), ind...), '}')
	s.scratch = b
	if s.err == nil {
		_, s.err = s.esc.Write(b)
	}
	return true
}

// spaces is the indentation of the first 32 levels, cut to length by indent.
const spaces = "                                                                "

// indent is the indentation depth levels deep.
func indent(depth int) string {
	if n := depth * len(jsonIndent); n <= len(spaces) {
		return spaces[:n]
	}
	return strings.Repeat(jsonIndent, depth)
}

// encode writes v as encoding/json writes it nested depth levels deep.
func (s *jsonStream) encode(v any, depth int) {
	if s.err != nil {
		return
	}
	switch a := v.(type) {
	case finding.Audit:
		if s.plainAudit(a, depth) {
			return
		}
	case *finding.Audit:
		if a != nil && s.plainAudit(*a, depth) {
			return
		}
	}
	s.buf.Reset()
	s.enc.SetIndent(indent(depth), jsonIndent)
	if s.err = s.enc.Encode(v); s.err != nil {
		return
	}
	_, s.err = s.esc.Write(bytes.TrimSuffix(s.buf.Bytes(), []byte("\n")))
}

func (s *jsonStream) value(v reflect.Value, depth int) {
	if s.err != nil {
		return
	}
	if !v.IsValid() {
		s.put("null")
		return
	}
	t := v.Type()
	if !streams(t) {
		// encoding/json calls a pointer-receiver MarshalJSON on a value reached through a
		// pointer; passing its address keeps that.
		if v.CanAddr() {
			s.encode(v.Addr().Interface(), depth)
		} else {
			s.encode(v.Interface(), depth)
		}
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			s.put("null")
			return
		}
		s.value(v.Elem(), depth)
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && v.IsNil() {
			s.put("null")
			return
		}
		s.elements(func(yield func(reflect.Value) bool) {
			for i := range v.Len() {
				if !yield(v.Index(i)) {
					return
				}
			}
		}, depth)
	case reflect.Struct:
		if t == arrayType {
			a := v.Interface().(Array)
			s.elements(func(yield func(reflect.Value) bool) {
				for x := range a.All() {
					if !yield(reflect.ValueOf(x)) {
						return
					}
				}
			}, depth)
			return
		}
		s.object(v, depth)
	}
}

func (s *jsonStream) elements(seq iter.Seq[reflect.Value], depth int) {
	n := 0
	for v := range seq {
		if n == 0 {
			s.put("[")
		} else {
			s.put(",")
		}
		n++
		s.newline(depth + 1)
		s.value(v, depth+1)
		if s.err != nil {
			return
		}
	}
	if n == 0 {
		s.put("[]")
		return
	}
	s.newline(depth)
	s.put("]")
}

func (s *jsonStream) object(v reflect.Value, depth int) {
	n := 0
	for _, f := range structFields(v.Type()).fields {
		fv := v.FieldByIndex(f.index)
		if f.omitEmpty && isEmptyValue(fv) {
			continue
		}
		if n == 0 {
			s.put("{")
		} else {
			s.put(",")
		}
		n++
		s.newline(depth + 1)
		s.put(f.key)
		s.put(": ")
		s.value(fv, depth+1)
	}
	if n == 0 {
		s.put("{}")
		return
	}
	s.newline(depth)
	s.put("}")
}

var (
	arrayType         = reflect.TypeFor[Array]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	streamsCache      sync.Map // reflect.Type → bool
	fieldsCache       sync.Map // reflect.Type → fieldList
)

// streams reports whether values of t are walked by jsonStream: t is Array, or a pointer, slice,
// array or struct of the supported kind that can hold one without an interface in between.
func streams(t reflect.Type) bool {
	if t == arrayType {
		return true
	}
	if b, ok := streamsCache.Load(t); ok {
		return b.(bool)
	}
	// A recursive type reads false for itself while its answer is computed: its inner
	// occurrences are then encoded by encoding/json, which is correct, only not streamed.
	streamsCache.Store(t, false)
	b := false
	if !t.Implements(marshalerType) && !t.Implements(textMarshalerType) &&
		!reflect.PointerTo(t).Implements(marshalerType) && !reflect.PointerTo(t).Implements(textMarshalerType) {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			b = streams(t.Elem())
		case reflect.Struct:
			fl := structFields(t)
			for _, f := range fl.fields {
				b = b || streams(f.typ)
			}
			b = b && fl.ok
		}
	}
	streamsCache.Store(t, b)
	return b
}

// field is one JSON object member of a struct type: its encoded key, the field's index path
// through embedded structs, its type, and whether omitempty is set.
type field struct {
	key       string
	index     []int
	typ       reflect.Type
	omitEmpty bool
}

// fieldList is the members of a struct type in encoding/json's order; ok is false when the type
// uses a feature jsonStream leaves to encoding/json.
type fieldList struct {
	fields []field
	ok     bool
}

func structFields(t reflect.Type) fieldList {
	if fl, ok := fieldsCache.Load(t); ok {
		return fl.(fieldList)
	}
	fl := fieldList{ok: true}
	collectFields(t, nil, &fl)
	seen := map[string]bool{}
	for _, f := range fl.fields {
		if seen[f.key] {
			fl.ok = false // encoding/json's dominance rules decide; leave it to encoding/json
		}
		seen[f.key] = true
	}
	fieldsCache.Store(t, fl)
	return fl
}

// collectFields appends the members of struct type t, depth first in declaration order, which is
// encoding/json's order when no two members share a name.
func collectFields(t reflect.Type, index []int, fl *fieldList) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, hasTag := sf.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		idx := append(append([]int(nil), index...), i)
		if sf.Anonymous {
			if !hasTag && sf.Type.Kind() == reflect.Struct && sf.IsExported() {
				collectFields(sf.Type, idx, fl)
				continue
			}
			if !sf.IsExported() && sf.Type.Kind() != reflect.Struct {
				continue // encoding/json ignores it
			}
			// An embedded pointer, an embedded field with a tag, or an unexported embedded
			// struct (reflect does not hand out its promoted fields' values).
			fl.ok = false
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if !plainKey(name) || (opts != "" && opts != "omitempty") {
			fl.ok = false
			continue
		}
		fl.fields = append(fl.fields, field{key: `"` + name + `"`, index: idx, typ: sf.Type, omitEmpty: opts == "omitempty"})
	}
}

// plainKey reports whether name is a key encoding/json writes as is between quotes, and accepts
// as a tag name.
func plainKey(name string) bool {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return name != ""
}

// isEmptyValue is encoding/json's omitempty test.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
