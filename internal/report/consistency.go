package report

import (
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// Rule ids of the consistency rules (§4.1, §5.2 stage 6).
const (
	RuleBlank                      = "consistency.blank"
	RuleDuplicatePhaseID           = "consistency.duplicate_phase_id"
	RulePathInvalid                = "consistency.path_invalid"
	RuleDuplicatePath              = "consistency.duplicate_path"
	RuleCompleteHasDefects         = "consistency.complete_has_defects"
	RuleCompleteStepNotDone        = "consistency.complete_step_not_done"
	RuleCompleteFailedVerification = "consistency.complete_failed_verification"
	RuleDefectRequired             = "consistency.defect_required"
)

// checkConsistency runs C1–C13 on fields that passed the value and schema stages (§4, §5.4). The
// findings of all rules are computed against the schema-stage findings only, so one consistency
// rule never hides another.
func (c *checker) checkConsistency(doc *yamlstrict.Doc) {
	root, ok := doc.Value.(map[string]any)
	if !ok {
		return
	}
	var out []pending
	out = append(out, c.checkBlank(doc, root)...)
	out = append(out, c.checkPhaseIDs(doc, root)...)
	out = append(out, c.checkPaths(doc, root)...)
	out = append(out, c.checkStatus(doc, root)...)
	for _, p := range out {
		c.addAt(doc, p.rule, p.pos, p.pointer, p.msg)
	}
}

// pending is a consistency finding before it is positioned.
type pending struct {
	rule, pos, pointer, msg string
}

// str returns the string at pointer p when it exists, is a string and may be checked.
func (c *checker) str(doc *yamlstrict.Doc, p string) (string, bool) {
	if c.blocked(p) {
		return "", false
	}
	v, ok := at(doc.Value, p)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

// list returns the list at key of root, or nil.
func list(root map[string]any, key string) []any {
	l, _ := root[key].([]any)
	return l
}
