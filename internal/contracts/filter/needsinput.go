package filter

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
)

// Variants of the status discriminated union (agent-contracts.md §2.6).
const (
	VariantComplete   = "complete"
	VariantNeedsInput = "needs_input"
)

// Contract texts of §2.6.
const (
	NoteStatusAbsent     = "status absent: treated as complete (compatibility fallback)"
	ReasonDiscriminator  = "status discriminator missing or invalid: declare 'complete' or 'needs_input'"
	RecommendationNone   = "none — no clear preference"
	reasonBlockingStep   = "blocking_step required: quote the verbatim plan step you halted at"
	reasonAmbiguityType  = "ambiguity_type must be exactly spec-ambiguity or missing-context"
	reasonTried          = "tried required: state what you attempted to resolve from the brief alone — 'n/a' is not a valid answer"
	reasonQuestion       = "question required: a NEEDS_INPUT halt must ask one question ending with '?'"
	reasonOptions        = "options must offer at least 2 choices, each with a non-empty label and summary"
	reasonRecommendation = "recommendation must name one of the option labels or be exactly 'none — no clear preference'"
	reasonRolledBack     = "rolled_back must be a boolean, not a string"
	reasonNotNeedsInput  = "not part of the needs_input shape"
)

var placeholderRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(n/a|nothing|none|tbd)$`) })

// needsInputFields is the variant B field order (§2.7 item order 3).
var needsInputFields = []struct{ name, typ string }{
	{"status", "string"},
	{"blocking_step", "string"},
	{"ambiguity_type", "string"},
	{"tried", "string"},
	{"question", "string"},
	{"options", "array of object"},
	{"recommendation", "string"},
	{"rolled_back", "boolean"},
	{"task_number", "integer"},
	{"task_title", "string"},
}

// route reads the top-level status of obj when the union is on: the variant, a note for the
// compatibility fallback, or the single discriminator item.
func route(obj *Value) (variant, note string, bad *Item) {
	st, ok := obj.Get("status")
	if !ok {
		return VariantComplete, NoteStatusAbsent, nil
	}
	if st.Kind == KindString && (st.String == VariantComplete || st.String == VariantNeedsInput) {
		return st.String, "", nil
	}
	it := newItem("status", Required, "string", ReasonDiscriminator, RuleDiscriminator, "/status", []int{0})
	return VariantComplete, "", &it
}

// validateNeedsInput applies the built-in variant B rules of §2.6 to obj and returns its items
// in the fixed field order, then unknown keys in document order.
func validateNeedsInput(obj *Value) []Item {
	var items []Item
	add := func(idx int, field, presence, typ, reason, rule string) {
		items = append(items, newItem(field, presence, typ, reason, rule, jsonptr.Append("", field), []int{idx}))
	}
	labels := []string{}
	for i, f := range needsInputFields {
		v, present := obj.Get(f.name)
		rule := RuleNeedsInputPrefix + f.name
		switch f.name {
		case "status":
			// routed already
		case "blocking_step":
			if !nonBlank(v) {
				add(i, f.name, Required, f.typ, reasonBlockingStep, rule)
			}
		case "ambiguity_type":
			if v == nil || v.Kind != KindString || (v.String != "spec-ambiguity" && v.String != "missing-context") {
				add(i, f.name, Required, f.typ, reasonAmbiguityType, rule)
			}
		case "tried":
			if !nonBlank(v) || placeholderRe().MatchString(strings.TrimSpace(v.String)) {
				add(i, f.name, Required, f.typ, reasonTried, rule)
			}
		case "question":
			if !nonBlank(v) || !strings.HasSuffix(strings.TrimRightFunc(v.String, unicode.IsSpace), "?") {
				add(i, f.name, Required, f.typ, reasonQuestion, rule)
			}
		case "options":
			reason, ls := checkOptions(v)
			labels = ls
			if reason != "" {
				add(i, f.name, Required, f.typ, reason, rule)
			}
		case "recommendation":
			if !nonBlank(v) || !recommendationOK(v.String, labels) {
				add(i, f.name, Required, f.typ, reasonRecommendation, rule)
			}
		case "rolled_back":
			switch {
			case !present:
				add(i, f.name, Required, f.typ, "absent", rule)
			case v.Kind == KindBool:
			case v.Kind == KindString:
				add(i, f.name, Required, f.typ, reasonRolledBack, rule)
			case v.Kind == KindNull:
				add(i, f.name, Required, f.typ, "null", rule)
			default:
				add(i, f.name, Required, f.typ, "wrong type: got "+typePhrase(v), rule)
			}
		case "task_number":
			if present && !isInteger(v) {
				add(i, f.name, Optional, f.typ, wrongType(v), rule)
			}
		case "task_title":
			if present && v.Kind != KindString {
				add(i, f.name, Optional, f.typ, wrongType(v), rule)
			}
		}
	}
	known := map[string]bool{}
	for _, f := range needsInputFields {
		known[f.name] = true
	}
	for j, m := range obj.Members {
		if !known[m.Name] {
			add(len(needsInputFields)+j, m.Name, NotAllowed, "any", reasonNotNeedsInput, RuleUnknownField)
		}
	}
	return items
}

func wrongType(v *Value) string {
	if v.Kind == KindNull {
		return "null"
	}
	return "wrong type: got " + typePhrase(v)
}

func nonBlank(v *Value) bool {
	return v != nil && v.Kind == KindString && strings.TrimSpace(v.String) != ""
}

func isInteger(v *Value) bool {
	if v.Kind != KindNumber {
		return false
	}
	r, ok := new(big.Rat).SetString(string(v.Number))
	return ok && r.IsInt()
}

// checkOptions returns the options failure reason ("" when valid) and the trimmed labels seen.
func checkOptions(v *Value) (string, []string) {
	if v == nil || v.Kind != KindArray {
		return reasonOptions, nil
	}
	var labels []string
	ok := len(v.Items) >= 2
	first := map[string]int{}
	dup := ""
	for j, it := range v.Items {
		l, hasL := it.Get("label")
		sm, hasS := it.Get("summary")
		if !hasL || !nonBlank(l) || !hasS || !nonBlank(sm) {
			ok = false
			if hasL && l.Kind == KindString && strings.TrimSpace(l.String) != "" {
				labels = append(labels, strings.TrimSpace(l.String))
			}
			continue
		}
		t := strings.TrimSpace(l.String)
		labels = append(labels, t)
		if i, seen := first[t]; seen {
			if dup == "" {
				dup = "options[" + strconv.Itoa(j) + "].label repeats options[" + strconv.Itoa(i) + "].label"
			}
			continue
		}
		first[t] = j
	}
	if !ok {
		return reasonOptions, labels
	}
	return dup, labels
}

// recommendationOK: exactly RecommendationNone, or a label after trim, or a label followed by a
// character that is not an ASCII letter or digit ("A — simplest").
func recommendationOK(rec string, labels []string) bool {
	if rec == RecommendationNone {
		return true
	}
	r := strings.TrimSpace(rec)
	for _, l := range labels {
		if r == l {
			return true
		}
		if strings.HasPrefix(r, l) {
			c := r[len(l)]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return true
			}
		}
	}
	return false
}
