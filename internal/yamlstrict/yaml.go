package yamlstrict

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
	yaml "go.yaml.in/yaml/v3"
)

var bom = []byte("\xEF\xBB\xBF")

// decodeYAML implements Decode: the document rules of executor-report-v1.md
// §2.1, then the walk of §2.2–§2.3.
func decodeYAML(src []byte) (*Doc, []Issue) {
	src = bytes.TrimPrefix(src, bom)
	if p, bad := firstInvalidUTF8(src); bad {
		return nil, []Issue{{Rule: RuleSyntax, Pos: p, Message: msgSyntax("YAML", "invalid UTF-8; save the report as UTF-8")}}
	}
	if is, bad := yaml11Break(src); bad {
		return nil, []Issue{is}
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := safeDecode(dec, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, []Issue{{Rule: RuleNotMapping, Message: msgNotMapping("an empty block")}}
		}
		return nil, []Issue{syntaxIssueIn(src, err)}
	}
	var second yaml.Node
	switch err := safeDecode(dec, &second); {
	case err == nil:
		p := Pos{second.Line, second.Column}
		if p.Line == 0 && len(second.Content) > 0 {
			p = Pos{second.Content[0].Line, second.Content[0].Column}
		}
		return nil, []Issue{{Rule: RuleMultiDocument, Pos: p, Message: msgMultiDocument(p.Line)}}
	case !errors.Is(err, io.EOF):
		return nil, []Issue{syntaxIssueIn(src, err)}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) != 1 {
			return nil, []Issue{{Rule: RuleNotMapping, Message: msgNotMapping("an empty block")}}
		}
		root = root.Content[0]
	}
	ix := newLineIndex(src)
	sc := &syntaxChecker{ix: ix, src: src}
	sc.check(root)
	if len(sc.issues) > 0 {
		return nil, sc.issues
	}
	if root.Kind != yaml.MappingNode {
		got := "a scalar"
		switch {
		case root.Kind == yaml.SequenceNode:
			got = "a list"
		case root.Kind == yaml.ScalarNode && root.Value == "" && root.Style == 0 && root.Anchor == "":
			got = "an empty block"
		}
		p := Pos{root.Line, root.Column}
		if got == "an empty block" {
			p = Pos{}
		}
		return nil, []Issue{{Rule: RuleNotMapping, Pos: p, Message: msgNotMapping(got)}}
	}
	w := &walker{ix: ix, nodes: map[string]*Node{}}
	v := w.walk(root, "", 1, Pos{})
	for _, is := range w.issues {
		if is.Rule == RuleSyntax { // unreachable: a node kind yaml.v3 never produces here
			return nil, []Issue{is}
		}
	}
	return &Doc{Value: v, Nodes: w.nodes}, w.issues
}

// safeDecode runs one Decode and turns a decoder panic into an error.
func safeDecode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: decoder failed: %v", r)
		}
	}()
	return dec.Decode(n)
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxIssue turns a yaml.v3 error into decode.syntax at column 1 of the
// decoder's line, since yaml.v3 gives no column.
func syntaxIssue(err error) Issue {
	msg := err.Error()
	is := Issue{Rule: RuleSyntax}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil && n > 0 {
			is.Pos = Pos{n, 1}
		}
	}
	// The position is the finding's; the text does not repeat it (lifecycle-v2.md §9).
	is.Message = msgSyntax("YAML", yamlLineRE.ReplaceAllString(msg, ""))
	if strings.HasPrefix(is.Message, "YAML syntax error: yaml: ") {
		is.Message = msgSyntax("YAML", strings.TrimPrefix(msg, "yaml: "))
	}
	return is
}

// firstContentColumn returns the 1-based code-point column of the first character of line
// (1-based) that is not a space or tab, or 1.
func firstContentColumn(src []byte, line int) int {
	lines := bytes.Split(src, []byte("\n"))
	if line < 1 || line > len(lines) {
		return 1
	}
	l := lines[line-1]
	t := bytes.TrimLeft(l, " \t")
	if len(bytes.TrimSpace(t)) == 0 {
		return 1
	}
	return utf8.RuneCount(l[:len(l)-len(t)]) + 1
}

// syntaxIssueIn is syntaxIssue for src. yaml.v3 gives no line when it rejects a character
// outside YAML's printable set, so the first such character is located here and named by line
// and column.
func syntaxIssueIn(src []byte, err error) Issue {
	if is, ok := diagnose(src, err); ok {
		return is
	}
	is := syntaxIssue(err)
	if is.Pos.Line > 0 {
		is.Pos.Column = firstContentColumn(src, is.Pos.Line)
	}
	if is.Pos.IsZero() && strings.Contains(is.Message, "control characters are not allowed") {
		if p, ok := firstNonPrintable(src); ok {
			is.Pos = p
			is.Message = msgSyntax("YAML", fmt.Sprintf("control character U+%04X is not allowed; remove it, or write it escaped in a double-quoted string (\\u%04X)", nonPrintableAt(src, p), nonPrintableAt(src, p)))
		}
	}
	return is
}

// nonPrintable reports whether r is outside YAML 1.2's c-printable set.
func nonPrintable(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r' || r == 0x85:
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0xd800 && r <= 0xdfff, r == 0xfffe, r == 0xffff:
		return true
	}
	return false
}

// firstNonPrintable returns the position of the first non-printable character of src.
func firstNonPrintable(src []byte) (Pos, bool) {
	line, col := 1, 1
	for _, r := range string(src) {
		if nonPrintable(r) {
			return Pos{line, col}, true
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return Pos{}, false
}

// nonPrintableAt returns the character at p (found by firstNonPrintable).
func nonPrintableAt(src []byte, p Pos) rune {
	line, col := 1, 1
	for _, r := range string(src) {
		if line == p.Line && col == p.Column {
			return r
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return 0
}

// yaml11Break finds a raw NEL, LINE SEPARATOR or PARAGRAPH SEPARATOR, at which yaml.v3 breaks
// lines as YAML 1.1 does while YAML 1.2 does not, so that a key could hide inside what every other
// reader shows as a comment (executor-report-v1.md §2.5).
func yaml11Break(src []byte) (Issue, bool) {
	if !bytes.Contains(src, []byte("\xC2\x85")) && !bytes.Contains(src, []byte("\xE2\x80\xA8")) && !bytes.Contains(src, []byte("\xE2\x80\xA9")) {
		return Issue{}, false
	}
	line, col := 1, 1
	for _, r := range string(src) {
		switch r {
		case 0x85, 0x2028, 0x2029:
			p := Pos{line, col}
			return Issue{Rule: RuleSyntax, Pos: p, Message: msgSyntax("YAML", fmt.Sprintf(
				"character U+%04X is a line break to the YAML decoder but not in YAML 1.2; write it escaped in a double-quoted string (\\u%04X)", r, r))}, true
		case '\n':
			line, col = line+1, 1
			continue
		}
		col++
	}
	return Issue{}, false
}

type walker struct {
	ix     *lineIndex
	nodes  map[string]*Node
	issues []Issue
}

func (w *walker) add(rule, ptr string, p Pos, msg string) {
	w.issues = append(w.issues, Issue{Rule: rule, Pointer: ptr, Pos: p, Message: msg})
}

func isPlain(n *yaml.Node) bool {
	return n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0
}

// tag returns the node's explicit tag as written, or "" when it has none. A
// node yaml.v3 marks TaggedStyle is tagged, and so is one whose source
// character is the non-specific tag `!`, which yaml.v3 drops.
func (w *walker) tag(n *yaml.Node) string {
	// A block mapping is positioned at its first key, so a `!` there belongs
	// to the key and is checked with it; the mapping's own tag comes before the
	// key and moves the mapping's position to it.
	atFirstKey := n.Kind == yaml.MappingNode && len(n.Content) > 0 &&
		n.Content[0].Line == n.Line && n.Content[0].Column == n.Column
	if !atFirstKey {
		if t := w.ix.tagAt(n.Line, n.Column); t != "" {
			return t
		}
	}
	if n.Style&yaml.TaggedStyle != 0 {
		if n.Tag == "" {
			return "!"
		}
		return n.Tag
	}
	return ""
}

// scalarKind is the kind a scalar resolves to, for Node.Kind.
func scalarKind(n *yaml.Node) Kind {
	if !isPlain(n) {
		return KindString
	}
	_, k, _ := resolvePlain(n.Value)
	return k
}

func collectionKind(n *yaml.Node) Kind {
	switch n.Kind {
	case yaml.MappingNode:
		return KindMap
	case yaml.SequenceNode:
		return KindList
	case yaml.ScalarNode:
		return scalarKind(n)
	}
	return KindNull
}

// walk converts n, at JSON pointer ptr and collection depth depth, and records
// its Node. It never follows an alias or descends into a node a rule rejected
// or past MaxDepth, so the recursion is bounded.
func (w *walker) walk(n *yaml.Node, ptr string, depth int, keyPos Pos) any {
	p := Pos{n.Line, n.Column}
	node := &Node{Pos: p, KeyPos: keyPos}
	w.nodes[ptr] = node
	if n.Kind == yaml.AliasNode {
		if n.Alias != nil {
			node.Kind = collectionKind(n.Alias)
		}
		w.add(RuleAnchor, ptr, p, msgAnchor("*"+n.Value))
		return nil
	}
	rejected := false
	if n.Anchor != "" {
		w.add(RuleAnchor, ptr, p, msgAnchor("&"+n.Anchor))
		rejected = true
	}
	if t := w.tag(n); t != "" {
		w.add(RuleTag, ptr, p, msgTag(ptr, t))
		rejected = true
	}
	switch n.Kind {
	case yaml.ScalarNode:
		node.Literal = n.Value
		if !isPlain(n) {
			node.Kind = KindString
			if rejected {
				return nil
			}
			return n.Value
		}
		node.Plain = true
		v, k, rule := resolvePlain(n.Value)
		node.Kind = k
		if rejected {
			return nil
		}
		switch rule {
		case RuleNull:
			w.add(rule, ptr, p, msgNull(ptr))
		case RuleNonFinite:
			w.add(rule, ptr, p, msgNonFinite(ptr, n.Value))
		case RuleIntRange:
			w.add(rule, ptr, p, msgIntRange(ptr, n.Value))
		}
		return v
	case yaml.MappingNode:
		node.Kind = KindMap
		if depth > MaxDepth {
			w.add(RuleDepth, ptr, p, msgDepth())
			return nil
		}
		if rejected {
			return nil
		}
		return w.mapping(n, node, ptr, depth)
	case yaml.SequenceNode:
		node.Kind = KindList
		if depth > MaxDepth {
			w.add(RuleDepth, ptr, p, msgDepth())
			return nil
		}
		if rejected {
			return nil
		}
		items := make([]any, len(n.Content))
		for i, c := range n.Content {
			items[i] = w.walk(c, jsonptr.AppendIndex(ptr, i), depth+1, Pos{})
		}
		node.Len = len(items)
		return items
	}
	// A document node inside a document cannot occur; fail closed.
	w.add(RuleSyntax, ptr, p, msgSyntax("YAML", "unexpected node"))
	return nil
}

func (w *walker) mapping(n *yaml.Node, node *Node, ptr string, depth int) map[string]any {
	m := make(map[string]any, len(n.Content)/2)
	firstLine := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key, ok, keyRejected := w.key(k, ptr)
		if !ok {
			continue
		}
		childPtr := jsonptr.Append(ptr, key)
		if line, dup := firstLine[key]; dup {
			w.add(RuleDuplicateKey, childPtr, Pos{k.Line, k.Column}, msgDuplicateKey(key, line, k.Line))
			continue
		}
		firstLine[key] = k.Line
		val := w.walk(v, childPtr, depth+1, Pos{k.Line, k.Column})
		if keyRejected {
			val = nil
		}
		m[key] = val
		node.Keys = append(node.Keys, key)
	}
	return m
}

// key checks a mapping key. ok=false removes the entry of an alias, merge or
// non-string key; rejected=true keeps a string key whose anchor or tag was
// reported, with its value nil.
func (w *walker) key(k *yaml.Node, parent string) (key string, ok, rejected bool) {
	p := Pos{k.Line, k.Column}
	if k.Kind == yaml.AliasNode {
		w.add(RuleAnchor, jsonptr.Append(parent, "*"+k.Value), p, msgAnchor("*"+k.Value))
		return "", false, false
	}
	if k.Kind != yaml.ScalarNode {
		lit := "{…}"
		if k.Kind == yaml.SequenceNode {
			lit = "[…]"
		}
		ptr := jsonptr.Append(parent, lit)
		if k.Anchor != "" {
			w.add(RuleAnchor, ptr, p, msgAnchor("&"+k.Anchor))
		}
		w.add(RuleKeyNotString, ptr, p, msgKeyNotString(lit))
		return "", false, false
	}
	ptr := jsonptr.Append(parent, k.Value)
	if k.Anchor != "" {
		w.add(RuleAnchor, ptr, p, msgAnchor("&"+k.Anchor))
		rejected = true
	}
	if t := w.tag(k); t != "" {
		w.add(RuleTag, ptr, p, msgTag(ptr, t))
		rejected = true
	}
	if isPlain(k) {
		if k.Value == "<<" {
			w.add(RuleMergeKey, ptr, p, msgMergeKey())
			return "", false, false
		}
		if _, kind, _ := resolvePlain(k.Value); kind != KindString {
			w.add(RuleKeyNotString, ptr, p, msgKeyNotString(k.Value))
			return "", false, false
		}
	}
	return k.Value, true, rejected
}
