package forge

import (
	"errors"
	"fmt"
)

// Rule ids of §1.5, in the order of §1.4.
const (
	RuleNoBlock          = "forge.no_block"
	RuleMalformedJSON    = "forge.malformed_json"
	RuleNotObject        = "forge.not_object"
	RuleStatus           = "forge.status"
	RuleWorkPackage      = "forge.work_package"
	RuleFilesChanged     = "forge.files_changed"
	RuleEvidenceType     = "forge.evidence_type"
	RuleEvidenceRequired = "forge.evidence_required"
	RuleBlockersRequired = "forge.blockers_required"
	RuleBlockersType     = "forge.blockers_type"
	RuleTestsRun         = "forge.tests_run"
	RuleNextAction       = "forge.next_action"
	RuleResultCaveat     = "forge.result_caveat"
	// RuleFilesNotChanged: a files_changed entry that git does not show as changed since --since.
	RuleFilesNotChanged = "forge.files_changed_not_changed"
	// RuleFilesUnlisted: a path git shows as changed since --since that files_changed omits.
	RuleFilesUnlisted = "forge.files_changed_unlisted"
)

// Exact error texts of §1.4.
const (
	msgNoBlock          = "no ```forge-report fenced block found in text"
	msgMalformed        = "malformed JSON in ```forge-report block: "
	msgNotObject        = "report must be a JSON object"
	msgStatus           = "status must be one of: completed, partial, blocked, failed (got %s)"
	msgWorkPackage      = "work_package must be a non-empty string"
	msgFilesChanged     = "files_changed must be an array (use [] when no files changed)"
	msgEvidenceType     = "evidence must be an array (use [] when there is genuinely none — but see the completed rule below)"
	msgEvidenceRequired = `evidence must contain at least one non-empty string when status is "completed" — a completed claim REQUIRES evidence`
	msgBlockersRequired = `blockers must be a non-empty array when status is "blocked"`
	msgBlockersType     = "blockers must be an array when present"
	msgTestsRun         = `tests_run must be a string or an array — use "none" if nothing was run (be honest)`
	msgNextAction       = "next_action must be a non-empty string"
	msgResultCaveat     = `result_caveat must be a non-empty string when present — it answers "under what circumstances does this result NOT hold"; omit the field entirely rather than filling it with whitespace`
	// NoteNoResultCaveat is the §1.4 note for a completed report without result_caveat.
	NoteNoResultCaveat = "no result_caveat given: this report claims completed without stating under what circumstances the result does NOT hold (platform, data, scale, scenario). Not an error — the field is optional — but a green result whose validity conditions are unwritten is the easiest kind to over-trust."
)

// Statuses are the legal values of status, in contract order.
var Statuses = []string{"completed", "partial", "blocked", "failed"}

// Error is one validation error: its rule id, exact message and the line of the opening fence,
// 0 when no block was found.
type Error struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	Line    int    `json:"line"`
}

// Result is the outcome of Check: Report is the parsed object, nil when steps 0a–0c failed,
// Errors are in rule order, and Notes never change validity.
type Result struct {
	Report      *Object
	Line        int
	Errors      []Error
	Notes       []string
	Status      string // "" unless status is a string; lone surrogates as U+FFFD (WellFormed)
	WorkPackage string // "" unless work_package is a string; lone surrogates as U+FFFD (WellFormed)
}

// Valid reports whether there are no errors.
func (r *Result) Valid() bool { return len(r.Errors) == 0 }

// Check extracts the last complete forge-report block from an agent's raw message (BOM
// stripped) and validates it under §1.4. All errors of rules 1–10 are reported; 0a–0c stop.
func Check(message []byte) *Result {
	res := &Result{}
	src := StripBOM(message)
	blk, ok := Extract(src)
	if !ok {
		msg, line := msgNoBlock, 0
		if hint, at := NoBlockHint(src); hint != "" {
			msg, line = fmt.Sprintf("%s (line %d: %s)", msgNoBlock, at, hint), at
		}
		res.Errors = append(res.Errors, Error{RuleNoBlock, msg, line})
		return res
	}
	res.Line = blk.Line
	v, err := ParseJSON(blk.Content)
	if err != nil {
		msg := msgMalformed + err.Error()
		if errors.Is(err, ErrTooDeep) {
			msg += "; flatten the report"
		}
		res.Errors = append(res.Errors, Error{RuleMalformedJSON, msg, blk.Line})
		return res
	}
	obj, ok := v.(*Object)
	if !ok {
		res.Errors = append(res.Errors, Error{RuleNotObject, msgNotObject, blk.Line})
		return res
	}
	res.Report = obj
	for _, e := range ValidateObject(obj) {
		e.Line = blk.Line
		res.Errors = append(res.Errors, e)
	}
	if s, ok := obj.vals["status"].(string); ok {
		res.Status = WellFormed(s)
	}
	if s, ok := obj.vals["work_package"].(string); ok {
		res.WorkPackage = WellFormed(s)
	}
	if _, has := obj.vals["result_caveat"]; !has && res.Status == "completed" {
		res.Notes = append(res.Notes, NoteNoResultCaveat)
	}
	return res
}

// ValidateObject applies rules 1–10 of §1.4 to a report object and returns every error in rule
// order (Line unset).
func ValidateObject(o *Object) []Error {
	var errs []Error
	add := func(rule, msg string) { errs = append(errs, Error{Rule: rule, Message: msg}) }
	status, hasStatus := o.Get("status")
	ss, statusIsString := status.(string)
	if !statusIsString || !contains(Statuses, ss) {
		got := "undefined"
		if hasStatus {
			got = string(Stringify(nil, status))
		}
		add(RuleStatus, fmt.Sprintf(msgStatus, got))
	}
	if !nonBlankString(o.vals["work_package"]) {
		add(RuleWorkPackage, msgWorkPackage)
	}
	if _, ok := o.vals["files_changed"].([]any); !ok {
		add(RuleFilesChanged, msgFilesChanged)
	}
	evidence, evidenceIsArray := o.vals["evidence"].([]any)
	if !evidenceIsArray {
		add(RuleEvidenceType, msgEvidenceType)
	} else if statusIsString && ss == "completed" {
		// else: a non-array evidence already has its error; the original's if/else gives one.
		ok := false
		for _, e := range evidence {
			if nonBlankString(e) {
				ok = true
				break
			}
		}
		if !ok {
			add(RuleEvidenceRequired, msgEvidenceRequired)
		}
	}
	blockers, hasBlockers := o.Get("blockers")
	barr, blockersIsArray := blockers.([]any)
	if statusIsString && ss == "blocked" {
		ok := false
		for _, b := range barr {
			if b != nil && !isBlank(jsString(b)) {
				ok = true
				break
			}
		}
		if !ok {
			add(RuleBlockersRequired, msgBlockersRequired)
		}
	} else if hasBlockers && !blockersIsArray {
		add(RuleBlockersType, msgBlockersType)
	}
	switch o.vals["tests_run"].(type) {
	case string, []any:
	default:
		add(RuleTestsRun, msgTestsRun)
	}
	if !nonBlankString(o.vals["next_action"]) {
		add(RuleNextAction, msgNextAction)
	}
	if rc, has := o.Get("result_caveat"); has && !nonBlankString(rc) {
		add(RuleResultCaveat, msgResultCaveat)
	}
	return errs
}

func nonBlankString(v any) bool {
	s, ok := v.(string)
	return ok && !isBlank(s)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Summary is the `tests: …` part of the agent_output event: a string tests_run as is, an array
// joined with " | " using ECMAScript String() on each element (null → "").
func testsSummary(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		return joinJS(t, " | ", 0)
	}
	return jsString(v)
}
