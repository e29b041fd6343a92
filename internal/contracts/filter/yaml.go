package filter

import (
	"math"
	"strconv"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// yamlBlock decodes a ```yaml fence with yamlstrict's strict walk, except that null is allowed
// (agent-contracts.md §2.4 step 2). Any other issue makes the block malformed, and a root that is
// not a mapping is filter.not_object.
func yamlBlock(content, src []byte, base int) block {
	firstLine := 1
	for _, c := range src[:min(base, len(src))] {
		if c == '\n' {
			firstLine++
		}
	}
	doc, issues := yamlstrict.Decode(content)
	for _, is := range issues {
		if is.Rule == "value.null" {
			continue
		}
		if is.Rule == "decode.not_mapping" {
			got := is.Message
			if i := strings.LastIndex(got, "; got "); i >= 0 {
				got = got[i+len("; got "):]
			}
			it := rootItem("got "+got, RuleNotObject, "object")
			return block{fail: &it, yaml: true}
		}
		msg := is.Message
		if is.Pos.Line > 0 {
			msg += " at line " + strconv.Itoa(firstLine+is.Pos.Line-1) + ", column " + strconv.Itoa(is.Pos.Column)
		}
		it := rootItem("malformed YAML: "+msg, RuleMalformed, "object")
		return block{fail: &it, yaml: true}
	}
	if doc == nil {
		it := rootItem(reasonNoBlock, RuleNoBlock, "object")
		return block{fail: &it, yaml: true}
	}
	v, ok := yamlValue(doc, "", doc.Value)
	if !ok {
		it := rootItem("malformed YAML: a number is not representable in JSON", RuleMalformed, "object")
		return block{fail: &it, yaml: true}
	}
	return objectBlock(v, true)
}

// yamlValue converts the decoded value at ptr into a Value, keeping mapping keys in source order.
func yamlValue(doc *yamlstrict.Doc, ptr string, val any) (*Value, bool) {
	node := doc.Nodes[ptr]
	switch x := val.(type) {
	case nil:
		return &Value{Kind: KindNull}, true
	case bool:
		return &Value{Kind: KindBool, Bool: x}, true
	case string:
		return &Value{Kind: KindString, String: x}, true
	case int64:
		return &Value{Kind: KindNumber, Number: strconv.FormatInt(x, 10)}, true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, false
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if node != nil && node.Kind == yamlstrict.KindFloat && isIntLiteral(s) {
			s += ".0"
		}
		return &Value{Kind: KindNumber, Number: s}, true
	case []any:
		out := &Value{Kind: KindArray, Items: []*Value{}}
		for i, it := range x {
			c, ok := yamlValue(doc, jsonptr.AppendIndex(ptr, i), it)
			if !ok {
				return nil, false
			}
			out.Items = append(out.Items, c)
		}
		return out, true
	case map[string]any:
		out := &Value{Kind: KindObject, Members: []Member{}}
		var keys []string
		if node != nil {
			keys = node.Keys
		}
		for _, k := range keys {
			c, ok := yamlValue(doc, jsonptr.Append(ptr, k), x[k])
			if !ok {
				return nil, false
			}
			out.Members = append(out.Members, Member{Name: k, Value: c})
		}
		return out, true
	}
	return nil, false
}

func isIntLiteral(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}
