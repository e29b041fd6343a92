package report

import (
	"strings"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
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
// suppresses findings at its ancestors, whose shape is unreliable once the walk cut it off.
func (c *checker) suppressByValues() {
	// Pointers of value.* findings, and every pointer at or above a value.depth finding. Each
	// finding is then checked against its own ancestors, linear in findings × depth where
	// comparing every pair was quadratic.
	vals := map[string]bool{}
	aboveDepth := map[string]bool{}
	for _, f := range c.findings {
		if strings.HasPrefix(f.Rule, "value.") {
			vals[f.Pointer] = true
		}
		if f.Rule == yamlstrict.RuleDepth {
			for a := f.Pointer; ; a = jsonptr.Parent(a) {
				aboveDepth[a] = true
				if a == "" {
					break
				}
			}
		}
	}
	if len(vals) == 0 {
		return
	}
	c.blockIdx = nil
	out := c.findings[:0]
	for _, f := range c.findings {
		if strings.HasPrefix(f.Rule, "schema.") || strings.HasPrefix(f.Rule, "consistency.") {
			if atOrBelowAny(f.Pointer, vals) || (f.Pointer != "" && aboveDepth[f.Pointer]) {
				continue
			}
		}
		out = append(out, f)
	}
	c.findings = out
}

// atOrBelowAny reports whether p or one of its ancestors, the root "" included, is in set.
func atOrBelowAny(p string, set map[string]bool) bool {
	for {
		if set[p] {
			return true
		}
		if p == "" {
			return false
		}
		p = jsonptr.Parent(p)
	}
}

// blocked reports whether a consistency rule must not be evaluated for pointer p (§5.4 rule 2):
// a value.* or schema.* finding exists at p or an ancestor. A schema.required finding names a
// missing sibling, not a bad value, so it does not block the fields that are present.
func (c *checker) blocked(p string) bool {
	// The index of blocking pointers grows with c.findings (consistency findings never block)
	// and is reset when suppressByValues rewrites the slice.
	if c.blockIdx == nil {
		c.blockIdx, c.blockSeen = map[string]bool{}, 0
	}
	for ; c.blockSeen < len(c.findings); c.blockSeen++ {
		f := c.findings[c.blockSeen]
		if f.Rule != RuleRequired && (strings.HasPrefix(f.Rule, "value.") || strings.HasPrefix(f.Rule, "schema.")) {
			c.blockIdx[f.Pointer] = true
		}
	}
	return atOrBelowAny(p, c.blockIdx)
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
