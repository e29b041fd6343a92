package filter

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema"
	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema/kind"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
	"github.com/mastermind-controller/mastermind/internal/schemaerr"
)

// keyUnknown and keyAbsent offset sort keys so undeclared keys follow declared ones and absent
// keys follow present ones (§2.7 "Item order").
const (
	keyUnknown = 1 << 20
	keyAbsent  = 1 << 21
)

// loc is an instance location: reference tokens, which of them index arrays, the display path
// and the sort key.
type loc struct {
	tokens  []string
	isIndex []bool
	display string
	pointer string
	key     []int
}

// locate resolves pointer tokens against the instance root.
func (s *Schema) locate(root *Value, tokens []string) loc {
	l := loc{tokens: tokens, isIndex: make([]bool, len(tokens))}
	cur := root
	var parentNodes []*Value
	if s != nil {
		parentNodes = s.resolve(s.raw, 0)
	}
	var b strings.Builder
	for i, tok := range tokens {
		l.pointer = jsonptr.Append(l.pointer, tok)
		if cur != nil && cur.Kind == KindArray {
			l.isIndex[i] = true
			n, _ := strconv.Atoi(tok)
			b.WriteString("[" + tok + "]")
			l.key = append(l.key, n)
			if n >= 0 && n < len(cur.Items) {
				cur = cur.Items[n]
			} else {
				cur = nil
			}
		} else {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
			mi := -1
			if cur != nil {
				for j, m := range cur.Members {
					if m.Name == tok {
						mi = j
						cur = m.Value
						break
					}
				}
			}
			if mi < 0 {
				cur = nil
			}
			di := declaredIndex(parentNodes, tok)
			switch {
			case i == 0 && di >= 0:
				l.key = append(l.key, di)
			case i == 0 && mi >= 0:
				l.key = append(l.key, keyUnknown+mi)
			case mi >= 0:
				l.key = append(l.key, mi)
			case di >= 0:
				l.key = append(l.key, keyAbsent+di)
			default:
				l.key = append(l.key, keyAbsent+keyUnknown)
			}
		}
		if s != nil {
			parentNodes = s.child(parentNodes, tok, l.isIndex[i])
		}
	}
	l.display = b.String()
	if l.display == "" {
		l.display = "(output)"
	}
	return l
}

// presence is required/optional for the value at l (§2.7): array elements and the root are
// required; a member is required when its parent schema lists it.
func (s *Schema) presence(l loc) string {
	n := len(l.tokens)
	if n == 0 || l.isIndex[n-1] {
		return Required
	}
	if requiredIn(s.nodesAt(l.tokens[:n-1], l.isIndex[:n-1]), l.tokens[n-1]) {
		return Required
	}
	return Optional
}

func (s *Schema) item(root *Value, tokens []string, presence, typ, reason, rule string) Item {
	l := s.locate(root, tokens)
	if presence == "" {
		presence = s.presence(l)
	}
	if typ == "" {
		typ = s.label(s.nodesAt(l.tokens, l.isIndex))
	}
	return newItem(l.display, presence, typ, reason, rule, l.pointer, l.key)
}

// validateA runs variant A JSON Schema validation on an object and returns one item per leaf
// cause (§2.5, §2.7), sorted.
func (s *Schema) validateA(root *Value) []Item {
	err := s.compiled.Validate(root.Any())
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Item{s.item(root, nil, Required, "object", err.Error(), RuleSchemaOther)}
	}
	var items []Item
	for _, leaf := range schemaerr.Leaves(ve) {
		items = append(items, s.leafItems(root, leaf)...)
	}
	items = dedupe(items)
	sortItems(items)
	return items
}

// keywordNode returns the schema node holding the failing keyword, when it lies in the declared
// schema document.
func (s *Schema) keywordNode(l schemaerr.Location) *Value {
	if l.Document != schemaURL {
		return nil
	}
	return walkPointer(s.raw, l.Schema)
}

// leafItems maps one leaf validation error, by its kind, to items.
func (s *Schema) leafItems(root *Value, leaf schemaerr.Leaf) []Item {
	l := leaf.Location
	tokens := jsonptr.Split(l.Instance)
	val := walkPointer(root, l.Instance)
	node := s.keywordNode(l)
	typ := ""
	if node != nil {
		typ = s.label(s.resolve(node, 0))
	}
	message := schemaerr.Message(leaf.ErrorKind)
	switch k := leaf.ErrorKind.(type) {
	case *kind.Required:
		var missing []string
		if node != nil {
			for _, r := range stringList(node, "required") {
				if _, ok := val.Get(r); !ok {
					missing = append(missing, r)
				}
			}
		} else {
			missing = k.Missing
		}
		var out []Item
		for _, m := range missing {
			t := ""
			if node != nil {
				if ns := s.child([]*Value{node}, m, false); len(ns) > 0 {
					t = s.label(ns)
				}
			}
			out = append(out, s.item(root, append(tokens[:len(tokens):len(tokens)], m), Required, t, "absent", RuleAbsent))
		}
		return out
	case *kind.Type:
		if val != nil && val.Kind == KindNull {
			return []Item{s.item(root, tokens, "", typ, "null", RuleNull)}
		}
		reason := "wrong type: got " + phraseOf(val)
		if node != nil && val != nil && val.Kind != KindArray && slices.Contains(typeList(node), "array") {
			reason += ", not a list"
		}
		return []Item{s.item(root, tokens, "", typ, reason, RuleType)}
	case *kind.Enum, *kind.Const:
		reason := message
		if node != nil {
			if e, ok := node.Get(l.Keyword); ok {
				var vals []string
				if _, isConst := k.(*kind.Const); isConst {
					vals = []string{e.Compact()}
				} else if e.Kind == KindArray {
					for _, it := range e.Items {
						vals = append(vals, it.Compact())
					}
				}
				reason = "must be one of " + strings.Join(vals, ", ") + "; got " + compactOf(val)
				if len(vals) == 0 {
					reason = "no value is allowed (the enum is empty); got " + compactOf(val)
				}
			}
		}
		return []Item{s.item(root, tokens, "", typ, reason, RuleEnum)}
	case *kind.Format:
		reason := message
		if node != nil && val != nil && val.Kind == KindString {
			if f, ok := node.Get("format"); ok && f.Kind == KindString {
				if r, ok := formatReason(f.String, val.String); ok {
					reason = r
				}
			}
		}
		return []Item{s.item(root, tokens, "", typ, reason, RuleFormat)}
	case *kind.AdditionalProperties:
		if node == nil || val == nil || val.Kind != KindObject {
			break
		}
		var out []Item
		for _, m := range val.Members {
			if declaredOrPattern(node, m.Name) {
				continue
			}
			out = append(out, s.item(root, append(tokens[:len(tokens):len(tokens)], m.Name), NotAllowed, "any",
				"not declared in the OUTPUT schema", RuleUnknownField))
		}
		if len(out) > 0 {
			return out
		}
	case *kind.DependentRequired:
		if out := s.dependencyItems(root, tokens, typ, k.Prop, k.Missing); len(out) > 0 {
			return out
		}
	case *kind.Dependency:
		if out := s.dependencyItems(root, tokens, typ, k.Prop, k.Missing); len(out) > 0 {
			return out
		}
	case *kind.FalseSchema:
		// A root schema of false refuses every return; a false subschema is its keyword's
		// failure (a schema.other item below).
		if l.Document == schemaURL && l.Schema == "" {
			return []Item{s.item(root, tokens, NotAllowed, "any", "not declared in the OUTPUT schema", RuleUnknownField)}
		}
	}
	return []Item{s.item(root, tokens, "", typ, message, RuleSchemaOther)}
}

// dependencyItems gives one item per property that prop's presence requires and that is missing.
func (s *Schema) dependencyItems(root *Value, tokens []string, typ, prop string, missing []string) []Item {
	var out []Item
	for _, m := range missing {
		msg := schemaerr.Message(&kind.DependentRequired{Prop: prop, Missing: []string{m}})
		out = append(out, s.item(root, tokens, "", typ, msg, RuleSchemaOther))
	}
	return out
}

func declaredOrPattern(node *Value, key string) bool {
	if props, ok := node.Get("properties"); ok {
		if _, ok := props.Get(key); ok {
			return true
		}
	}
	if pats, ok := node.Get("patternProperties"); ok && pats.Kind == KindObject {
		for _, m := range pats.Members {
			if re, err := regexp.Compile(m.Name); err == nil && re.MatchString(key) {
				return true
			}
		}
	}
	return false
}

func phraseOf(v *Value) string {
	if v == nil {
		return "nothing"
	}
	return typePhrase(v)
}

func compactOf(v *Value) string {
	if v == nil {
		return "nothing"
	}
	return v.Compact()
}
