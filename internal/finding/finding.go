package finding

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Class is the severity of a finding: ClassError makes a verdict broken, ClassWarning makes it
// drift (spec-and-lifecycle.md §9.2).
type Class string

// The two finding classes.
const (
	ClassError   Class = "error"
	ClassWarning Class = "warning"
)

// Field is one kind-specific key/value pair of a finding, such as {"file", "a.go"}. Fields keep
// their insertion order so JSON output is stable.
type Field struct {
	Key   string
	Value any
}

// Finding is one violation or observation. Rule is the stable rule id or audit kind; Line and
// Column are 1-based, the column in code points, and 0 without a position; Pointer is a JSON
// pointer into the checked document.
type Finding struct {
	Rule    string
	Class   Class
	File    string
	Line    int
	Column  int
	Pointer string
	Message string
	Fields  []Field
}

// Field returns the value of the kind-specific field key and whether it is present.
func (f Finding) Field(key string) (any, bool) {
	for _, fl := range f.Fields {
		if fl.Key == key {
			return fl.Value, true
		}
	}
	return nil, false
}

// FieldString returns the kind-specific field key formatted as a string, or "" when absent.
func (f Finding) FieldString(key string) string {
	v, ok := f.Field(key)
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// String renders the finding in the text form "file:line:col: message [rule]", or
// "file: message [rule]" when Line is 0 (executor-report-v1.md §6). An empty File drops the
// leading "file:" part.
func (f Finding) String() string {
	var b strings.Builder
	if f.File != "" {
		b.WriteString(f.File)
		if f.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", f.Line, f.Column)
		}
		b.WriteString(": ")
	} else if f.Line > 0 {
		fmt.Fprintf(&b, "%d:%d: ", f.Line, f.Column)
	}
	b.WriteString(f.Text())
	b.WriteString(" [")
	b.WriteString(f.Rule)
	b.WriteString("]")
	return b.String()
}

// MarshalJSON writes the positional shape of executor-report-v1.md §5.1:
// {"rule","class","file","line","column","pointer","message"} followed by any kind fields.
func (f Finding) MarshalJSON() ([]byte, error) {
	pairs := []Field{
		{"rule", f.Rule}, {"class", f.Class}, {"file", f.File}, {"line", f.Line},
		{"column", f.Column}, {"pointer", f.Pointer}, {"message", f.Text()},
	}
	return MarshalObject(append(pairs, f.Fields...))
}

// Audit is the audit shape of a finding (spec-and-lifecycle.md §7.2, §13.2): its JSON form is
// {"kind","class","message"} followed by the kind fields in order.
type Audit Finding

// MarshalJSON writes {"kind","class","message", …kind fields}.
func (a Audit) MarshalJSON() ([]byte, error) {
	pairs := []Field{{"kind", a.Rule}, {"class", a.Class}, {"message", Finding(a).Text()}}
	return MarshalObject(append(pairs, a.Fields...))
}

// MarshalObject writes fields as one compact JSON object, keys in the given order, values
// encoded by encoding/json without HTML escaping ("<" stays "<"). Every ordered JSON object that
// mastermind writes (findings, evidence, claims) goes through it.
func MarshalObject(fields []Field) ([]byte, error) {
	b := make([]byte, 0, 64)
	b = append(b, '{')
	for i, p := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendValue(b, p.Key); err != nil {
			return nil, err
		}
		b = append(b, ':')
		if b, err = appendValue(b, p.Value); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendValue appends v as MarshalValue encodes it. Plain strings (PlainJSONString) and
// integers, nearly every key and value of a finding, are appended directly: a --json or audit.md
// of 400,000 findings does not start an encoder per key and value (gitscope.md §8.1 scenario B).
func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		if PlainJSONString(x) {
			return append(append(append(b, '"'), x...), '"'), nil
		}
	case Class:
		if PlainJSONString(string(x)) {
			return append(append(append(b, '"'), x...), '"'), nil
		}
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	}
	js, err := MarshalValue(v)
	if err != nil {
		return nil, err
	}
	return append(b, js...), nil
}

// PlainJSONString reports whether encoding/json writes s as itself in quotes: printable ASCII
// without '"' and '\\' (HTML escaping off).
func PlainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// MarshalValue encodes v as compact JSON without HTML escaping and without a trailing newline.
func MarshalValue(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// ComparePosition orders findings by executor-report-v1.md §5.5: line (0 first), column, rule,
// pointer, message.
func ComparePosition(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Column, b.Column),
		strings.Compare(a.Rule, b.Rule),
		strings.Compare(a.Pointer, b.Pointer),
		strings.Compare(a.Text(), b.Text()),
	)
}

// SortByPosition sorts fs in place with ComparePosition.
func SortByPosition(fs []Finding) {
	slices.SortStableFunc(fs, ComparePosition)
}

// Count returns the number of error-class and warning-class findings in fs.
func Count(fs []Finding) (errors, warnings int) {
	for _, f := range fs {
		switch f.Class {
		case ClassError:
			errors++
		case ClassWarning:
			warnings++
		}
	}
	return errors, warnings
}
