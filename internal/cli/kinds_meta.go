package cli

import (
	"strings"

	"github.com/mastermind-controller/mastermind/internal/brief"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
)

// kindMeta is one finding kind's metadata for the brief and the SARIF/rdjson rules: class,
// report side, reserved, and one sentence of help (spec-and-lifecycle.md §9.1). It mirrors the
// one kinds table of internal/finding (branch structure) and is replaced by it on merge.
type kindMeta struct {
	ID         string
	Class      finding.Class
	ReportSide bool
	Reserved   bool
	Help       string
}

// auditKinds is the §9.1 table in table order.
var auditKinds = []kindMeta{
	{ID: postflight.KindInvalidFrontmatter, Class: finding.ClassError, ReportSide: false, Reserved: false,
		Help: "The spec's YAML frontmatter is unterminated or invalid; fix the spec and rerun pre-flight."},
	{ID: postflight.KindDeclaredFileUnavailable, Class: finding.ClassError, ReportSide: false, Reserved: false,
		Help: "A file the spec declares (touches, creates, expected_docs) is missing, not a regular file, or a declared creation does not hold; create the file or revise the spec."},
	{ID: postflight.KindSnapshotSymbolGone, Class: finding.ClassError, ReportSide: false, Reserved: true,
		Help: "A symbol the spec's snapshot names no longer exists (reserved)."},
	{ID: postflight.KindSnapshotUnresolved, Class: finding.ClassError, ReportSide: false, Reserved: true,
		Help: "A symbol the spec's snapshot names could not be resolved (reserved)."},
	{ID: postflight.KindRemovedSymbolNotAcknowledged, Class: finding.ClassError, ReportSide: false, Reserved: true,
		Help: "A symbol was removed without the spec acknowledging it (reserved)."},
	{ID: postflight.KindRemovalAcknowledgementUnresolved, Class: finding.ClassError, ReportSide: false, Reserved: true,
		Help: "A removal the spec acknowledges could not be resolved (reserved)."},
	{ID: postflight.KindClaimedSymbolMissing, Class: finding.ClassError, ReportSide: true, Reserved: false,
		Help: "The report claims a function that the source does not contain; add it or correct the claim."},
	{ID: postflight.KindClaimedSymbolNotAdded, Class: finding.ClassError, ReportSide: true, Reserved: false,
		Help: "The report claims to have added a function that already existed at the baseline; correct the claim."},
	{ID: postflight.KindClaimedSignatureMismatch, Class: finding.ClassError, ReportSide: true, Reserved: false,
		Help: "The claimed signature differs from the function in the source; report the real signature."},
	{ID: postflight.KindHallucinatedSymbol, Class: finding.ClassError, ReportSide: true, Reserved: false,
		Help: "An integration claim names a target that does not exist in the source; correct the claim."},
	{ID: postflight.KindMissingCallEdge, Class: finding.ClassError, ReportSide: true, Reserved: false,
		Help: "An integration claim says one function calls another, but no such call was found; add the call or correct the claim."},
	{ID: postflight.KindExecutorClaimUnresolved, Class: finding.ClassError, ReportSide: true, Reserved: false,
		Help: "A claim could not be checked deterministically (ambiguous, unsupported or unreadable); make the claim precise."},
	{ID: postflight.KindExecutorReportRejected, Class: finding.ClassError, ReportSide: true, Reserved: false,
		Help: "The executor report is missing, invalid, not complete, or for another task; the audit stops at the report."},
	{ID: postflight.KindReportMissingChangedFile, Class: finding.ClassError, ReportSide: true, Reserved: false,
		Help: "A file changed since the baseline is not listed in files_modified; list it, or undo the change."},
	{ID: postflight.KindReportUnexpectedFile, Class: finding.ClassError, ReportSide: true, Reserved: false,
		Help: "files_modified lists a file that is unchanged since the baseline; remove it from the report."},
	{ID: postflight.KindVerificationRequirementUnmet, Class: finding.ClassError, ReportSide: false, Reserved: false,
		Help: "A verify command the spec declares has no passing, observed result in the report; run it and report its result."},
	{ID: postflight.KindAcceptanceCriterionUnmet, Class: finding.ClassError, ReportSide: false, Reserved: true,
		Help: "An acceptance criterion of the spec is not met (reserved)."},
	{ID: postflight.KindObservedExitCodeNonZero, Class: finding.ClassError, ReportSide: true, Reserved: false,
		Help: "A verification reported as pass has a non-zero observed exit code; the command failed."},
	{ID: postflight.KindObservedZeroTests, Class: finding.ClassError, ReportSide: true, Reserved: false,
		Help: "A test run reported as pass observed zero tests; make the command run the tests."},
	{ID: postflight.KindChangedPathUnrepresentable, Class: finding.ClassError, ReportSide: false, Reserved: false,
		Help: "A changed path cannot be named in files_modified (not UTF-8, or rewritten by normalisation) and cannot be audited; rename it."},
	{ID: postflight.KindUnexpectedFile, Class: finding.ClassWarning, ReportSide: false, Reserved: false,
		Help: "A file changed outside the spec's declared scope; revert it or declare it in the spec."},
	{ID: postflight.KindMissingExpectedFile, Class: finding.ClassWarning, ReportSide: false, Reserved: false,
		Help: "A file the spec declares in scope is unchanged since the baseline; change it or revise the spec."},
	{ID: postflight.KindSnapshotCallerDrift, Class: finding.ClassWarning, ReportSide: false, Reserved: true,
		Help: "The callers of a snapshot symbol differ from the spec (reserved)."},
	{ID: postflight.KindSnapshotSignatureDrift, Class: finding.ClassWarning, ReportSide: false, Reserved: true,
		Help: "The signature of a snapshot symbol differs from the spec (reserved)."},
	{ID: postflight.KindPlannedTestNotAdded, Class: finding.ClassWarning, ReportSide: false, Reserved: true,
		Help: "A test the spec plans was not added (reserved)."},
	{ID: postflight.KindVacuousTestClaim, Class: finding.ClassWarning, ReportSide: true, Reserved: false,
		Help: "A test command reported as pass selects no test in the repository; check the command's test selection."},
	{ID: postflight.KindChangedSetDegraded, Class: finding.ClassWarning, ReportSide: false, Reserved: false,
		Help: "The changed-file set was computed without the git CLI; install a supported git to get git's own answer."},
}

// auditRules are the non-reserved kinds as the brief states them.
func auditRules() []brief.Rule {
	var out []brief.Rule
	for _, k := range auditKinds {
		if !k.Reserved {
			out = append(out, brief.Rule{ID: k.ID, Class: k.Class, Text: k.Help})
		}
	}
	return out
}

// renderRules are every kind as SARIF / rdjson rule metadata.
func renderRules() []render.RuleMeta {
	out := make([]render.RuleMeta, 0, len(auditKinds))
	for _, k := range auditKinds {
		out = append(out, render.RuleMeta{ID: k.ID, Class: k.Class, Short: kindTitle(k.ID), Help: k.Help, ReportSide: k.ReportSide})
	}
	return out
}

// kindTitle is a kind id as words with a capital: "unexpected_file" → "Unexpected file".
func kindTitle(id string) string {
	s := strings.ReplaceAll(id, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
