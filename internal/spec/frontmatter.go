package spec

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/jsonptr"
	"github.com/mastermind-controller/mastermind/internal/markdown"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// allowedKeys are the frontmatter's top-level keys in table order (§1.2). Keys starting with "x-"
// are extension keys and are ignored.
var allowedKeys = []string{"id", "title", "risk", "mode", "touches", "creates", "expected_docs", "deletes", "forbids", "verify", "breaking_changes"}

var (
	risks = []string{RiskLow, RiskMedium, RiskHigh}
	modes = []string{ModeVerified, ModeStrict, ModeStandard, ModeLite}
)

// splitFrontmatter finds the §1.2 delimiters (markdown.SplitFrontmatter): the frontmatter is
// present only when the text starts exactly with "---\n" or "---\r\n"; it ends at the first later
// line equal to "---" once trailing spaces, tabs and CR are removed.
func (p *parser) splitFrontmatter() {
	fm := markdown.SplitFrontmatter(p.text)
	if !fm.Present {
		p.modeKnown = true
		return
	}
	p.fmPresent = true
	p.spec.HasFrontmatter = true
	if fm.Closed {
		p.fmTerminated = true
		p.fmEnd = fm.End
		p.bodyStart = fm.Body
		return
	}
	p.add(RuleFrontmatterUnterminated, 1, 1, "",
		"the frontmatter opened at line 1 is never closed; end it with a line holding only ---")
}

// decodeFrontmatter decodes the YAML between the delimiters with the strict walk and checks every
// field's shape (§1.2). Positions are mapped into spec.md, where the YAML starts on line 2.
func (p *parser) decodeFrontmatter() {
	src := p.text[p.fmOpenLen():p.fmEnd]
	p.fmValid = true
	if blankYAML(src) {
		// An empty block declares nothing; falling back to the backtick scope would make a
		// forgotten frontmatter a silent scope change (lifecycle-v2.md §7).
		p.modeKnown = true
		p.fmValid = false
		p.add(RuleFrontmatterInvalid, 1, 1, "",
			"the frontmatter block is empty; write its fields (mode, touches, creates, expected_docs, verify) between the --- lines, or remove both --- lines to declare the scope with backticks in the body")
		return
	}
	doc, issues := yamlstrict.Decode(src)
	for _, is := range issues {
		line, col := p.yamlPos(is.Pos)
		if line == 0 {
			line, col = 1, 1
		}
		p.add(RuleFrontmatterInvalid, line, col, is.Pointer, "frontmatter: "+shiftDecoderLine(is.Message),
			finding.Field{Key: "yaml_rule", Value: is.Rule})
		p.fmValid = false
	}
	if doc == nil {
		return
	}
	w := &fmWalker{p: p, doc: doc}
	w.root()
	if w.invalid {
		p.fmValid = false
	}
}

// decoderLine matches the YAML-relative line numbers in yamlstrict messages: "line N:" of the
// decoder's syntax errors, "starts at line N" of multi_document, "lines A and B" of duplicate_key.
var decoderLine = regexp.MustCompile(`\b(line |starts at line |lines )(\d+)( and )?(\d+)?`)

// shiftDecoderLine rewrites the YAML-relative line numbers of a yamlstrict message into spec.md
// lines, so the message agrees with the finding's position.
func shiftDecoderLine(msg string) string {
	return decoderLine.ReplaceAllStringFunc(msg, func(m string) string {
		g := decoderLine.FindStringSubmatch(m)
		out := g[1] + shiftNum(g[2])
		if g[3] != "" && g[4] != "" {
			out += g[3] + shiftNum(g[4])
		} else {
			out += g[3] + g[4]
		}
		return out
	})
}

func shiftNum(s string) string {
	n, err := strconv.Atoi(s)
	if err != nil {
		return s
	}
	return strconv.Itoa(n + 1)
}

// fmOpenLen is the length of the opening delimiter line.
func (p *parser) fmOpenLen() int {
	if bytes.HasPrefix(p.text, []byte("---\r\n")) {
		return 5
	}
	return 4
}

// yamlPos maps a position in the frontmatter YAML to spec.md.
func (p *parser) yamlPos(pos yamlstrict.Pos) (int, int) {
	if pos.Line == 0 {
		return 0, 0
	}
	// YAML also counts a lone CR as a line break while spec.md lines are LF-terminated, so a
	// position past the frontmatter's last line is put at its start.
	last := 2 + bytes.Count(p.text[p.fmOpenLen():p.fmEnd], []byte("\n"))
	if pos.Line+1 > last {
		return last, 1
	}
	return pos.Line + 1, pos.Column
}

// blankYAML reports whether the YAML text holds only blank and comment lines.
func blankYAML(src []byte) bool {
	for _, l := range bytes.Split(src, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) > 0 && l[0] != '#' {
			return false
		}
	}
	return true
}

// fmWalker checks field shapes on a decoded frontmatter and fills Spec.Frontmatter.
type fmWalker struct {
	p       *parser
	doc     *yamlstrict.Doc
	invalid bool
}

// node returns the node at ptr (never nil).
func (w *fmWalker) node(ptr string) *yamlstrict.Node {
	if n, ok := w.doc.Nodes[ptr]; ok && n != nil {
		return n
	}
	return &yamlstrict.Node{}
}

// value returns the decoded value at ptr, following the pointer through Doc.Value.
func (w *fmWalker) value(ptr string) any {
	v := w.doc.Value
	if ptr == "" {
		return v
	}
	for _, tok := range jsonptr.Split(ptr) {
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			var i int
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

// fail records spec.frontmatter_invalid at the value of ptr.
func (w *fmWalker) fail(ptr string, msg string) {
	w.failAt(ptr, w.node(ptr).Pos, msg)
}

func (w *fmWalker) failAt(ptr string, pos yamlstrict.Pos, msg string) {
	line, col := w.p.yamlPos(pos)
	if line == 0 {
		line, col = 1, 1
	}
	w.p.add(RuleFrontmatterInvalid, line, col, ptr, msg)
	w.invalid = true
}

// kindName renders a node kind for "got …" messages.
func kindName(n *yamlstrict.Node) string {
	switch n.Kind {
	case yamlstrict.KindList:
		return "a list"
	case yamlstrict.KindMap:
		return "a mapping"
	}
	return n.Kind.String() + " " + n.Literal
}

// typeError records "<field> must be <want>; got <kind> — <fix>" (executor-report-v1.md §2.4).
func (w *fmWalker) typeError(ptr, want string) {
	n := w.node(ptr)
	msg := fmt.Sprintf("%s must be %s; got %s", yamlstrict.FieldName(ptr), want, kindName(n))
	switch {
	case want == "a string" && n.Plain && n.Kind != yamlstrict.KindList && n.Kind != yamlstrict.KindMap:
		msg += fmt.Sprintf(" — quote it: '%s'", n.Literal)
	case want == "an integer" && n.Kind == yamlstrict.KindFloat:
		msg += " — use a whole number without a decimal point or exponent"
	case want == "an integer" && n.Kind == yamlstrict.KindString && !n.Plain && isDigits(n.Literal):
		msg += " — remove the quotes"
	case strings.HasPrefix(want, "a list"):
		msg += ` — write it as a YAML list (one "- item" per line, or [] when empty)`
	case strings.HasPrefix(want, "a mapping"):
		msg += " — write it as a mapping of field: value lines"
	}
	w.fail(ptr, msg)
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// str checks that ptr holds a string and returns it; ok is false (and a finding recorded) when
// it does not. A value already rejected by a value rule (nil) is skipped silently.
func (w *fmWalker) str(ptr string) (string, bool) {
	v := w.value(ptr)
	if v == nil {
		w.invalid = true
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		w.typeError(ptr, "a string")
		return "", false
	}
	return s, true
}

// list checks that ptr holds a list and returns its items.
func (w *fmWalker) list(ptr string) ([]any, bool) {
	v := w.value(ptr)
	if v == nil {
		w.invalid = true
		return nil, false
	}
	l, ok := v.([]any)
	if !ok {
		w.typeError(ptr, "a list")
		return nil, false
	}
	return l, true
}

// mapping checks that ptr holds a mapping and returns it with its keys in source order.
func (w *fmWalker) mapping(ptr, want string) (map[string]any, []string, bool) {
	v := w.value(ptr)
	if v == nil {
		w.invalid = true
		return nil, nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(ptr, want)
		return nil, nil, false
	}
	keys := w.node(ptr).Keys
	if len(keys) != len(m) { // defensive: fall back to sorted keys
		keys = keys[:0:0]
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
	}
	return m, keys, true
}

// enum checks a string field against its allowed values.
func (w *fmWalker) enum(ptr string, allowed []string) (string, bool) {
	s, ok := w.str(ptr)
	if !ok {
		return "", false
	}
	if slices.Contains(allowed, s) {
		return s, true
	}
	msg := fmt.Sprintf("%s must be one of %s; got %s", yamlstrict.FieldName(ptr), strings.Join(allowed, ", "), s)
	if slices.Contains(allowed, strings.ToLower(s)) {
		msg += " (values are lowercase)"
	}
	w.fail(ptr, msg)
	return "", false
}

// unknownField records a key outside a nested mapping's allowed set.
func (w *fmWalker) unknownField(parent, key string, allowed []string) {
	ptr := jsonptr.Append(parent, key)
	w.failAt(ptr, w.node(ptr).KeyPos, fmt.Sprintf("unknown field %s in %s; allowed fields: %s",
		key, yamlstrict.FieldName(parent), strings.Join(allowed, ", ")))
}

// missingField records a required key absent from a nested mapping.
func (w *fmWalker) missingField(parent, key string) {
	w.fail(parent, fmt.Sprintf("%s is missing required field %s", yamlstrict.FieldName(parent), key))
}

// root walks the top-level mapping.
func (w *fmWalker) root() {
	m, keys, ok := w.mapping("", "a mapping")
	if !ok {
		return
	}
	fm := &w.p.spec.Frontmatter
	w.p.modeKnown = true
	for _, k := range keys {
		ptr := jsonptr.Append("", k)
		switch k {
		case "id":
			fm.ID, _ = w.str(ptr)
		case "title":
			fm.Title, _ = w.str(ptr)
		case "risk":
			if s, ok := w.enum(ptr, risks); ok {
				fm.Risk = s
			}
		case "mode":
			if s, ok := w.enum(ptr, modes); ok {
				fm.Mode = s
				w.p.modeLine, w.p.modeCol = w.p.yamlPos(w.node(ptr).Pos)
			} else {
				w.p.modeKnown = false
			}
		case "touches":
			w.touches(ptr)
		case "creates":
			fm.Creates = w.pathList(ptr, "creates")
		case "expected_docs":
			fm.ExpectedDocs = w.pathList(ptr, "expected_docs")
		case "deletes":
			fm.Deletes = w.pathList(ptr, "deletes")
		case "forbids":
			fm.Forbids = w.forbids(ptr)
		case "verify":
			w.verify(ptr)
		case "breaking_changes":
			w.breakingChanges(ptr)
		default:
			if strings.HasPrefix(k, "x-") {
				continue
			}
			line, col := w.p.yamlPos(w.node(ptr).KeyPos)
			if line == 0 {
				line, col = 1, 1
			}
			msg := fmt.Sprintf("unknown frontmatter key %s; allowed keys: %s, or an x- extension key",
				k, strings.Join(allowedKeys, ", "))
			if s := closestKey(k); s != "" {
				msg = fmt.Sprintf("unknown frontmatter key %s (did you mean %s?); allowed keys: %s, or an x- extension key",
					k, s, strings.Join(allowedKeys, ", "))
			}
			w.p.add(RuleFrontmatterUnknownKey, line, col, ptr, msg, finding.Field{Key: "key", Value: k})
			w.invalid = true
		}
	}
	_ = m
}

// decl is one scope declaration from the frontmatter.
type decl struct {
	list      string // "touches", "creates", "expected_docs" or "deletes"
	field     string // dotted field name, e.g. touches[0].file
	pointer   string
	raw       string
	line, col int
}

// addDecl records a declaration for the §1.4 scope rules.
func (w *fmWalker) addDecl(list, ptr, raw string) {
	line, col := w.p.yamlPos(w.node(ptr).Pos)
	w.p.fmDecls = append(w.p.fmDecls, decl{list: list, field: yamlstrict.FieldName(ptr), pointer: ptr, raw: raw, line: line, col: col})
}

// pathList checks a list of strings (creates, expected_docs, deletes) and records each as a
// declaration.
func (w *fmWalker) pathList(ptr, list string) []string {
	items, ok := w.list(ptr)
	if !ok {
		return nil
	}
	var out []string
	for i := range items {
		ip := jsonptr.AppendIndex(ptr, i)
		if s, ok := w.str(ip); ok {
			out = append(out, s)
			w.addDecl(list, ip, s)
		}
	}
	return out
}

var (
	touchFields  = []string{"file", "language", "symbols"}
	symbolFields = []string{"name", "signature", "callers", "file", "language", "reason"}
	removedField = []string{"name", "file", "reason"}
)

// touches checks the touches list: each item is a path string, the form the other lists take,
// or {file, language?, symbols?}.
func (w *fmWalker) touches(ptr string) {
	items, ok := w.list(ptr)
	if !ok {
		return
	}
	fm := &w.p.spec.Frontmatter
	for i, it := range items {
		ip := jsonptr.AppendIndex(ptr, i)
		if s, ok := it.(string); ok {
			fm.Touches = append(fm.Touches, Touch{File: s})
			w.addDecl("touches", ip, s)
			continue
		}
		m, keys, ok := w.mapping(ip, "a path or a mapping with a file field")
		if !ok {
			continue
		}
		var t Touch
		for _, k := range keys {
			kp := jsonptr.Append(ip, k)
			switch k {
			case "file":
				if s, ok := w.str(kp); ok {
					t.File = s
					w.addDecl("touches", kp, s)
				}
			case "language":
				t.Language, _ = w.str(kp)
			case "symbols":
				t.Symbols = w.symbols(kp)
			default:
				w.unknownField(ip, k, touchFields)
			}
		}
		if _, ok := m["file"]; !ok {
			w.missingField(ip, "file")
		}
		fm.Touches = append(fm.Touches, t)
	}
}

// symbols checks touches[i].symbols: items are a string or {name, signature?, callers?, file?,
// language?, reason?} with callers an integer ≥ 0.
func (w *fmWalker) symbols(ptr string) []Symbol {
	items, ok := w.list(ptr)
	if !ok {
		return nil
	}
	var out []Symbol
	for i, it := range items {
		ip := jsonptr.AppendIndex(ptr, i)
		if s, ok := it.(string); ok {
			out = append(out, Symbol{Name: s})
			continue
		}
		m, keys, ok := w.mapping(ip, "a string or a mapping with a name field")
		if !ok {
			continue
		}
		var sym Symbol
		for _, k := range keys {
			kp := jsonptr.Append(ip, k)
			switch k {
			case "name":
				sym.Name, _ = w.str(kp)
			case "signature":
				sym.Signature, _ = w.str(kp)
			case "file":
				sym.File, _ = w.str(kp)
			case "language":
				sym.Language, _ = w.str(kp)
			case "reason":
				sym.Reason, _ = w.str(kp)
			case "callers":
				sym.Callers = w.callers(kp)
			default:
				w.unknownField(ip, k, symbolFields)
			}
		}
		if _, ok := m["name"]; !ok {
			w.missingField(ip, "name")
		}
		out = append(out, sym)
	}
	return out
}

// callers checks an integer ≥ 0.
func (w *fmWalker) callers(ptr string) *int64 {
	v := w.value(ptr)
	if v == nil {
		w.invalid = true
		return nil
	}
	n, ok := v.(int64)
	if !ok {
		w.typeError(ptr, "an integer")
		return nil
	}
	if n < 0 {
		w.fail(ptr, fmt.Sprintf("%s must be an integer of at least 0; got %d", yamlstrict.FieldName(ptr), n))
		return nil
	}
	return &n
}

// verify checks the verify list: a string item is a label, a {cmd, run?, timeout?} item a
// command obligation, whose run and timeout verify_run.go checks.
func (w *fmWalker) verify(ptr string) {
	items, ok := w.list(ptr)
	if !ok {
		return
	}
	fm := &w.p.spec.Frontmatter
	for i, it := range items {
		ip := jsonptr.AppendIndex(ptr, i)
		if s, ok := it.(string); ok {
			fm.Verify = append(fm.Verify, VerifyItem{Label: s})
			w.p.spec.VerifyLabels = append(w.p.spec.VerifyLabels, s)
			continue
		}
		m, keys, ok := w.mapping(ip, "a string label or a mapping {cmd: \"<command>\"}")
		if !ok {
			continue
		}
		// An invalid run or timeout is a finding and leaves the option at its default; the
		// command stays an obligation, so a bad option never removes a check.
		item := VerifyItem{IsCmd: true}
		for _, k := range keys {
			switch k {
			case "cmd":
			case "run":
				item.Run, item.Witnessed = w.verifyRun(jsonptr.Append(ip, k))
			case "timeout":
				item.Timeout = w.verifyTimeout(jsonptr.Append(ip, k))
			default:
				w.unknownField(ip, k, verifyFields)
			}
		}
		if _, ok := m["cmd"]; !ok {
			w.missingField(ip, "cmd")
			continue
		}
		cp := jsonptr.Append(ip, "cmd")
		cmd, ok := w.str(cp)
		if !ok {
			continue
		}
		item.Cmd = cmd
		fm.Verify = append(fm.Verify, item)
		line, col := w.p.yamlPos(w.node(cp).Pos)
		w.p.fmCmds = append(w.p.fmCmds, fmCmd{posString: posString{value: cmd, line: line, col: col, pointer: cp},
			run: item.Run, witnessed: item.Witnessed, timeout: item.Timeout})
	}
}

// breakingChanges checks {removed_symbols: [string | {name, file?, reason?}]}.
func (w *fmWalker) breakingChanges(ptr string) {
	_, keys, ok := w.mapping(ptr, "a mapping with a removed_symbols list")
	if !ok {
		return
	}
	bc := &BreakingChanges{}
	for _, k := range keys {
		kp := jsonptr.Append(ptr, k)
		if k != "removed_symbols" {
			w.unknownField(ptr, k, []string{"removed_symbols"})
			continue
		}
		items, ok := w.list(kp)
		if !ok {
			continue
		}
		for i, it := range items {
			ip := jsonptr.AppendIndex(kp, i)
			if s, ok := it.(string); ok {
				bc.RemovedSymbols = append(bc.RemovedSymbols, RemovedSymbol{Name: s})
				continue
			}
			m, ikeys, ok := w.mapping(ip, "a string or a mapping with a name field")
			if !ok {
				continue
			}
			var rs RemovedSymbol
			for _, ik := range ikeys {
				ikp := jsonptr.Append(ip, ik)
				switch ik {
				case "name":
					rs.Name, _ = w.str(ikp)
				case "file":
					rs.File, _ = w.str(ikp)
				case "reason":
					rs.Reason, _ = w.str(ikp)
				default:
					w.unknownField(ip, ik, removedField)
				}
			}
			if _, ok := m["name"]; !ok {
				w.missingField(ip, "name")
			}
			bc.RemovedSymbols = append(bc.RemovedSymbols, rs)
		}
	}
	w.p.spec.Frontmatter.BreakingChanges = bc
}

// closestKey suggests the allowed key within edit distance 2 of k, or "".
func closestKey(k string) string {
	best, bestD := "", 3
	for _, a := range allowedKeys {
		if d := keyDistance(strings.ToLower(k), a); d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

// keyDistance is the Levenshtein distance between a and b, or 100 for inputs over 100 bytes,
// since a key that long is no typo of a known key.
func keyDistance(a, b string) int {
	if len(a) > 100 || len(b) > 100 {
		return 100
	}
	return levenshtein.ComputeDistance(a, b)
}
