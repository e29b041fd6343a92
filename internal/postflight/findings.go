package postflight

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// Audit finding kinds (spec-and-lifecycle.md §9.1), in table order. The order drives sorting
// (§9.3) and the lessons "Observed" text (§11).
const (
	KindInvalidFrontmatter               = "invalid_frontmatter"
	KindDeclaredFileUnavailable          = "declared_file_unavailable"
	KindSnapshotSymbolGone               = "snapshot_symbol_gone"
	KindSnapshotUnresolved               = "snapshot_unresolved"
	KindRemovedSymbolNotAcknowledged     = "removed_symbol_not_acknowledged"
	KindRemovalAcknowledgementUnresolved = "removal_acknowledgement_unresolved"
	KindClaimedSymbolMissing             = "claimed_symbol_missing"
	KindClaimedSymbolNotAdded            = "claimed_symbol_not_added"
	KindClaimedSignatureMismatch         = "claimed_signature_mismatch"
	KindHallucinatedSymbol               = "hallucinated_symbol"
	KindMissingCallEdge                  = "missing_call_edge"
	KindExecutorClaimUnresolved          = "executor_claim_unresolved"
	KindExecutorReportRejected           = "executor_report_rejected"
	KindReportMissingChangedFile         = "executor_report_missing_changed_file"
	KindReportUnexpectedFile             = "executor_report_unexpected_file"
	KindVerificationRequirementUnmet     = "verification_requirement_unmet"
	KindAcceptanceCriterionUnmet         = "acceptance_criterion_unmet"
	KindObservedExitCodeNonZero          = "observed_exit_code_non_zero"
	KindObservedZeroTests                = "observed_zero_tests"
	KindChangedPathUnrepresentable       = "changed_path_unrepresentable"
	KindUnexpectedFile                   = "unexpected_file"
	KindMissingExpectedFile              = "missing_expected_file"
	KindSnapshotCallerDrift              = "snapshot_caller_drift"
	KindSnapshotSignatureDrift           = "snapshot_signature_drift"
	KindPlannedTestNotAdded              = "planned_test_not_added"
	KindVacuousTestClaim                 = "vacuous_test_claim"
	KindChangedSetDegraded               = "changed_set_degraded"
	// The inputs of the changed set that changed since pre-flight (trust-model.md I1, §4).
	KindGitAttributesChanged = gitscope.InputAttributes
	KindGitConfigChanged     = gitscope.InputConfig
	KindGitMetadataChanged   = gitscope.InputMetadata
	// The git binary could be replaced by the executor (trust-model.md §6).
	KindGitBinaryUserWritable = "git_binary_user_writable"
)

// KindOrder lists every kind of §9.1 in table order.
var KindOrder = []string{
	KindInvalidFrontmatter, KindDeclaredFileUnavailable, KindSnapshotSymbolGone, KindSnapshotUnresolved,
	KindRemovedSymbolNotAcknowledged, KindRemovalAcknowledgementUnresolved, KindClaimedSymbolMissing,
	KindClaimedSymbolNotAdded, KindClaimedSignatureMismatch, KindHallucinatedSymbol, KindMissingCallEdge,
	KindExecutorClaimUnresolved, KindExecutorReportRejected, KindReportMissingChangedFile,
	KindReportUnexpectedFile, KindVerificationRequirementUnmet, KindAcceptanceCriterionUnmet,
	KindObservedExitCodeNonZero, KindObservedZeroTests, KindChangedPathUnrepresentable, KindUnexpectedFile,
	KindMissingExpectedFile, KindSnapshotCallerDrift, KindSnapshotSignatureDrift, KindPlannedTestNotAdded,
	KindVacuousTestClaim, KindChangedSetDegraded,
	KindGitAttributesChanged, KindGitConfigChanged, KindGitMetadataChanged, KindGitBinaryUserWritable,
}

var kindRank = func() map[string]int {
	m := make(map[string]int, len(KindOrder))
	for i, k := range KindOrder {
		m[k] = i
	}
	return m
}()

// kindClass is the class of each kind (§9.1).
func kindClass(kind string) finding.Class {
	switch kind {
	case KindUnexpectedFile, KindMissingExpectedFile, KindSnapshotCallerDrift, KindSnapshotSignatureDrift,
		KindPlannedTestNotAdded, KindVacuousTestClaim, KindChangedSetDegraded, KindGitBinaryUserWritable:
		return finding.ClassWarning
	}
	return finding.ClassError
}

// primaryField returns the §9.3 sort key: file, cmd, symbol or claim_index.
func primaryField(f finding.Finding) string {
	for _, k := range []string{"file", "cmd", "symbol", "from_symbol", "claim_index"} {
		if v, ok := f.Field(k); ok {
			if n, isInt := v.(int); isInt {
				return fmt.Sprintf("%020d", n)
			}
			return f.FieldString(k)
		}
	}
	return ""
}

// CompareAudit orders audit findings by §9.3: class (errors first), kind in §9.1 table order, the
// primary field by bytes, then the message.
func CompareAudit(a, b finding.Finding) int {
	ca, cb := 0, 0
	if a.Class == finding.ClassWarning {
		ca = 1
	}
	if b.Class == finding.ClassWarning {
		cb = 1
	}
	ra, oka := kindRank[a.Rule]
	rb, okb := kindRank[b.Rule]
	if !oka {
		ra = len(KindOrder)
	}
	if !okb {
		rb = len(KindOrder)
	}
	return cmp.Or(
		cmp.Compare(ca, cb),
		cmp.Compare(ra, rb),
		strings.Compare(a.Rule, b.Rule),
		strings.Compare(primaryField(a), primaryField(b)),
		strings.Compare(a.Message, b.Message),
	)
}

// SortAudit sorts audit findings in place by CompareAudit.
func SortAudit(fs []finding.Finding) { slices.SortStableFunc(fs, CompareAudit) }

// newFinding builds an audit finding of kind with the §9.3 message and kind fields (key, value
// pairs in order).
func newFinding(kind, message string, kv ...any) finding.Finding {
	f := finding.Finding{Rule: kind, Class: kindClass(kind), Message: message}
	for i := 0; i+1 < len(kv); i += 2 {
		f.Fields = append(f.Fields, finding.Field{Key: kv[i].(string), Value: kv[i+1]})
	}
	return f
}

// Constructors with the §9.3 message templates.

func findUnexpectedFile(file string) finding.Finding {
	return newFinding(KindUnexpectedFile, "changed outside the declared scope: "+file, "file", file)
}

func findMissingExpectedFile(file string) finding.Finding {
	return newFinding(KindMissingExpectedFile, "declared in scope but unchanged since the baseline: "+file, "file", file)
}

func findReportMissingChangedFile(file string) finding.Finding {
	return newFinding(KindReportMissingChangedFile, "changed since the baseline but not listed in files_modified: "+file, "file", file)
}

func findReportUnexpectedFile(file string) finding.Finding {
	return newFinding(KindReportUnexpectedFile, "listed in files_modified but unchanged since the baseline: "+file, "file", file)
}

// Executor report rejection reasons (§9.1).
const (
	ReasonReportMissing            = "report_missing"
	ReasonReportInvalid            = "report_invalid"
	ReasonStatusPartial            = "status_partial"
	ReasonStatusFailed             = "status_failed"
	ReasonCompletionInconsistent   = "completion_inconsistent"
	ReasonTaskMismatch             = "task_mismatch"
	ReasonTaskPathInvalid          = "task_path_invalid"
	ReasonTaskSourceUnavailable    = "task_source_unavailable"
	ReasonSchemaVersionUnsupported = "schema_version_unsupported"
)

func findReportRejected(reason, detail string) finding.Finding {
	return newFinding(KindExecutorReportRejected, fmt.Sprintf("executor report rejected (%s): %s", reason, detail), "reason", reason)
}

// Declared file reasons (§9.1).
const (
	ReasonTargetMissing               = "target_missing"
	ReasonTargetNotRegular            = "target_not_regular"
	ReasonTargetPathInvalid           = "target_path_invalid"
	ReasonTargetUnavailable           = "target_unavailable"
	ReasonCreationExistsInBaseline    = "creation_exists_in_baseline"
	ReasonCreationNotAdded            = "creation_not_added"
	ReasonCreationBaselineUnavailable = "creation_baseline_unavailable"
)

func findDeclaredFileUnavailable(file, reason string) finding.Finding {
	return newFinding(KindDeclaredFileUnavailable, fmt.Sprintf("declared file %s is unavailable (%s)", file, reason), "file", file, "reason", reason)
}

func findInvalidFrontmatter(reason string) finding.Finding {
	return newFinding(KindInvalidFrontmatter, fmt.Sprintf("spec frontmatter is invalid (%s)", reason), "reason", reason)
}

func findChangedPathUnrepresentable(escaped string) finding.Finding {
	return newFinding(KindChangedPathUnrepresentable, "a changed path is not valid UTF-8 and cannot be audited: "+escaped, "file", escaped)
}

// findChangedPathInvalid is changed_path_unrepresentable for a valid UTF-8 path that no
// files_modified entry can name: it fails repopath hygiene (why) or normalises to another path.
// The §9.3 template speaks of UTF-8 only, so the message names the actual cause; the path is
// quoted so that leading or trailing white space stays visible.
func findChangedPathInvalid(escaped, why string) finding.Finding {
	return newFinding(KindChangedPathUnrepresentable,
		fmt.Sprintf("a changed path cannot be listed in files_modified (%s) and cannot be audited: \"%s\"", why, escaped), "file", escaped)
}

func findChangedSetDegraded(reason string) finding.Finding {
	return newFinding(KindChangedSetDegraded, fmt.Sprintf("changed-file set computed without the git CLI (%s); results may differ from git", reason), "reason", reason)
}

// inputChangedWhat is the planner's name for each input kind.
var inputChangedWhat = map[string]string{
	KindGitAttributesChanged: "the repository's attribute rules changed since pre-flight",
	KindGitConfigChanged:     "the repository's git configuration changed since pre-flight",
	KindGitMetadataChanged:   "the repository's git metadata changed since pre-flight",
}

// findInputChanged is the error finding of one changed-set input that changed since
// pre-flight: the changed set can no longer be trusted to show every change.
func findInputChanged(ic gitscope.InputChange) finding.Finding {
	input := textsafe.Escape(ic.Input)
	return newFinding(ic.Kind, fmt.Sprintf("%s: %s (%s); git may hide changes because of it", inputChangedWhat[ic.Kind], input, textsafe.Escape(ic.Detail)),
		"input", input, "detail", textsafe.Escape(ic.Detail))
}

// findGitBinaryUserWritable warns that the git binary (or its directory) is writable by the
// current user, so an executor could have replaced it.
func findGitBinaryUserWritable(path string) finding.Finding {
	p := textsafe.Escape(path)
	return newFinding(KindGitBinaryUserWritable, fmt.Sprintf("the git binary %s, or its directory, is writable by the current user, so an executor could have replaced it; set MASTERMIND_GIT to a git the agent cannot write", p), "file", p)
}

// VerificationMessage renders the §9.3 message of a verification finding kind from its fields,
// for findings whose producer left Message empty.
func verificationMessage(f finding.Finding) string {
	cmdText := f.FieldString("cmd")
	switch f.Rule {
	case KindVerificationRequirementUnmet:
		return fmt.Sprintf("declared verification %q is not satisfied (%s)", cmdText, f.FieldString("reason"))
	case KindObservedExitCodeNonZero:
		return fmt.Sprintf("%q is reported as pass but its observed exit code is %s", cmdText, f.FieldString("exit_code"))
	case KindObservedZeroTests:
		return fmt.Sprintf("%q is reported as pass but observed 0 tests run", cmdText)
	case KindVacuousTestClaim:
		return fmt.Sprintf("%q is reported as pass but %s", cmdText, f.FieldString("reason"))
	}
	return f.Message
}

// Verdict applies §9.2: any error ⇒ broken; otherwise any warning ⇒ drift; otherwise held.
func Verdict(fs []finding.Finding) string {
	e, w := finding.Count(fs)
	switch {
	case e > 0:
		return VerdictBroken
	case w > 0:
		return VerdictDrift
	}
	return VerdictHeld
}
