package filter

import (
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
	"github.com/santhosh-tekuri/jsonschema/v5"
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
					if m.Key == tok {
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
	for _, leaf := range leaves(ve) {
		items = append(items, s.leafItems(root, leaf)...)
	}
	items = dedupe(items)
	sortItems(items)
	return items
}

func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// keywordNode returns the schema node holding the failing keyword, when the absolute keyword
// location points into the declared schema document.
func (s *Schema) keywordNode(leaf *jsonschema.ValidationError, keyword string) *Value {
	abs := leaf.AbsoluteKeywordLocation
	i := strings.IndexByte(abs, '#')
	if i < 0 || abs[:i] != schemaURL {
		return nil
	}
	frag := validatorPointer(abs[i+1:])
	if keyword != "" {
		if !strings.HasSuffix(frag, "/"+keyword) {
			return nil
		}
		frag = strings.TrimSuffix(frag, "/"+keyword)
	}
	return walkPointer(s.raw, frag)
}

func (s *Schema) leafItems(root *Value, leaf *jsonschema.ValidationError) []Item {
	instance := validatorPointer(leaf.InstanceLocation)
	tokens := jsonptr.Split(instance)
	keyword := jsonptr.Last(validatorPointer(leaf.KeywordLocation))
	val := walkPointer(root, instance)
	node := s.keywordNode(leaf, keyword)
	typ := ""
	if node != nil {
		typ = s.label(s.resolve(node, 0))
	}
	switch keyword {
	case "required":
		var missing []string
		if node != nil {
			for _, r := range stringList(node, "required") {
				if _, ok := val.Get(r); !ok {
					missing = append(missing, r)
				}
			}
		} else {
			missing = quotedNames(strings.TrimPrefix(leaf.Message, "missing properties: "))
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
	case "type":
		if val != nil && val.Kind == KindNull {
			return []Item{s.item(root, tokens, "", typ, "null", RuleNull)}
		}
		reason := "wrong type: got " + phraseOf(val)
		if node != nil && val != nil && val.Kind != KindArray && contains(typeList(node), "array") {
			reason += ", not a list"
		}
		return []Item{s.item(root, tokens, "", typ, reason, RuleType)}
	case "enum", "const":
		reason := leaf.Message
		if node != nil {
			if e, ok := node.Get(keyword); ok {
				var vals []string
				if keyword == "const" {
					vals = []string{e.Compact()}
				} else if e.Kind == KindArray {
					for _, it := range e.Items {
						vals = append(vals, it.Compact())
					}
				}
				reason = "must be one of " + strings.Join(vals, ", ") + "; got " + compactOf(val)
			}
		}
		return []Item{s.item(root, tokens, "", typ, reason, RuleEnum)}
	case "format":
		reason := leaf.Message
		if node != nil && val != nil && val.Kind == KindString {
			if f, ok := node.Get("format"); ok && f.Kind == KindString {
				if r, ok := formatReason(f.Str, val.Str); ok {
					reason = r
				}
			}
		}
		return []Item{s.item(root, tokens, "", typ, reason, RuleFormat)}
	case "additionalProperties":
		if node == nil || val == nil || val.Kind != KindObject {
			break
		}
		var out []Item
		for _, m := range val.Members {
			if declaredOrPattern(node, m.Key) {
				continue
			}
			out = append(out, s.item(root, append(tokens[:len(tokens):len(tokens)], m.Key), NotAllowed, "any",
				"not declared in the OUTPUT schema", RuleUnknownField))
		}
		if len(out) > 0 {
			return out
		}
	case "":
		if leaf.Message == "not allowed" {
			return []Item{s.item(root, tokens, NotAllowed, "any", "not declared in the OUTPUT schema", RuleUnknownField)}
		}
	}
	return []Item{s.item(root, tokens, "", typ, leaf.Message, RuleSchemaOther)}
}

// validatorPointer converts a jsonschema/v5 location, whose RFC 6901 tokens are each also
// percent-encoded (a property "a b" is "/a%20b"), to a plain RFC 6901 pointer.
func validatorPointer(p string) string {
	toks := strings.Split(p, "/")
	for i, t := range toks {
		if u, err := url.PathUnescape(t); err == nil {
			toks[i] = u
		}
	}
	return strings.Join(toks, "/")
}

func declaredOrPattern(node *Value, key string) bool {
	if props, ok := node.Get("properties"); ok {
		if _, ok := props.Get(key); ok {
			return true
		}
	}
	if pats, ok := node.Get("patternProperties"); ok && pats.Kind == KindObject {
		for _, m := range pats.Members {
			if re, err := regexp.Compile(m.Key); err == nil && re.MatchString(key) {
				return true
			}
		}
	}
	return false
}

// quotedNames parses the validator's "'a', 'b'" list (fallback when the schema node is unknown).
func quotedNames(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ", ") {
		p = strings.TrimSuffix(strings.TrimPrefix(p, "'"), "'")
		if p != "" {
			out = append(out, p)
		}
	}
	return out
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
