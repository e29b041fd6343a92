package render

import (
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// Rule ids of the SARIF and rdjson results that are not findings (integrations.md §4): a refused
// task, a task never pre-flighted, a task or file that could not be audited, a learned task whose
// history review does not back it, and the SARIF result that counts the results left out.
const (
	RuleRefused    = "mastermind.refused"
	RuleNotStarted = "mastermind.not_started"
	RuleTaskError  = "mastermind.error"
	RuleUnbacked   = "mastermind.learned_unbacked"
	RuleTruncated  = "mastermind.truncated"
)

// outcomeRules describe the results that are not findings, by id.
var outcomeRules = ruleIndex([]RuleMeta{
	{ID: RuleRefused, Class: finding.ClassError, Short: "The task was refused",
		Full: "mastermind refused the task: its spec changed since pre-flight approved it, or pre-flight is required before the task can be audited. The message gives the reason.",
		Help: "Read the message. Restore the approved spec, or run pre-flight again (mastermind run-task <spec> --pre-only) so the planner approves the new one."},
	{ID: RuleNotStarted, Class: finding.ClassError, Short: "The task was never pre-flighted",
		Full: "The task folder has a spec but no state.json: pre-flight never approved it, or its state was removed, so the work is open and unapproved. The gate fails closed on it.",
		Help: "Run pre-flight on the spec (mastermind run-task <spec> --pre-only), restore a removed state.json from git history, or remove the task folder if the task is not wanted."},
	{ID: RuleTaskError, Class: finding.ClassError, Short: "The task could not be audited",
		Full: "mastermind could not audit the task or read the file: its state is corrupt, the task folder is unusable or misnamed, a file could not be read, or git failed. The message names the cause.",
		Help: "Fix the cause the message names (a corrupt state.json, a misnamed task folder, an unreadable file, a git failure) and run the command again."},
	{ID: RuleUnbacked, Class: finding.ClassError, Short: "A learned task's history review does not back it",
		Full: "state.json says the task is learned, but its history-review.md is missing, unusable or does not match the recorded history snapshot, so the closure is not backed and the gate fails.",
		Help: "Re-audit the task with mastermind run-task <spec> --post-only, or restore the history review that backs the closure."},
	{ID: RuleTruncated, Class: finding.ClassWarning, Short: "Results were left out of this SARIF log",
		Full: "GitHub code scanning keeps at most 5,000 results of a run and accepts at most 10 MB of compressed SARIF, so this log holds the error results first and leaves the rest out. The message says how many were left out and where the full list is.",
		Help: "Read the full list in each task's audit.md, or run the same command with --format json. Fixing the errors shown here usually removes most of the others."},
})

// ruleFamilies describe the rule ids outside the kinds table by their prefix.
var ruleFamilies = []struct {
	prefix, short, full, help string
}{
	{"report.", "The executor report cannot be read as a v1 report",
		"The executor report is missing, unreadable, too large, not UTF-8, empty, or its report block cannot be located (executor-report-v1.md §1, §2). The message names the problem and its position.",
		"Fix executor-report.md as the message says: one report block between the mastermind:report-begin and mastermind:report-end markers, in UTF-8, then run post-flight again."},
	{"decode.", "The executor report's YAML cannot be decoded",
		"The report block is not one YAML or JSON document with a mapping at its root (executor-report-v1.md §3). The message keeps the decoder's line and column.",
		"Fix the YAML syntax at the position the message names, keep a single document, and run post-flight again."},
	{"value.", "The executor report holds a YAML value the contract forbids",
		"The report block uses a YAML feature or value v1 does not allow: null, a tag, an anchor or alias, a merge key, a non-string key, a duplicate key, deep nesting, a non-finite or out-of-range number (executor-report-v1.md §3).",
		"Write the field at the position the message names as a plain value of the type the contract expects, and run post-flight again."},
	{"schema.", "The executor report does not match the v1 schema",
		"A field of the report is missing, unknown, of the wrong type, outside its allowed values, too short or out of range (executor-report-v1.md §4). The message names the field and what was expected.",
		"Fix the field at the position the message names, as executor-report-v1.md §4 describes it, and run post-flight again."},
	{"consistency.", "The executor report contradicts itself",
		"The report's fields disagree with each other: a blank value, a duplicate id or path, an invalid path, or a complete status with defects, unfinished steps or failed verifications (executor-report-v1.md §5).",
		"Make the report's fields agree as the message says (for example status: incomplete with the defect listed), and run post-flight again."},
	{"spec.", "The task spec breaks a rule",
		"The spec's frontmatter, sections, declarations or verify commands break a rule of spec-and-lifecycle.md, or the spec changed during pre-flight. The message names the rule and its position.",
		"Fix spec.md as the message says and run pre-flight again (mastermind run-task <spec> --pre-only)."},
	{"preflight.", "Pre-flight refused the task",
		"Pre-flight could not approve the task: its iteration budget is spent, the baseline is unavailable, the work tree has changes from before the task, another task is open, or an adoption was refused. The message gives the reason.",
		"Resolve the cause the message names (commit or stash earlier changes, close the other task, revise the spec) and run pre-flight again."},
	{"history_review.", "The history review is incomplete",
		"history-review.md does not hold every part that closing the task needs (lifecycle-v2.md). The message names the missing part.",
		"Complete history-review.md as the message says and run the command again."},
}

// ruleMeta returns the rule metadata of id: the kinds table's row (idx), an outcome rule, or a
// description of id's family, with withRuleDefaults applied.
func ruleMeta(id string, idx map[string]RuleMeta) RuleMeta {
	r, ok := idx[id]
	if !ok {
		r, ok = outcomeRules[id]
	}
	if !ok {
		r = RuleMeta{ID: id, Class: finding.ClassError}
		for _, fam := range ruleFamilies {
			if strings.HasPrefix(id, fam.prefix) {
				r.Short, r.Full, r.Help = fam.short+" ("+id+")", fam.full, fam.help
				break
			}
		}
	}
	return withRuleDefaults(r)
}

// withRuleDefaults fills r's empty Short, Full and Help from its id and from each other.
func withRuleDefaults(r RuleMeta) RuleMeta {
	if r.Short == "" {
		r.Short = kindTitle(strings.TrimPrefix(r.ID, "mastermind."))
	}
	if r.Full == "" {
		r.Full = r.Help
	}
	if r.Full == "" {
		r.Full = "mastermind rule " + r.ID + ": the message says what was found and where."
	}
	if r.Help == "" {
		r.Help = "Read the message, fix what it names, and run the command again; the full audit is in the task's audit.md."
	}
	return r
}
