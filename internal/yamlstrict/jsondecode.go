package yamlstrict

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
)

// maxJSONNesting bounds the recursion of the JSON scanner, like yaml.v3's
// own limit of 10000. Nesting beyond MaxDepth is still scanned (for syntax)
// but not converted; nesting beyond maxJSONNesting is a syntax error.
const maxJSONNesting = 10000

// jsonSyntaxError carries a syntax error out of the recursive scanner.
type jsonSyntaxError struct {
	pos Pos
	msg string
}

type jsonDecoder struct {
	src []byte
	off int
	// line bookkeeping: line number of off's line, byte offset of its start,
	// and a monotonic column cache (colOff has column col).
	line, lineStart int
	colOff, col     int
	nodes           map[string]*Node
	issues          []Issue
}

// decodeJSON implements DecodeJSON.
func decodeJSON(src []byte) (doc *Doc, issues []Issue) {
	src = bytes.TrimPrefix(src, bom)
	if p, bad := firstInvalidUTF8(src); bad {
		return nil, []Issue{{Rule: RuleSyntax, Pos: p, Message: msgSyntax("JSON", fmt.Sprintf("invalid UTF-8 at line %d, column %d", p.Line, p.Column))}}
	}
	d := &jsonDecoder{src: src, line: 1, col: 1, nodes: map[string]*Node{}}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(jsonSyntaxError)
			if !ok {
				panic(r)
			}
			doc, issues = nil, []Issue{{Rule: RuleSyntax, Pos: se.pos, Message: msgSyntax("JSON", se.msg)}}
		}
	}()
	d.skipSpace()
	if d.off == len(src) {
		return nil, []Issue{{Rule: RuleNotMapping, Message: msgNotMapping("an empty block")}}
	}
	rootPos := d.pos()
	first := src[d.off]
	v := d.value("", 1, Pos{}, 0, true)
	d.skipSpace()
	if d.off < len(src) {
		d.fail("invalid character %s after top-level value", quoteChar(d.peekRune()))
	}
	if first != '{' {
		got := "a scalar"
		if first == '[' {
			got = "a list"
		}
		return nil, []Issue{{Rule: RuleNotMapping, Pos: rootPos, Message: msgNotMapping(got)}}
	}
	return &Doc{Value: v, Nodes: d.nodes}, d.issues
}

func (d *jsonDecoder) fail(format string, args ...any) {
	panic(jsonSyntaxError{pos: d.pos(), msg: fmt.Sprintf(format, args...)})
}

func (d *jsonDecoder) add(rule, ptr string, p Pos, msg string) {
	d.issues = append(d.issues, Issue{Rule: rule, Pointer: ptr, Pos: p, Message: msg})
}

// pos returns the position of d.off. Offsets only move forward, so the
// column is counted incrementally and the total cost is linear.
func (d *jsonDecoder) pos() Pos {
	if d.colOff < d.lineStart || d.colOff > d.off {
		d.colOff, d.col = d.lineStart, 1
	}
	d.col += utf8.RuneCount(d.src[d.colOff:d.off])
	d.colOff = d.off
	return Pos{d.line, d.col}
}

func (d *jsonDecoder) skipSpace() {
	for d.off < len(d.src) {
		switch d.src[d.off] {
		case ' ', '\t':
			d.off++
		case '\n':
			d.off++
			d.line, d.lineStart = d.line+1, d.off
		case '\r':
			d.off++
			if d.off < len(d.src) && d.src[d.off] == '\n' {
				d.off++
			}
			d.line, d.lineStart = d.line+1, d.off
		default:
			return
		}
	}
}

func (d *jsonDecoder) peekRune() rune {
	r, _ := utf8.DecodeRune(d.src[d.off:])
	return r
}

func quoteChar(r rune) string {
	if r == '\'' {
		return `'\''`
	}
	if r == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(r))
	return "'" + s[1:len(s)-1] + "'"
}

func (d *jsonDecoder) expectMore(what string) {
	if d.off >= len(d.src) {
		d.fail("unexpected end of JSON input (expected %s)", what)
	}
}

// value scans one JSON value at d.off, white space already skipped. depth is
// the collection depth the value would have; build=false scans without
// converting, inside a subtree value.depth rejected.
func (d *jsonDecoder) value(ptr string, depth int, keyPos Pos, nesting int, build bool) any {
	d.expectMore("a value")
	p := d.pos()
	var node *Node
	if build {
		node = &Node{Pos: p, KeyPos: keyPos}
		d.nodes[ptr] = node
	}
	switch c := d.src[d.off]; {
	case c == '{' || c == '[':
		if nesting >= maxJSONNesting {
			d.fail("exceeded max depth of %d", maxJSONNesting)
		}
		if build {
			node.Kind = KindMap
			if c == '[' {
				node.Kind = KindList
			}
			if depth > MaxDepth {
				d.add(RuleDepth, ptr, p, msgDepth())
				build = false
			}
		}
		if c == '{' {
			return d.object(ptr, depth, node, nesting+1, build)
		}
		return d.array(ptr, depth, node, nesting+1, build)
	case c == '"':
		s := d.str()
		if build {
			node.Kind, node.Literal = KindString, s
			return s
		}
		return nil
	case c == '-' || isDigit(c):
		return d.number(ptr, p, node, build)
	case c >= 'a' && c <= 'z':
		start := d.off
		for d.off < len(d.src) && d.src[d.off] >= 'a' && d.src[d.off] <= 'z' {
			d.off++
		}
		lit := string(d.src[start:d.off])
		var v any
		var k Kind
		switch lit {
		case "true":
			v, k = true, KindBool
		case "false":
			v, k = false, KindBool
		case "null":
			k = KindNull
		default:
			d.off = start
			d.fail("invalid character %s looking for beginning of value", quoteChar(d.peekRune()))
		}
		if !build {
			return nil
		}
		node.Kind, node.Literal, node.Plain = k, lit, true
		if k == KindNull {
			d.add(RuleNull, ptr, p, msgNull(ptr))
		}
		return v
	}
	d.fail("invalid character %s looking for beginning of value", quoteChar(d.peekRune()))
	return nil
}

func (d *jsonDecoder) object(ptr string, depth int, node *Node, nesting int, build bool) any {
	d.off++ // {
	var m map[string]any
	var firstLine map[string]int
	if build {
		m = map[string]any{}
		firstLine = map[string]int{}
	}
	d.skipSpace()
	d.expectMore("a key or '}'")
	if d.src[d.off] == '}' {
		d.off++
		if build {
			return m
		}
		return nil
	}
	for {
		d.skipSpace()
		d.expectMore("a key")
		if d.src[d.off] != '"' {
			d.fail("invalid character %s looking for beginning of object key string", quoteChar(d.peekRune()))
		}
		kp := d.pos()
		key := d.str()
		d.skipSpace()
		d.expectMore("':'")
		if d.src[d.off] != ':' {
			d.fail("invalid character %s after object key", quoteChar(d.peekRune()))
		}
		d.off++
		d.skipSpace()
		if !build {
			d.value("", depth+1, Pos{}, nesting, false)
		} else {
			childPtr := jsonptr.Append(ptr, key)
			if line, dup := firstLine[key]; dup {
				d.add(RuleDuplicateKey, childPtr, kp, msgDuplicateKey(key, line, kp.Line))
				d.value("", depth+1, Pos{}, nesting, false)
			} else {
				firstLine[key] = kp.Line
				m[key] = d.value(childPtr, depth+1, kp, nesting, true)
				node.Keys = append(node.Keys, key)
			}
		}
		d.skipSpace()
		d.expectMore("',' or '}'")
		switch d.src[d.off] {
		case ',':
			d.off++
			continue
		case '}':
			d.off++
			if build {
				return m
			}
			return nil
		}
		d.fail("invalid character %s after object key:value pair", quoteChar(d.peekRune()))
	}
}

func (d *jsonDecoder) array(ptr string, depth int, node *Node, nesting int, build bool) any {
	d.off++ // [
	var items []any
	if build {
		items = []any{}
	}
	d.skipSpace()
	d.expectMore("a value or ']'")
	if d.src[d.off] == ']' {
		d.off++
		if build {
			return items
		}
		return nil
	}
	for i := 0; ; i++ {
		d.skipSpace()
		if build {
			items = append(items, d.value(jsonptr.AppendIndex(ptr, i), depth+1, Pos{}, nesting, true))
			node.Len = len(items)
		} else {
			d.value("", depth+1, Pos{}, nesting, false)
		}
		d.skipSpace()
		d.expectMore("',' or ']'")
		switch d.src[d.off] {
		case ',':
			d.off++
			continue
		case ']':
			d.off++
			if build {
				return items
			}
			return nil
		}
		d.fail("invalid character %s after array element", quoteChar(d.peekRune()))
	}
}

// number scans an RFC 8259 number. A literal with a fraction or exponent is
// a float (1.0 is a float); otherwise it is an integer.
func (d *jsonDecoder) number(ptr string, p Pos, node *Node, build bool) any {
	start := d.off
	isFloat := false
	if d.src[d.off] == '-' {
		d.off++
	}
	digits := func() int {
		s := d.off
		for d.off < len(d.src) && isDigit(d.src[d.off]) {
			d.off++
		}
		return d.off - s
	}
	d.expectMore("a digit")
	switch {
	case d.src[d.off] == '0':
		d.off++
	case isDigit(d.src[d.off]):
		digits()
	default:
		d.fail("invalid character %s in numeric literal", quoteChar(d.peekRune()))
	}
	if d.off < len(d.src) && d.src[d.off] == '.' {
		isFloat = true
		d.off++
		d.expectMore("a digit")
		if digits() == 0 {
			d.fail("invalid character %s after decimal point in numeric literal", quoteChar(d.peekRune()))
		}
	}
	if d.off < len(d.src) && (d.src[d.off] == 'e' || d.src[d.off] == 'E') {
		isFloat = true
		d.off++
		if d.off < len(d.src) && (d.src[d.off] == '+' || d.src[d.off] == '-') {
			d.off++
		}
		d.expectMore("a digit")
		if digits() == 0 {
			d.fail("invalid character %s in exponent of numeric literal", quoteChar(d.peekRune()))
		}
	}
	if !build {
		return nil
	}
	lit := string(d.src[start:d.off])
	node.Literal, node.Plain = lit, true
	if isFloat {
		node.Kind = KindFloat
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			d.add(RuleNonFinite, ptr, p, msgNonFinite(ptr, lit))
			return nil
		}
		return f
	}
	node.Kind = KindInt
	n, err := strconv.ParseInt(lit, 10, 64)
	if err != nil {
		d.add(RuleIntRange, ptr, p, msgIntRange(ptr, lit))
		return nil
	}
	return n
}

// str scans a JSON string at d.off (the opening quote) and returns its value.
// The input is known to be valid UTF-8.
func (d *jsonDecoder) str() string {
	d.off++ // "
	start := d.off
	// Fast path: no escapes.
	for d.off < len(d.src) {
		c := d.src[d.off]
		if c == '"' {
			s := string(d.src[start:d.off])
			d.off++
			return s
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			d.fail("invalid character %s in string literal", quoteChar(rune(c)))
		}
		d.off++
	}
	var b strings.Builder
	b.Write(d.src[start:d.off])
	for {
		d.expectMore("'\"' to end the string")
		c := d.src[d.off]
		switch {
		case c == '"':
			d.off++
			return b.String()
		case c < 0x20:
			d.fail("invalid character %s in string literal", quoteChar(rune(c)))
		case c != '\\':
			b.WriteByte(c)
			d.off++
			continue
		}
		d.off++ // backslash
		d.expectMore("an escape character")
		e := d.src[d.off]
		d.off++
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r := d.hex4()
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || d.off+1 >= len(d.src) || d.src[d.off] != '\\' || d.src[d.off+1] != 'u' {
					d.off -= 6
					d.fail("invalid \\u escape: lone UTF-16 surrogate")
				}
				d.off += 2
				r2 := d.hex4()
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					d.off -= 12
					d.fail("invalid \\u escape: lone UTF-16 surrogate")
				}
			}
			b.WriteRune(r)
		default:
			d.off--
			d.fail("invalid character %s in string escape code", quoteChar(d.peekRune()))
		}
	}
}

func (d *jsonDecoder) hex4() rune {
	var r rune
	for i := 0; i < 4; i++ {
		d.expectMore("a hex digit")
		c := d.src[d.off]
		var v byte
		switch {
		case isDigit(c):
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			d.fail("invalid character %s in \\u hexadecimal character escape", quoteChar(d.peekRune()))
		}
		r = r*16 + rune(v)
		d.off++
	}
	return r
}
