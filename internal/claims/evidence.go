package claims

import (
	"github.com/mastermind-controller/mastermind/internal/finding"
)

// Evidence kinds (spec-and-lifecycle.md §10.6).
const (
	EvidenceAddedDeclaration = "added_declaration"
	EvidenceCallCandidate    = "compatible_call_candidate"
)

// Match bases of compatible_call_candidate evidence.
const (
	BasisSamePackage = "same_package" // Go: bare call F from a file in to's directory
	BasisImport      = "import"       // p.F through an import of the target's package or module
	BasisMethodName  = "method_name"  // any member call x.M, receiver not type-checked
	BasisName        = "name"         // tree-sitter languages: bare call of a free function by name
)

// Evidence is the evidence of a verified claim; Kind selects the fields that are set. Lines are
// 1-based, and MarshalJSON writes the key order of §10.6.
type Evidence struct {
	Kind        string
	File        string
	Line        int
	BaselineOID string
	FromFile    string
	ToFile      string
	CallLine    int
	TargetLine  int
	MatchBasis  string
}

// Pairs returns the evidence as ordered key/value pairs, in the §10.6 order for its kind.
func (e *Evidence) Pairs() []KV {
	if e.Kind == EvidenceAddedDeclaration {
		return []KV{{Key: "kind", Value: e.Kind}, {Key: "file", Value: e.File}, {Key: "line", Value: e.Line}, {Key: "baseline_oid", Value: e.BaselineOID}}
	}
	return []KV{{Key: "kind", Value: e.Kind}, {Key: "from_file", Value: e.FromFile}, {Key: "to_file", Value: e.ToFile},
		{Key: "call_line", Value: e.CallLine}, {Key: "target_line", Value: e.TargetLine}, {Key: "match_basis", Value: e.MatchBasis}}
}

// MarshalJSON renders {kind, file, line, baseline_oid} or {kind, from_file, to_file, call_line,
// target_line, match_basis}.
func (e *Evidence) MarshalJSON() ([]byte, error) { return finding.MarshalObject(e.Pairs()) }

// KV is one ordered JSON member.
type KV = finding.Field

// Pairs returns the claim as ordered members: kind, then the kind's present fields in schema
// order.
func (c Claim) Pairs() []KV {
	out := []KV{{Key: "kind", Value: c.Kind}}
	add := func(k string, v *string) {
		if v != nil {
			out = append(out, KV{Key: k, Value: *v})
		}
	}
	add("symbol", c.Symbol)
	add("file", c.File)
	add("signature", c.Signature)
	add("from", c.From)
	add("to", c.To)
	add("from_file", c.FromFile)
	add("to_file", c.ToFile)
	add("relation", c.Relation)
	return out
}

// MarshalJSON renders the claim object of claim_checks (§7.2) from Pairs.
func (c Claim) MarshalJSON() ([]byte, error) { return finding.MarshalObject(c.Pairs()) }

// MarshalJSON renders one claim_checks element (§7.2): {claim_index, claim, status, evidence?,
// finding?}. The finding is in the audit shape {kind, class, message, …kind fields}.
func (ch Check) MarshalJSON() ([]byte, error) {
	pairs := []KV{{Key: "claim_index", Value: ch.ClaimIndex}, {Key: "claim", Value: ch.Claim}, {Key: "status", Value: ch.Status}}
	if ch.Evidence != nil {
		pairs = append(pairs, KV{Key: "evidence", Value: ch.Evidence})
	}
	if ch.Finding != nil {
		pairs = append(pairs, KV{Key: "finding", Value: finding.Audit(*ch.Finding)})
	}
	return finding.MarshalObject(pairs)
}
