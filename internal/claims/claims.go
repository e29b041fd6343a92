package claims

import (
	"context"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// Limits of spec-and-lifecycle.md §10.6.
const (
	MaxClaims      = 256      // more claims than this: every claim is unresolved (claim_limit)
	MaxFileBytes   = 4 << 20  // a current or baseline source file larger than this is source_too_large
	MaxFilesParsed = 20000    // files parsed across all claims before search_budget_exhausted
	MaxBytesRead   = 64 << 20 // bytes read across all claims before search_budget_exhausted
)

// Claim kinds (executor-report-v1.md §3.5).
const (
	KindFunctionAdded = "function_added"
	KindIntegration   = "integration"
)

// Claim is one report claim as the report package types it (executor-report-v1.md §7). Index is
// its 0-based position in the report's claims list; absent optional fields are nil.
type Claim struct {
	Index                                int
	Kind                                 string
	Symbol, File, Signature              *string
	From, To, FromFile, ToFile, Relation *string
}

// Changed-file statuses of gitscope.md (ChangedFile.Status).
const (
	StatusAdded     = "added"
	StatusModified  = "modified"
	StatusDeleted   = "deleted"
	StatusUntracked = "untracked"
)

// ChangedFile is one entry of the changed set D: a repository-relative slash path and its
// status.
type ChangedFile struct {
	Path   string
	Status string
}

// Source gives Verify access to file contents. Paths are repository-relative slash paths that
// passed repopath.Clean.
type Source interface {
	// Current returns the working-tree bytes of a regular file of at most MaxFileBytes. Refusals
	// are *fsx.PathError values; any error makes the file unavailable for the claim.
	Current(path string) ([]byte, error)
	// Baseline returns the file's blob at the baseline commit; ok is false when the path is absent
	// there. An error is a read failure (baseline_unavailable).
	Baseline(path string) (data []byte, ok bool, err error)
	// ListFiles returns the tracked and the untracked, non-ignored files, used to resolve an
	// integration target without to_file.
	ListFiles() ([]string, error)
}

// Status is the outcome of one claim check in claim_checks (spec-and-lifecycle.md §7.2).
type Status string

// Claim check outcomes.
const (
	Verified   Status = "verified"   // Evidence is set, Finding is nil
	Failed     Status = "failed"     // Finding is a claimed_* / hallucinated_symbol / missing_call_edge error
	Unresolved Status = "unresolved" // Finding is executor_claim_unresolved
)

// Check is the outcome of one claim. Evidence is non-nil only for Verified; Finding, an audit
// finding of class error with the §9.3 message, is non-nil exactly for Failed and Unresolved.
type Check struct {
	ClaimIndex int
	Claim      Claim
	Status     Status
	Evidence   *Evidence
	Finding    *finding.Finding
}

// Verify checks claims in order against the source and returns exactly one Check per claim, by
// the rules of spec-and-lifecycle.md §10.6; after ctx is cancelled the remaining claims are
// search_budget_exhausted, so callers that abort must check ctx.Err() themselves. Its only error
// is a *BackendUnavailableError, returned with no checks.
func Verify(ctx context.Context, claims []Claim, changed []ChangedFile, src Source, baselineOID string) ([]Check, error) {
	out := make([]Check, 0, len(claims))
	if len(claims) > MaxClaims {
		for _, c := range claims {
			out = append(out, unresolved(c, reasonClaimLimit, 0))
		}
		return out, nil
	}
	v := newVerifier(changed, src, baselineOID)
	for _, c := range claims {
		if v.exhausted || ctx.Err() != nil {
			out = append(out, unresolved(c, reasonBudget, 0))
			continue
		}
		var ch Check
		switch c.Kind {
		case KindFunctionAdded:
			ch = v.functionAdded(c)
		case KindIntegration:
			ch = v.integration(c)
		default:
			// The report schema admits only the two kinds; anything else cannot be checked.
			ch = unresolved(c, reasonClaimKindMismatch, 0)
		}
		if v.missing != nil {
			v.missing.ClaimIndex = c.Index
			return nil, v.missing
		}
		if v.exhausted {
			ch = unresolved(c, reasonBudget, 0)
		}
		out = append(out, ch)
	}
	return out, nil
}
