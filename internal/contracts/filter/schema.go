package filter

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
	"github.com/mastermind-controller/mastermind/internal/schemaerr"
)

// schemaURL is the in-memory resource name of a declared OUTPUT schema.
const schemaURL = "mastermind:///output.schema.json"

// Schema is a compiled OUTPUT schema plus its source tree, which keeps the declaration order of
// properties (item order, §2.7) and the x-label annotations (item types).
type Schema struct {
	raw      *Value
	compiled *jsonschema.Schema
}

// CompileError is an OUTPUT schema that does not compile. Its message is the contract text
// `OUTPUT schema does not compile: <error>` (agent-contracts.md §2.3), a usage error.
type CompileError struct{ Err error }

func (e *CompileError) Error() string { return "OUTPUT schema does not compile: " + e.Err.Error() }
func (e *CompileError) Unwrap() error { return e.Err }

// CompileSchema compiles a JSON Schema, draft 2020-12 unless its $schema names another supported
// draft, with formats asserted and the custom formats of §2.5 registered. A remote $ref is
// refused; errors are *CompileError.
func CompileSchema(data []byte) (*Schema, error) {
	raw, err := ParseJSON(data)
	if err != nil {
		return nil, &CompileError{Err: fmt.Errorf("not valid JSON: %w", err)}
	}
	if raw.Kind != KindObject && raw.Kind != KindBool {
		return nil, &CompileError{Err: errors.New("a schema must be a JSON object or boolean")}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	for _, f := range formats {
		c.RegisterFormat(f)
	}
	c.UseLoader(localOnly{})
	if err := c.AddResource(schemaURL, raw.Any()); err != nil {
		return nil, &CompileError{Err: cleanSchemaErr(err)}
	}
	compiled, err := func() (s *jsonschema.Schema, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%v", r)
			}
		}()
		return c.Compile(schemaURL)
	}()
	if err != nil {
		return nil, &CompileError{Err: cleanSchemaErr(err)}
	}
	return &Schema{raw: raw, compiled: compiled}, nil
}

// localOnly refuses every remote $ref: only the schema document itself is available.
type localOnly struct{}

func (localOnly) Load(u string) (any, error) {
	return nil, fmt.Errorf("$ref to %s: only references inside the schema are allowed", u)
}

// cleanSchemaErr phrases a compile error without the in-memory resource name. A schema that
// breaks the draft's metaschema is described by its leaf causes, each at its schema pointer;
// other errors keep their own text.
func cleanSchemaErr(err error) error {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		if ve, ok := sve.Err.(*jsonschema.ValidationError); ok {
			var parts []string
			for _, leaf := range schemaerr.Leaves(ve) {
				at := leaf.Instance
				if at == "" {
					at = "the root"
				}
				parts = append(parts, "at "+at+": "+schemaerr.Message(leaf.ErrorKind))
			}
			return errors.New(strings.Join(parts, "; "))
		}
	}
	var le *jsonschema.LoadURLError
	if errors.As(err, &le) {
		err = le.Err
	}
	msg := err.Error()
	msg = strings.ReplaceAll(msg, strconv.Quote(schemaURL), "the schema")
	msg = strings.ReplaceAll(msg, schemaURL, "")
	return errors.New(msg)
}

// RequiredTopLevel returns the root's required keys in declaration order: declared properties
// first, in the order the schema lists them, then required keys with no property entry.
func (s *Schema) RequiredTopLevel() []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range s.resolve(s.raw, 0) {
		req := stringList(n, "required")
		reqSet := map[string]bool{}
		for _, r := range req {
			reqSet[r] = true
		}
		if props, ok := n.Get("properties"); ok && props.Kind == KindObject {
			for _, m := range props.Members {
				if reqSet[m.Name] && !seen[m.Name] {
					seen[m.Name] = true
					out = append(out, m.Name)
				}
			}
		}
		for _, r := range req {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// resolve expands a schema node into the nodes that apply to the same instance: itself, its local
// $ref targets and its allOf members, recursively. Each node appears once, so reference cycles
// and repeated references stay linear.
func (s *Schema) resolve(n *Value, _ int) []*Value {
	var out []*Value
	seen := map[*Value]bool{}
	var walk func(n *Value, depth int)
	walk = func(n *Value, depth int) {
		if n == nil || n.Kind != KindObject || seen[n] || depth > 32 || len(out) > 256 {
			return
		}
		seen[n] = true
		out = append(out, n)
		if ref, ok := n.Get("$ref"); ok && ref.Kind == KindString {
			walk(s.pointer(ref.String), depth+1)
		}
		if all, ok := n.Get("allOf"); ok && all.Kind == KindArray {
			for _, m := range all.Items {
				walk(m, depth+1)
			}
		}
	}
	walk(n, 0)
	return out
}

// pointer resolves a local reference "#/a/b" (or "#") in the schema document.
func (s *Schema) pointer(ref string) *Value {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	return walkPointer(s.raw, ref[1:])
}

func walkPointer(root *Value, ptr string) *Value {
	cur := root
	if ptr == "" {
		return cur
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	for _, tok := range jsonptr.Split(ptr) {
		switch cur.Kind {
		case KindObject:
			v, ok := cur.Get(tok)
			if !ok {
				return nil
			}
			cur = v
		case KindArray:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.Items) {
				return nil
			}
			cur = cur.Items[i]
		default:
			return nil
		}
	}
	return cur
}

// child returns the schema nodes that apply to the member or element tok of an instance
// described by the nodes ns: properties, patternProperties, additionalProperties, prefixItems,
// items (2020-12 and draft-07 forms) and additionalItems.
func (s *Schema) child(ns []*Value, tok string, isIndex bool) []*Value {
	var out []*Value
	for _, n := range ns {
		if isIndex {
			i, _ := strconv.Atoi(tok)
			prefix, _ := n.Get("prefixItems")
			items, hasItems := n.Get("items")
			if hasItems && items.Kind == KindArray { // draft-07 tuple form
				prefix = items
				items, hasItems = n.Get("additionalItems")
			}
			if prefix != nil && prefix.Kind == KindArray && i < len(prefix.Items) {
				out = append(out, s.resolve(prefix.Items[i], 0)...)
			} else if hasItems {
				out = append(out, s.resolve(items, 0)...)
			}
			continue
		}
		matched := false
		if props, ok := n.Get("properties"); ok {
			if p, ok := props.Get(tok); ok {
				out = append(out, s.resolve(p, 0)...)
				matched = true
			}
		}
		if pats, ok := n.Get("patternProperties"); ok && pats.Kind == KindObject {
			for _, m := range pats.Members {
				if re, err := regexp.Compile(m.Name); err == nil && re.MatchString(tok) {
					out = append(out, s.resolve(m.Value, 0)...)
					matched = true
				}
			}
		}
		if !matched {
			if ap, ok := n.Get("additionalProperties"); ok {
				out = append(out, s.resolve(ap, 0)...)
			}
		}
	}
	return out
}

// nodesAt returns the schema nodes for the instance location given by tokens; isIndex says which
// tokens index arrays.
func (s *Schema) nodesAt(tokens []string, isIndex []bool) []*Value {
	ns := s.resolve(s.raw, 0)
	for i, tok := range tokens {
		ns = s.child(ns, tok, isIndex[i])
	}
	return ns
}

// requiredIn reports whether key is listed in the required array of any node in ns.
func requiredIn(ns []*Value, key string) bool {
	return slices.ContainsFunc(ns, func(n *Value) bool { return slices.Contains(stringList(n, "required"), key) })
}

// declaredIndex returns the position of key among the declared properties of the first node of
// ns that declares it, counting required-only keys after the properties; -1 when undeclared.
func declaredIndex(ns []*Value, key string) int {
	idx := 0
	for _, n := range ns {
		if props, ok := n.Get("properties"); ok && props.Kind == KindObject {
			for _, m := range props.Members {
				if m.Name == key {
					return idx
				}
				idx++
			}
		}
	}
	for _, n := range ns {
		for _, r := range stringList(n, "required") {
			if r == key {
				return idx
			}
			idx++
		}
	}
	return -1
}

func stringList(n *Value, key string) []string {
	v, ok := n.Get(key)
	if !ok || v.Kind != KindArray {
		return nil
	}
	var out []string
	for _, it := range v.Items {
		if it.Kind == KindString {
			out = append(out, it.String)
		}
	}
	return out
}

// label is the item <type> of §2.7 for a value described by ns: the x-label annotation, else the
// declared type, else "any".
func (s *Schema) label(ns []*Value) string {
	for _, n := range ns {
		if l, ok := n.Get("x-label"); ok && l.Kind == KindString {
			return l.String
		}
	}
	for _, n := range ns {
		types := typeList(n)
		if len(types) == 0 {
			continue
		}
		if len(types) == 1 && types[0] == "array" {
			if it := s.child([]*Value{n}, "0", true); len(it) > 0 {
				if t := singleType(it); t != "" {
					return "array of " + t
				}
			}
		}
		return strings.Join(types, " or ")
	}
	return "any"
}

// singleType is the one declared type of an item schema (its x-label if present), or "".
func singleType(ns []*Value) string {
	for _, n := range ns {
		if l, ok := n.Get("x-label"); ok && l.Kind == KindString {
			return l.String
		}
	}
	for _, n := range ns {
		if t := typeList(n); len(t) == 1 {
			return t[0]
		}
		if t := typeList(n); len(t) > 1 {
			return ""
		}
	}
	return ""
}

func typeList(n *Value) []string {
	t, ok := n.Get("type")
	if !ok {
		return nil
	}
	if t.Kind == KindString {
		return []string{t.String}
	}
	var out []string
	if t.Kind == KindArray {
		for _, it := range t.Items {
			if it.Kind == KindString {
				out = append(out, it.String)
			}
		}
	}
	return out
}

// formats returns the custom format names that apply through ns.
func formatsOf(ns []*Value) []string {
	var out []string
	for _, n := range ns {
		if f, ok := n.Get("format"); ok && f.Kind == KindString {
			out = append(out, f.String)
		}
	}
	return out
}
