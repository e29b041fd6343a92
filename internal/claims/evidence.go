package claims

import (
	"bytes"
	"encoding/json"
)

// Evidence kinds (spec-and-lifecycle.md §10.6).
const (
	EvidenceAddedDeclaration = "added_declaration"
	EvidenceCallCandidate    = "compatible_call_candidate"
)

// Match bases of compatible_call_candidate evidence.
const (
	BasisSamePackage = "same_package" // Go: bare call F from a file in to's directory
	BasisImport      = "import"       // p.F via an import (Go: resolved import path; others: imported module alias)
	BasisMethodName  = "method_name"  // any member call x.M, receiver not type-checked
	BasisName        = "name"         // tree-sitter languages: bare call of a free function by name
)

// Evidence is the evidence of a verified claim. Kind selects the fields that are set:
//   - added_declaration: File, Line (1-based line of the declaration), BaselineOID;
//   - compatible_call_candidate: FromFile, ToFile, CallLine, TargetLine (1-based), MatchBasis.
//
// MarshalJSON writes the documented key order of §10.6.
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
		return []KV{{"kind", e.Kind}, {"file", e.File}, {"line", e.Line}, {"baseline_oid", e.BaselineOID}}
	}
	return []KV{{"kind", e.Kind}, {"from_file", e.FromFile}, {"to_file", e.ToFile},
		{"call_line", e.CallLine}, {"target_line", e.TargetLine}, {"match_basis", e.MatchBasis}}
}

// MarshalJSON renders {kind, file, line, baseline_oid} or {kind, from_file, to_file, call_line,
// target_line, match_basis}.
func (e *Evidence) MarshalJSON() ([]byte, error) { return marshalPairs(e.Pairs()) }

// KV is one ordered JSON member.
type KV struct {
	Key   string
	Value any
}

// Pairs returns the claim as ordered members: kind, then the kind's present fields in schema order
// (function_added: symbol, file, signature; integration: from, to, from_file, to_file, relation).
func (c Claim) Pairs() []KV {
	out := []KV{{"kind", c.Kind}}
	add := func(k string, v *string) {
		if v != nil {
			out = append(out, KV{k, *v})
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
func (c Claim) MarshalJSON() ([]byte, error) { return marshalPairs(c.Pairs()) }

// MarshalJSON renders one claim_checks element (§7.2): {claim_index, claim, status, evidence?,
// finding?}. The finding is in the audit shape {kind, class, message, …kind fields}.
func (ch Check) MarshalJSON() ([]byte, error) {
	pairs := []KV{{"claim_index", ch.ClaimIndex}, {"claim", ch.Claim}, {"status", ch.Status}}
	if ch.Evidence != nil {
		pairs = append(pairs, KV{"evidence", ch.Evidence})
	}
	if ch.Finding != nil {
		f := []KV{{"kind", ch.Finding.Rule}, {"class", ch.Finding.Class}, {"message", ch.Finding.Message}}
		for _, fl := range ch.Finding.Fields {
			f = append(f, KV{fl.Key, fl.Value})
		}
		raw, err := marshalPairs(f)
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, KV{"finding", json.RawMessage(raw)})
	}
	return marshalPairs(pairs)
}

func marshalPairs(pairs []KV) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalNoEscape(p.Key)
		if err != nil {
			return nil, err
		}
		v, err := marshalNoEscape(p.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
