package claims

import (
	"fmt"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// Audit kinds emitted by the claim checks (spec-and-lifecycle.md §9.1).
const (
	RuleSymbolMissing     = finding.KindClaimedSymbolMissing
	RuleSymbolNotAdded    = finding.KindClaimedSymbolNotAdded
	RuleSignatureMismatch = finding.KindClaimedSignatureMismatch
	RuleHallucinated      = finding.KindHallucinatedSymbol
	RuleMissingCallEdge   = finding.KindMissingCallEdge
	RuleUnresolved        = finding.KindExecutorClaimUnresolved
)

// Reasons of executor_claim_unresolved (spec-and-lifecycle.md §9.1, reason vocabulary).
const (
	reasonClaimLimit          = "claim_limit"
	reasonAmbiguous           = "ambiguous"
	reasonAdditionAmbiguous   = "addition_ambiguous"
	reasonClaimKindMismatch   = "claim_kind_mismatch"
	reasonRelationUnsupported = "relation_unsupported"
	reasonLanguageUnsupported = "language_unsupported" // no backend for the language in any build
	// reasonNoBackend stops a claim whose file needs a backend this build leaves out; Verify
	// returns a BackendUnavailableError instead of any outcome, so it never reaches a finding.
	reasonNoBackend           = "no_backend"
	reasonCrossLanguage       = "cross_language_binding_unavailable"
	reasonFromMissing         = "from_missing"
	reasonCallTargetAmbiguous = "call_target_ambiguous"
	reasonCurrentUnavailable  = "current_file_unavailable"
	reasonCurrentParse        = "current_parse_failed"
	reasonBaselineUnavailable = "baseline_unavailable"
	reasonBaselineParse       = "baseline_parse_failed"
	reasonTooLarge            = "source_too_large"
	reasonBudget              = "search_budget_exhausted"
)

func newFinding(rule, msg string, fields ...finding.Field) *finding.Finding {
	return &finding.Finding{Rule: rule, Class: finding.ClassError, Message: msg, Fields: fields}
}

// unresolved: executor_claim_unresolved{claim_index, reason, matches?}; matches > 0 adds the
// field and the ", <n> matches" part of the message.
func unresolved(c Claim, reason string, matches int) Check {
	fields := []finding.Field{{Key: "claim_index", Value: c.Index}, {Key: "reason", Value: reason}}
	msg := fmt.Sprintf("claim %d could not be checked (%s)", c.Index, reason)
	if matches > 0 {
		fields = append(fields, finding.Field{Key: "matches", Value: matches})
		msg = fmt.Sprintf("claim %d could not be checked (%s, %d matches)", c.Index, reason, matches)
	}
	return Check{ClaimIndex: c.Index, Claim: c, Status: Unresolved, Finding: newFinding(RuleUnresolved, msg, fields...)}
}

func failed(c Claim, f *finding.Finding) Check {
	return Check{ClaimIndex: c.Index, Claim: c, Status: Failed, Finding: f}
}

func verified(c Claim, e *Evidence) Check {
	return Check{ClaimIndex: c.Index, Claim: c, Status: Verified, Evidence: e}
}

// symbolMissing: claimed_symbol_missing{symbol, file?}.
func symbolMissing(c Claim, symbol string, file *string) Check {
	fields := []finding.Field{{Key: "symbol", Value: symbol}}
	msg := fmt.Sprintf("claimed function %s not found", symbol)
	if file != nil {
		fields = append(fields, finding.Field{Key: "file", Value: *file})
		msg += " in " + *file
	}
	return failed(c, newFinding(RuleSymbolMissing, msg, fields...))
}

// symbolNotAdded: claimed_symbol_not_added{symbol, file}.
func symbolNotAdded(c Claim, symbol, file string) Check {
	return failed(c, newFinding(RuleSymbolNotAdded,
		fmt.Sprintf("claimed function %s already exists at the baseline; it was not added by this task", symbol),
		finding.Field{Key: "symbol", Value: symbol}, finding.Field{Key: "file", Value: file}))
}

// signatureMismatch: claimed_signature_mismatch{symbol, file, claimed, actual}.
func signatureMismatch(c Claim, symbol, file, claimed, actual string) Check {
	return failed(c, newFinding(RuleSignatureMismatch,
		"claimed signature \""+claimed+"\" of "+symbol+" differs from the source: \""+actual+"\"",
		finding.Field{Key: "symbol", Value: symbol}, finding.Field{Key: "file", Value: file},
		finding.Field{Key: "claimed", Value: claimed}, finding.Field{Key: "actual", Value: actual}))
}

// hallucinated: hallucinated_symbol{from_symbol, to_symbol}.
func hallucinated(c Claim, from, to string) Check {
	return failed(c, newFinding(RuleHallucinated,
		fmt.Sprintf("integration target %s does not exist", to),
		finding.Field{Key: "from_symbol", Value: from}, finding.Field{Key: "to_symbol", Value: to}))
}

// missingCallEdge: missing_call_edge{from_symbol, to_symbol}.
func missingCallEdge(c Claim, from, to string) Check {
	return failed(c, newFinding(RuleMissingCallEdge,
		fmt.Sprintf("no call from %s to %s was found", from, to),
		finding.Field{Key: "from_symbol", Value: from}, finding.Field{Key: "to_symbol", Value: to}))
}
