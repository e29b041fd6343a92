package report

import (
	"strings"

	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// quote renders a value in double quotes for a message, escaping control and bidi characters.
func quote(s string) string { return `"` + textsafe.Escape(s) + `"` }

// isAtOrBelow reports whether pointer p is a or lies below it.
func isAtOrBelow(p, a string) bool {
	return p == a || a == "" || strings.HasPrefix(p, a+"/")
}

// suppressByValues applies §5.4 rule 1: a schema.* or consistency.* finding is dropped when a
// value.* finding exists at the same pointer or an ancestor. A value.depth finding also
// suppresses findings at its ancestors: the walk cut that subtree off, so the shape of every
// enclosing node is unreliable (§8.4: 65 levels inside claims gives value.depth only).
func (c *checker) suppressByValues() {
	var vals, depths []string
	for _, f := range c.findings {
		if strings.HasPrefix(f.Rule, "value.") {
			vals = append(vals, f.Pointer)
		}
		if f.Rule == yamlstrict.RuleDepth {
			depths = append(depths, f.Pointer)
		}
	}
	if len(vals) == 0 {
		return
	}
	out := c.findings[:0]
	for _, f := range c.findings {
		if strings.HasPrefix(f.Rule, "schema.") || strings.HasPrefix(f.Rule, "consistency.") {
			drop := false
			for _, v := range vals {
				if isAtOrBelow(f.Pointer, v) {
					drop = true
					break
				}
			}
			for _, d := range depths {
				if f.Pointer != "" && isAtOrBelow(d, f.Pointer) {
					drop = true
				}
			}
			if drop {
				continue
			}
		}
		out = append(out, f)
	}
	c.findings = out
}

// blocked reports whether a consistency rule must not be evaluated for pointer p (§5.4 rule 2):
// a value.* or schema.* finding exists at p or an ancestor. A schema.required finding names a
// missing sibling, not a bad value, so it does not block the fields that are present.
func (c *checker) blocked(p string) bool {
	for _, f := range c.findings {
		if f.Rule == RuleRequired {
			continue
		}
		if (strings.HasPrefix(f.Rule, "value.") || strings.HasPrefix(f.Rule, "schema.")) && isAtOrBelow(p, f.Pointer) {
			return true
		}
	}
	return false
}

// passed reports whether the subtree at p passed the value and schema stages entirely (§5.4
// rule 3): no value.* or schema.* finding at p, at an ancestor or below it.
func (c *checker) passed(p string) bool {
	for _, f := range c.findings {
		if !strings.HasPrefix(f.Rule, "value.") && !strings.HasPrefix(f.Rule, "schema.") {
			continue
		}
		if f.Rule == RuleRequired && f.Pointer != p && !isAtOrBelow(f.Pointer, p) {
			continue
		}
		if isAtOrBelow(p, f.Pointer) || isAtOrBelow(f.Pointer, p) {
			return false
		}
	}
	return true
}
