package report

import (
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
	"github.com/mastermind-controller/mastermind/internal/jsonstrict"
	"github.com/mastermind-controller/mastermind/internal/schemaerr"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema"
	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema/kind"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
	"github.com/mastermind-controller/mastermind/schemas"
)

// SchemaName is the embedded schema the report is validated against (§3, Appendix A).
const SchemaName = "executor-report-v1"

// Rule ids of the schema stage (§5.2 stage 6).
const (
	RuleRequired     = "schema.required"
	RuleUnknownField = "schema.unknown_field"
	RuleType         = "schema.type"
	RuleEnum         = "schema.enum"
	RuleMinLength    = "schema.min_length"
	RuleRange        = "schema.range"
	RuleOther        = "schema.other"
)

// schemaDoc is the compiled schema plus its raw JSON, kept to read required lists, property
// order, enum values and bounds for messages.
type schemaDoc struct {
	compiled *jsonschema.Schema
	root     map[string]any
	order    map[string][]string // schema JSON pointer -> key order of that object
}

var loadSchema = sync.OnceValues(func() (*schemaDoc, error) {
	raw, ok := schemas.Get(SchemaName)
	if !ok {
		return nil, fmt.Errorf("embedded schema %s is missing", SchemaName)
	}
	compiled, err := schemas.Compile(SchemaName)
	if err != nil {
		return nil, err
	}
	tree, err := jsonstrict.Decode(raw, jsonstrict.Options{})
	if err != nil {
		return nil, fmt.Errorf("embedded schema %s: %w", SchemaName, err)
	}
	sd := &schemaDoc{compiled: compiled, order: map[string][]string{}}
	sd.root, _ = sd.load(tree, "").(map[string]any)
	return sd, nil
})

// load converts the schema tree at ptr to encoding/json's generic form (numbers as float64) and
// records the key order of every object, by JSON pointer.
func (sd *schemaDoc) load(v *jsonstrict.Value, ptr string) any {
	switch v.Kind {
	case jsonstrict.KindObject:
		m := make(map[string]any, len(v.Members))
		keys := make([]string, 0, len(v.Members))
		for _, mem := range v.Members {
			keys = append(keys, mem.Name)
			m[mem.Name] = sd.load(mem.Value, jsonptr.Append(ptr, mem.Name))
		}
		sd.order[ptr] = keys
		return m
	case jsonstrict.KindArray:
		l := make([]any, len(v.Items))
		for i, it := range v.Items {
			l[i] = sd.load(it, jsonptr.AppendIndex(ptr, i))
		}
		return l
	case jsonstrict.KindNumber:
		f, _ := strconv.ParseFloat(v.Number, 64)
		return f
	case jsonstrict.KindString:
		return v.String
	case jsonstrict.KindBool:
		return v.Bool
	}
	return nil
}

// refPointer converts a local reference's percent-encoded URI fragment, such as "/$defs/a%20b",
// to a plain RFC 6901 pointer.
func refPointer(frag string) string {
	if u, err := url.PathUnescape(frag); err == nil {
		return u
	}
	return frag
}

// at returns the value at pointer p inside v (maps and lists), or nil.
func at(v any, p string) (any, bool) {
	for _, t := range jsonptr.Split(p) {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[t]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// get returns the schema object at schema pointer p, following a local $ref.
func (sd *schemaDoc) get(p string) (map[string]any, string) {
	v, _ := at(sd.root, p)
	m, _ := v.(map[string]any)
	return sd.resolve(m, p)
}

// resolve follows local "#/..." references (at most 16 hops).
func (sd *schemaDoc) resolve(m map[string]any, p string) (map[string]any, string) {
	for i := 0; i < 16 && m != nil; i++ {
		ref, ok := m["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#") {
			break
		}
		p = refPointer(ref[1:])
		v, _ := at(sd.root, p)
		m, _ = v.(map[string]any)
	}
	return m, p
}

// variants returns the kind constant of each oneOf branch at schema pointer p, in order.
func (sd *schemaDoc) variants(p string) []string {
	list, _ := at(sd.root, p+"/oneOf")
	arr, _ := list.([]any)
	out := make([]string, len(arr))
	for i := range arr {
		v, _ := sd.get(p + "/oneOf/" + strconv.Itoa(i))
		if props, ok := v["properties"].(map[string]any); ok {
			if k, ok := props["kind"].(map[string]any); ok {
				out[i], _ = k["const"].(string)
			}
		}
	}
	return out
}

// schemaFor returns the schema (and its pointer) that governs the instance at pointer ip, picking
// a oneOf branch by the instance's kind. It returns nil when none does.
func (sd *schemaDoc) schemaFor(inst any, ip string) (map[string]any, string) {
	s, sp := sd.get("")
	cur := ""
	for _, t := range jsonptr.Split(ip) {
		if s == nil {
			return nil, ""
		}
		if _, ok := s["oneOf"]; ok {
			s, sp = sd.branch(inst, cur, sp)
			if s == nil {
				return nil, ""
			}
		}
		if props, ok := s["properties"].(map[string]any); ok {
			if _, ok := props[t]; ok {
				s, sp = sd.get(jsonptr.Append(sp+"/properties", t))
				cur = jsonptr.Append(cur, t)
				continue
			}
		}
		if _, ok := s["items"]; ok {
			if _, err := strconv.Atoi(t); err == nil {
				s, sp = sd.get(sp + "/items")
				cur = jsonptr.Append(cur, t)
				continue
			}
		}
		return nil, ""
	}
	if s != nil {
		if _, ok := s["oneOf"]; ok {
			return sd.branch(inst, cur, sp)
		}
	}
	return s, sp
}

// branch picks the oneOf branch at schema pointer sp named by the instance's kind at ip.
func (sd *schemaDoc) branch(inst any, ip, sp string) (map[string]any, string) {
	v, _ := at(inst, ip)
	m, _ := v.(map[string]any)
	kind, _ := m["kind"].(string)
	for i, k := range sd.variants(sp) {
		if k != "" && k == kind {
			return sd.get(sp + "/oneOf/" + strconv.Itoa(i))
		}
	}
	return nil, ""
}

// checkSchema validates the decoded value against the v1 schema and maps every leaf cause to one
// finding by §5.2, §3.5 and §2.4.
func (c *checker) checkSchema(doc *yamlstrict.Doc) {
	sd, err := loadSchema()
	if err != nil {
		c.add(RuleOther, 0, 0, "", "the report schema is unavailable: "+err.Error())
		return
	}
	if sd.fastValid(doc.Value, sd.root, 0) {
		c.integerKinds(sd, doc)
		c.dedupeSchema()
		return
	}
	err = sd.compiled.Validate(doc.Value)
	var ve *jsonschema.ValidationError
	switch {
	case errors.As(err, &ve):
		c.collect(sd, doc, ve)
	case err != nil:
		c.add(RuleOther, 0, 0, "", "schema validation failed: "+err.Error())
	}
	c.integerKinds(sd, doc)
	c.dedupeSchema()
}

func (c *checker) collect(sd *schemaDoc, doc *yamlstrict.Doc, ve *jsonschema.ValidationError) {
	if _, ok := ve.ErrorKind.(*kind.OneOf); ok {
		c.oneOf(sd, doc, ve)
		return
	}
	if len(ve.Causes) == 0 {
		c.leaf(sd, doc, ve)
		return
	}
	for _, cause := range ve.Causes {
		c.collect(sd, doc, cause)
	}
}

// oneOf maps a failed claim oneOf by its kind (§3.5).
func (c *checker) oneOf(sd *schemaDoc, doc *yamlstrict.Doc, ve *jsonschema.ValidationError) {
	loc := schemaerr.Locate(ve)
	ip, sp := loc.Instance, loc.Schema
	inst, _ := at(doc.Value, ip)
	m, ok := inst.(map[string]any)
	if !ok {
		if inst != nil {
			c.typeFinding(doc, ip, map[string]any{"type": "object"})
		}
		return
	}
	kinds := sd.variants(sp)
	kv, present := m["kind"]
	if !present {
		c.addAt(doc, RuleRequired, ip, ip, fmt.Sprintf("%s is missing required field kind", c.parentName(doc, ip)))
		return
	}
	if kv == nil {
		return // a value rule already reported it
	}
	kind, _ := kv.(string)
	idx := -1
	for i, k := range kinds {
		if k != "" && k == kind {
			idx = i
		}
	}
	if idx < 0 {
		kp := jsonptr.Append(ip, "kind")
		c.addAt(doc, RuleEnum, kp, kp, fmt.Sprintf("%s must be one of %s; got %s%s",
			yamlstrict.FieldName(kp), strings.Join(kinds, ", "), c.render(doc, kp, kv), lowercaseHint(kv, kinds)))
		return
	}
	// The causes of a failed oneOf are the failures of its branches, each located at its branch.
	branch := jsonptr.AppendIndex(jsonptr.Append(sp, "oneOf"), idx)
	for _, cause := range ve.Causes {
		if cs := schemaerr.Locate(cause).Schema; cs == branch || strings.HasPrefix(cs, branch+"/") {
			c.collect(sd, doc, cause)
		}
	}
}

// leaf maps one leaf validator error to findings.
func (c *checker) leaf(sd *schemaDoc, doc *yamlstrict.Doc, ve *jsonschema.ValidationError) {
	loc := schemaerr.Locate(ve)
	ip := loc.Instance
	s, _ := sd.get(loc.Schema)
	inst, _ := at(doc.Value, ip)
	field := yamlstrict.FieldName(ip)
	switch ve.ErrorKind.(type) {
	case *kind.Required:
		m, _ := inst.(map[string]any)
		req, _ := s["required"].([]any)
		for _, r := range req {
			name, _ := r.(string)
			if _, ok := m[name]; !ok {
				c.addAt(doc, RuleRequired, ip, ip, fmt.Sprintf("%s is missing required field %s", c.parentName(doc, ip), name))
			}
		}
	case *kind.AdditionalProperties:
		props, _ := s["properties"].(map[string]any)
		allowed := sd.order[jsonptr.Append(loc.Schema, "properties")]
		var keys []string
		if n := doc.Nodes[ip]; n != nil {
			keys = n.Keys
		} else if m, ok := inst.(map[string]any); ok {
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
		}
		for _, k := range keys {
			if _, ok := props[k]; ok {
				continue
			}
			cp := jsonptr.Append(ip, k)
			line, col := c.keyPos(doc, cp)
			c.add(RuleUnknownField, line, col, cp, fmt.Sprintf("unknown field %s in %s; allowed fields: %s",
				textsafe.Escape(k), c.parentName(doc, ip), strings.Join(allowed, ", ")))
		}
	case *kind.Type:
		c.typeFinding(doc, ip, s)
	case *kind.Enum:
		vals, _ := s["enum"].([]any)
		var names []string
		for _, v := range vals {
			names = append(names, fmt.Sprint(v))
		}
		c.addAt(doc, RuleEnum, ip, ip, fmt.Sprintf("%s must be one of %s; got %s%s", field, strings.Join(names, ", "),
			c.render(doc, ip, inst), lowercaseHint(inst, names)))
	case *kind.Const:
		c.addAt(doc, RuleEnum, ip, ip, fmt.Sprintf("%s must be %v; got %s", field, s["const"], c.render(doc, ip, inst)))
	case *kind.MinLength:
		c.addAt(doc, RuleMinLength, ip, ip, field+" must not be empty")
	case *kind.Minimum, *kind.Maximum, *kind.ExclusiveMinimum, *kind.ExclusiveMaximum:
		c.addAt(doc, RuleRange, ip, ip, fmt.Sprintf("%s must be between %s and %s; got %s", field,
			number(s["minimum"]), number(s["maximum"]), c.render(doc, ip, inst)))
	default:
		c.addAt(doc, RuleOther, ip, ip, textsafe.Escape(schemaerr.Message(ve.ErrorKind)))
	}
}

func number(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return "unbounded"
	}
	return fmt.Sprint(v)
}

func lowercaseHint(v any, names []string) string {
	s, ok := v.(string)
	if !ok {
		return ""
	}
	for _, n := range names {
		if n != s && strings.EqualFold(n, s) {
			return " (values are lowercase)"
		}
	}
	return ""
}

// parentName names a mapping for required/unknown-field messages; a claim adds its kind:
// "claims[1] (integration)".
func (c *checker) parentName(doc *yamlstrict.Doc, ip string) string {
	name := yamlstrict.FieldName(ip)
	toks := jsonptr.Split(ip)
	if len(toks) == 2 && toks[0] == "claims" {
		if v, ok := at(doc.Value, ip); ok {
			if m, ok := v.(map[string]any); ok {
				if k, ok := m["kind"].(string); ok && k != "" {
					name += " (" + textsafe.Escape(k) + ")"
				}
			}
		}
	}
	return name
}

// render quotes a value for a message: strings in double quotes only when the caller's template
// asks, other scalars by their literal.
func (c *checker) render(doc *yamlstrict.Doc, ip string, v any) string {
	if n := doc.Nodes[ip]; n != nil && n.Kind != yamlstrict.KindList && n.Kind != yamlstrict.KindMap {
		return shorten(textsafe.Escape(n.Literal))
	}
	switch x := v.(type) {
	case string:
		return shorten(textsafe.Escape(x))
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	}
	return shorten(textsafe.Escape(fmt.Sprint(v)))
}

// shorten cuts a quoted value to 60 code points.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= 60 {
		return s
	}
	r := []rune(s)
	return string(r[:57]) + "…"
}

// typeFinding writes a schema.type finding with the §2.4 fix.
func (c *checker) typeFinding(doc *yamlstrict.Doc, ip string, s map[string]any) {
	expected, _ := s["type"].(string)
	want := map[string]string{"string": "a string", "integer": "an integer", "array": "a list",
		"object": "a mapping", "boolean": "a boolean", "number": "a number", "null": "null"}[expected]
	if want == "" {
		want = expected
	}
	if cv, ok := s["const"]; ok && expected == "integer" {
		want = "the integer " + number(cv)
	}
	n := doc.Nodes[ip]
	if n == nil {
		return
	}
	scalarWanted := expected == "string" || expected == "integer" || expected == "number" || expected == "boolean"
	got := n.Kind.String()
	if scalarWanted && n.Kind != yamlstrict.KindList && n.Kind != yamlstrict.KindMap {
		lit := shorten(textsafe.Escape(n.Literal))
		if n.Kind == yamlstrict.KindString {
			lit = `"` + lit + `"`
		}
		got += " " + lit
	}
	fix := ""
	json := c.loc != nil && c.loc.json
	switch {
	case expected == "string" && n.Plain && (n.Kind == yamlstrict.KindInt || n.Kind == yamlstrict.KindFloat || n.Kind == yamlstrict.KindBool):
		if json {
			fix = fmt.Sprintf("quote it: %q", n.Literal)
		} else {
			fix = "quote it: '" + strings.ReplaceAll(textsafe.Escape(n.Literal), "'", "''") + "'"
		}
	case expected == "integer" && n.Kind == yamlstrict.KindFloat:
		fix = "use a whole number without a decimal point or exponent"
	case expected == "integer" && n.Kind == yamlstrict.KindString && isDigits(n.Literal):
		fix = "remove the quotes"
	case expected == "array" && n.Kind != yamlstrict.KindList:
		if json {
			fix = "write it as a JSON array ([] when empty)"
		} else {
			fix = `write it as a YAML list (one "- item" per line, or [] when empty)`
		}
	case expected == "object" && n.Kind != yamlstrict.KindMap:
		if json {
			fix = "write it as a JSON object of \"field\": value pairs"
		} else {
			fix = "write it as a mapping of field: value lines"
		}
	}
	msg := fmt.Sprintf("%s must be %s; got %s", yamlstrict.FieldName(ip), want, got)
	if fix != "" {
		msg += " — " + fix
	}
	c.addAt(doc, RuleType, ip, ip, msg)
}

func isDigits(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// integerKinds reports floats where the schema wants an integer. Draft 2020-12 calls 0.0 an
// integer, so the resolved kind recorded by yamlstrict decides (§2.4).
func (c *checker) integerKinds(sd *schemaDoc, doc *yamlstrict.Doc) {
	ptrs := make([]string, 0)
	for p, n := range doc.Nodes {
		if n.Kind == yamlstrict.KindFloat {
			ptrs = append(ptrs, p)
		}
	}
	sort.Strings(ptrs)
	for _, p := range ptrs {
		v, _ := at(doc.Value, p)
		if _, ok := v.(float64); !ok {
			continue
		}
		if s, _ := sd.schemaFor(doc.Value, p); s != nil && s["type"] == "integer" {
			c.typeFinding(doc, p, s)
		}
	}
}

// dedupeSchema removes repeated findings and, where a pointer has a schema.type finding, every
// other value-level schema finding at that pointer (enum, const, length, range).
func (c *checker) dedupeSchema() {
	typed := map[string]bool{}
	for _, f := range c.findings {
		if f.Rule == RuleType {
			typed[f.Pointer] = true
		}
	}
	seen := map[string]bool{}
	out := c.findings[:0]
	for _, f := range c.findings {
		key := f.Rule + "\x00" + f.Pointer + "\x00" + f.Message
		if seen[key] {
			continue
		}
		seen[key] = true
		switch f.Rule {
		case RuleEnum, RuleMinLength, RuleRange, RuleOther:
			if typed[f.Pointer] {
				continue
			}
		}
		out = append(out, f)
	}
	c.findings = out
}

// addAt adds a finding positioned at the node for pos or its nearest positioned ancestor.
func (c *checker) addAt(doc *yamlstrict.Doc, rule, pos, pointer, msg string) {
	line, col := c.nodePos(doc, pos)
	c.add(rule, line, col, pointer, msg)
}

func (c *checker) nodePos(doc *yamlstrict.Doc, p string) (int, int) {
	for {
		if n := doc.Nodes[p]; n != nil && !n.Pos.IsZero() {
			return c.loc.filePos(n.Pos)
		}
		if p == "" {
			return 0, 0
		}
		p = jsonptr.Parent(p)
	}
}

func (c *checker) keyPos(doc *yamlstrict.Doc, p string) (int, int) {
	if n := doc.Nodes[p]; n != nil && !n.KeyPos.IsZero() {
		return c.loc.filePos(n.KeyPos)
	}
	return c.nodePos(doc, p)
}
