package yamlstrict

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// The YAML syntax message rule of lifecycle-v2.md §9: a syntax error names the offending token's
// position once and, for the mistakes agents usually make, what to change. yaml.v3 gives no
// column, so the source is scanned for those mistakes, and a candidate is trusted only when its
// fix makes the decoder get further.

// maxDiagnoseCandidates bounds the re-parses one syntax error may cost.
const maxDiagnoseCandidates = 6

// maxShownValue is the longest value quoted back in a fix hint, in code points.
const maxShownValue = 60

// candidate is one suspected mistake: where, the message, and the line fixed that must make the
// source decode further in place of line `line`. trusted skips the re-parse.
type candidate struct {
	pos     Pos
	msg     string
	line    int // 1-based
	fixed   string
	trusted bool
}

// srcLine is one line of the source without its line break.
type srcLine struct {
	n      int
	text   string
	indent int // leading spaces
}

// diagnose explains the yaml.v3 error err for src, or returns ok false when no known mistake
// explains it.
func diagnose(src []byte, err error) (Issue, bool) {
	lines := splitLines(src)
	cands := findCandidates(lines)
	tried := 0
	for _, c := range cands {
		if !c.trusted {
			if tried == maxDiagnoseCandidates {
				break
			}
			tried++
			if !decodesFurther(lines, c, err) {
				continue
			}
		}
		return Issue{Rule: RuleSyntax, Pos: c.pos, Message: "YAML syntax error: " + c.msg}, true
	}
	return Issue{}, false
}

func splitLines(src []byte) []srcLine {
	parts := strings.Split(string(src), "\n")
	out := make([]srcLine, len(parts))
	for i, p := range parts {
		p = strings.TrimSuffix(p, "\r")
		out[i] = srcLine{n: i + 1, text: p, indent: len(p) - len(strings.TrimLeft(p, " "))}
	}
	return out
}

// decodesFurther reports whether the source with c's fix applied decodes, or fails with another
// error than orig.
func decodesFurther(lines []srcLine, c candidate, orig error) bool {
	var b bytes.Buffer
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if l.n == c.line {
			b.WriteString(c.fixed)
		} else {
			b.WriteString(l.text)
		}
	}
	dec := yaml.NewDecoder(&b)
	for {
		var n yaml.Node
		err := safeDecode(dec, &n)
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			return err.Error() != orig.Error()
		}
	}
}

// col returns the 1-based code-point column of byte offset off in s.
func col(s string, off int) int { return utf8.RuneCountInString(s[:off]) + 1 }

// level is an open block collection: the column of its entries and whether they are list items.
type level struct {
	col   int
	seq   bool
	key   string // the last key at this level (mappings)
	plain bool   // the last entry at this level has an inline plain value
}

// findCandidates scans the lines in order and returns the suspected mistakes in document order.
func findCandidates(lines []srcLine) []candidate {
	var out []candidate
	var stack []level
	opened := false   // the previous entry line, a bare key: or -, opened a nested block
	blockParent := -1 // inside a | or > block scalar whose parent entry is at this column
	var quote *candidate
	quoteChar, quoteIndent := byte(0), 0
	for i, l := range lines {
		t := l.text
		trimmed := strings.TrimLeft(t, " \t")
		blank := trimmed == ""
		if blockParent >= 0 {
			if blank || l.indent > blockParent {
				continue
			}
			blockParent = -1
		}
		if quote != nil {
			// Inside a quoted value that spans lines: look for its end; a line that looks like a
			// key at or left of the quote's entry means the quote was never closed.
			if end := closingQuote(t, 0, quoteChar); end >= 0 {
				quote = nil
				continue
			}
			if !blank && l.indent <= quoteIndent && looksLikeEntry(trimmed) {
				out = append(out, *quote)
				quote = nil
			} else {
				continue
			}
		}
		if blank || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if strings.HasPrefix(t, "---") || strings.HasPrefix(t, "...") || strings.HasPrefix(t, "%") && i == 0 {
			continue
		}
		// A tab in the indentation.
		if ws := t[:len(t)-len(trimmed)]; strings.Contains(ws, "\t") {
			out = append(out, candidate{pos: Pos{l.n, strings.IndexByte(ws, '\t') + 1}, trusted: true,
				msg: "a tab is used for indentation; YAML indents with spaces only — replace the tab with spaces"})
			continue
		}
		// Sequence indicators.
		pos := l.indent
		dashCol := -1
		for pos < len(t) && t[pos] == '-' && (pos+1 == len(t) || t[pos+1] == ' ') {
			if dashCol < 0 {
				dashCol = pos
			}
			pos++
			for pos < len(t) && t[pos] == ' ' {
				pos++
			}
		}
		entryCol := l.indent
		isSeq := dashCol >= 0
		// Indentation against the open levels.
		var popped *level
		for len(stack) > 0 && stack[len(stack)-1].col > entryCol {
			top := stack[len(stack)-1]
			popped = &top
			stack = stack[:len(stack)-1]
		}
		var prev *level
		if len(stack) > 0 {
			prev = &stack[len(stack)-1]
		}
		key, value, valueOff, hasKey := splitEntry(t, pos)
		if prev != nil && prev.col < entryCol && !opened {
			// A deeper entry that no "key:" or bare "-" opened.
			switch {
			case hasKey && !isSeq && prev.plain:
				out = append(out, candidate{pos: Pos{l.n, entryCol + 1}, line: l.n, fixed: strings.Repeat(" ", prev.col) + trimmed,
					msg: quoteName(key) + " is indented more than " + quoteName(prev.key) + " above it, so it continues that value; indent " + quoteName(key) + " like " + quoteName(prev.key) + " (" + plural(prev.col, "space") + ")"})
			case isSeq && (popped != nil && popped.seq || prev.seq):
				want := prev.col
				if popped != nil && popped.seq {
					want = popped.col
				}
				out = append(out, candidate{pos: Pos{l.n, entryCol + 1}, line: l.n, fixed: strings.Repeat(" ", want) + trimmed,
					msg: "this list item is indented by " + plural(entryCol, "space") + " but the items above it by " + plural(want, "space") + "; indent every item of a list the same"})
			case hasKey && popped != nil && !popped.seq:
				out = append(out, candidate{pos: Pos{l.n, entryCol + 1}, line: l.n, fixed: strings.Repeat(" ", popped.col) + trimmed,
					msg: quoteName(key) + " is indented by " + plural(entryCol, "space") + ", between the keys above it (" + plural(prev.col, "space") + " and " + plural(popped.col, "space") + "); indent it like the keys of the mapping it belongs to"})
			}
		}
		if prev == nil || prev.col < entryCol {
			stack = append(stack, level{col: entryCol, seq: isSeq})
			prev = &stack[len(stack)-1]
		}
		prev.seq = isSeq
		opened = false
		if isSeq && pos >= len(t) {
			opened = true // a bare "-": the item's content follows
			continue
		}
		if isSeq && hasKey {
			// "- key: value": the item is a mapping whose keys are at pos.
			stack = append(stack, level{col: pos})
			prev = &stack[len(stack)-1]
		}
		if hasKey {
			prev.key = key
		}
		if !hasKey {
			// No key: a list item's value, or text where a key was expected.
			if k, rest, ok := strings.Cut(trimmed, ":"); !isSeq && ok && rest != "" && rest[0] != ' ' && isKeyLike(k) && prev != nil && prev.col == entryCol && !prev.seq {
				off := l.indent + len(k) + 1
				out = append(out, candidate{pos: Pos{l.n, col(t, off)}, line: l.n, fixed: t[:off] + " " + t[off:],
					msg: quoteName(k+":"+firstWord(rest)) + " has no space after the colon, so it is not a key; write " + quoteName(k+": "+firstWord(rest))})
			}
			if !isSeq {
				continue
			}
			// A list item's own value.
			key, value, valueOff = "", strings.TrimRight(t[pos:], " \t"), pos
			if isPlainStart(value) {
				value = stripComment(value)
			}
		}
		if value == "" {
			opened = true
			prev.plain = false
			continue
		}
		prev.plain = isPlainStart(value)
		switch value[0] {
		case '|', '>':
			blockParent = entryCol
			if isSeq && hasKey {
				blockParent = pos // "- key: |": the content is indented more than the key
			}
			continue
		case '"', '\'':
			if closingQuote(t, valueOff+1, value[0]) < 0 {
				q := value[0]
				qc := candidate{pos: Pos{l.n, col(t, valueOff)}, line: l.n, fixed: t + string(q),
					msg: "the " + string(q) + " quote opened here is never closed; close it at the end of the value, or use a | block for text over several lines"}
				quote, quoteChar, quoteIndent = &qc, q, entryCol
				continue
			}
		}
		out = append(out, valueCandidates(l, key, value, valueOff)...)
	}
	if quote != nil {
		out = append(out, *quote)
	}
	return out
}

// splitEntry splits the text of t from pos into a mapping key and its value. hasKey is false when
// the text is not "key:" or "key: value" with a plain key. valueOff is the value's byte offset.
func splitEntry(t string, pos int) (key, value string, valueOff int, hasKey bool) {
	rest := t[pos:]
	if rest == "" || strings.ContainsRune(`"'[{|>&*!#`, rune(rest[0])) {
		return "", "", pos, false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] == ' ' && i+1 < len(rest) && rest[i+1] == '#' {
			return "", "", pos, false // a comment before any colon
		}
		if rest[i] != ':' || (i+1 < len(rest) && rest[i+1] != ' ' && rest[i+1] != '\t') {
			continue
		}
		key = rest[:i]
		j := i + 1
		for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
			j++
		}
		return key, stripComment(rest[j:]), pos + j, true
	}
	return "", "", pos, false
}

// valueCandidates checks one value of key, or of a list item when key is "", that starts at byte
// off of line l.
func valueCandidates(l srcLine, key, value string, off int) []candidate {
	t := l.text
	what := "the value of " + quoteName(key)
	prefix := t[:off]
	if key == "" {
		what = "the list item"
	}
	quoted := func(v string) string {
		return prefix + `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
	}
	fixText := func(v string) string {
		shown := v
		if utf8.RuneCountInString(shown) > maxShownValue {
			shown = string([]rune(shown)[:maxShownValue]) + "…"
		}
		shown = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(shown) + `"`
		if key == "" {
			return "- " + shown
		}
		return key + ": " + shown
	}
	c := candidate{line: l.n}
	switch value[0] {
	case '"', '\'':
		end := closingQuote(t, off+1, value[0])
		rest := strings.TrimSpace(stripComment(t[end+1:]))
		if rest == "" {
			return nil
		}
		inner := t[off : off+len(value)]
		c.pos = Pos{l.n, col(t, end+1+strings.Index(t[end+1:], rest[:1]))}
		c.fixed = quoted(inner)
		c.msg = "text follows the closing quote of " + what + "; quote the whole value: " + fixText(inner)
		return []candidate{c}
	case '`', '@', '%':
		c.pos, c.fixed = Pos{l.n, col(t, off)}, quoted(value)
		c.msg = what + " starts with " + quoteName(value[:1]) + ", which cannot start a plain YAML value; quote the value: " + fixText(value)
		return []candidate{c}
	case '*':
		c.pos, c.fixed = Pos{l.n, col(t, off)}, quoted(value)
		c.msg = what + " starts with \"*\", which YAML reads as an alias; quote the value: " + fixText(value)
		return []candidate{c}
	case '-':
		if len(value) > 1 && value[1] == ' ' && key != "" {
			c.pos, c.fixed = Pos{l.n, col(t, off)}, quoted(value)
			c.msg = what + " starts with \"- \", which starts a list item; quote the value (" + fixText(value) + "), or put the list items on the lines below, indented"
			return []candidate{c}
		}
	case '[', '{':
		if !flowBalanced(value) {
			closer := "]"
			if value[0] == '{' {
				closer = "}"
			}
			c.pos, c.fixed = Pos{l.n, col(t, off)}, t+closer
			c.msg = "the " + quoteName(value[:1]) + " opened here is never closed on its line; add " + quoteName(closer) + " at the end of the value, or write one \"- item\" per line"
			return []candidate{c}
		}
		return nil
	}
	// A plain value: ": " (or a final ":") inside it starts a second key.
	for i := 0; i < len(value); i++ {
		if value[i] == ':' && (i+1 == len(value) || value[i+1] == ' ' || value[i+1] == '\t') {
			c.pos, c.fixed = Pos{l.n, col(t, off+i)}, quoted(value)
			c.msg = what + " is plain text containing \": \", which YAML reads as another key; quote the whole value: " + fixText(value)
			return []candidate{c}
		}
	}
	return nil
}

// closingQuote returns the byte offset in t of the quote q that closes a scalar whose content
// starts at from, or -1 when t ends first.
func closingQuote(t string, from int, q byte) int {
	for i := from; i < len(t); i++ {
		switch {
		case q == '"' && t[i] == '\\':
			i++
		case t[i] == q && q == '\'' && i+1 < len(t) && t[i+1] == '\'':
			i++
		case t[i] == q:
			return i
		}
	}
	return -1
}

// flowBalanced reports whether the brackets of a one-line flow collection close, ignoring quoted
// text.
func flowBalanced(v string) bool {
	depth := 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '"', '\'':
			if e := closingQuote(v, i+1, c); e >= 0 {
				i = e
			} else {
				return false
			}
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case '#':
			if i > 0 && v[i-1] == ' ' {
				return depth == 0
			}
		}
	}
	return depth == 0
}

// stripComment removes a trailing " #…" comment from a plain value and trims it.
func stripComment(v string) string {
	if i := strings.Index(v, " #"); i >= 0 && v[0] != '"' && v[0] != '\'' {
		v = v[:i]
	}
	return strings.TrimRight(v, " \t")
}

func isPlainStart(v string) bool {
	return v != "" && !strings.ContainsRune(`"'[{|>&*!`, rune(v[0]))
}

// looksLikeEntry reports whether trimmed text starts a mapping entry or a list item.
func looksLikeEntry(trimmed string) bool {
	if strings.HasPrefix(trimmed, "- ") || trimmed == "-" {
		return true
	}
	_, _, _, ok := splitEntry(trimmed, 0)
	return ok
}

func isKeyLike(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i]
	}
	return s
}

func quoteName(s string) string {
	if utf8.RuneCountInString(s) > maxShownValue {
		s = string([]rune(s)[:maxShownValue]) + "…"
	}
	return `"` + s + `"`
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
