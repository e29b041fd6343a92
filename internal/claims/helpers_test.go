package claims

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// memSource is an in-memory Source: current and baseline file texts, baseline read failures and
// an optional listing (default: every current path).
type memSource struct {
	cur     map[string]string
	base    map[string]string
	baseErr map[string]bool
	list    []string
	reads   int
}

func (m *memSource) Current(p string) ([]byte, error) {
	m.reads++
	s, ok := m.cur[p]
	if !ok {
		return nil, &fsx.PathError{Path: p, Reason: fsx.ReasonMissing}
	}
	if len(s) > MaxFileBytes {
		return nil, &fsx.PathError{Path: p, Reason: fsx.ReasonTooLarge}
	}
	return []byte(s), nil
}

func (m *memSource) Baseline(p string) ([]byte, bool, error) {
	if m.baseErr[p] {
		return nil, false, errors.New("object missing")
	}
	s, ok := m.base[p]
	return []byte(s), ok, nil
}

func (m *memSource) ListFiles() ([]string, error) {
	if m.list != nil {
		return m.list, nil
	}
	var out []string
	for p := range m.cur {
		out = append(out, p)
	}
	slices.Sort(out)
	return out, nil
}

// repo describes a test repository: files at the baseline and in the work tree. The changed set is
// derived like git does: added, modified, deleted (untracked when listed in untracked).
type repo struct {
	base, cur map[string]string
	untracked []string
}

func (r repo) source() (*memSource, []ChangedFile) {
	src := &memSource{cur: r.cur, base: r.base, baseErr: map[string]bool{}}
	var ch []ChangedFile
	for p, s := range r.cur {
		b, ok := r.base[p]
		switch {
		case slices.Contains(r.untracked, p):
			ch = append(ch, ChangedFile{p, StatusUntracked})
		case !ok:
			ch = append(ch, ChangedFile{p, StatusAdded})
		case b != s:
			ch = append(ch, ChangedFile{p, StatusModified})
		}
	}
	for p := range r.base {
		if _, ok := r.cur[p]; !ok {
			ch = append(ch, ChangedFile{p, StatusDeleted})
		}
	}
	slices.SortFunc(ch, func(a, b ChangedFile) int { return strings.Compare(a.Path, b.Path) })
	return src, ch
}

func sp(s string) *string { return &s }

func fa(symbol string, opts ...string) Claim {
	c := Claim{Kind: KindFunctionAdded, Symbol: sp(symbol)}
	for _, o := range opts {
		k, v, _ := strings.Cut(o, "=")
		switch k {
		case "file":
			c.File = sp(v)
		case "signature":
			c.Signature = sp(v)
		}
	}
	return c
}

func ig(from, to string, opts ...string) Claim {
	c := Claim{Kind: KindIntegration, From: sp(from), To: sp(to)}
	for _, o := range opts {
		k, v, _ := strings.Cut(o, "=")
		switch k {
		case "from_file":
			c.FromFile = sp(v)
		case "to_file":
			c.ToFile = sp(v)
		case "relation":
			c.Relation = sp(v)
		}
	}
	return c
}

// outcome renders a check compactly for table comparison:
//
//	verified added_declaration a.go:3
//	verified compatible_call_candidate b.go:7 -> a.go:3 import
//	failed claimed_symbol_missing: claimed function X not found
//	unresolved ambiguous 2
func outcome(ch Check) string {
	switch ch.Status {
	case Verified:
		e := ch.Evidence
		if e.Kind == EvidenceAddedDeclaration {
			return fmt.Sprintf("verified %s %s:%d %s", e.Kind, e.File, e.Line, e.BaselineOID)
		}
		return fmt.Sprintf("verified %s %s:%d -> %s:%d %s", e.Kind, e.FromFile, e.CallLine, e.ToFile, e.TargetLine, e.MatchBasis)
	case Unresolved:
		s := "unresolved " + ch.Finding.FieldString("reason")
		if m := ch.Finding.FieldString("matches"); m != "" {
			s += " " + m
		}
		return s
	}
	return fmt.Sprintf("failed %s: %s", ch.Finding.Rule, ch.Finding.Message)
}

// verifyAll runs Verify and fails the test on its error (a claim needing a backend this build
// leaves out; nocgo_test.go tests that case).
func verifyAll(tb testing.TB, ctx context.Context, claims []Claim, changed []ChangedFile, src Source, baselineOID string) []Check {
	tb.Helper()
	out, err := Verify(ctx, claims, changed, src, baselineOID)
	if err != nil {
		tb.Fatalf("Verify: %v", err)
	}
	return out
}

// verifyOne runs one claim (index 0) and returns its rendered outcome.
func verifyOne(t *testing.T, r repo, c Claim) string {
	t.Helper()
	src, ch := r.source()
	out := verifyAll(t, context.Background(), []Claim{c}, ch, src, "b0")
	if len(out) != 1 {
		t.Fatalf("Verify returned %d checks for 1 claim", len(out))
	}
	checkShape(t, out[0])
	return outcome(out[0])
}

// checkShape asserts the Check invariants: evidence exactly for verified, a finding otherwise, with
// the claim's index.
func checkShape(t *testing.T, ch Check) {
	t.Helper()
	switch ch.Status {
	case Verified:
		if ch.Evidence == nil || ch.Finding != nil {
			t.Errorf("verified check with evidence %v finding %v", ch.Evidence, ch.Finding)
		}
	case Failed, Unresolved:
		if ch.Evidence != nil || ch.Finding == nil {
			t.Fatalf("%s check with evidence %v finding %v", ch.Status, ch.Evidence, ch.Finding)
		}
		if (ch.Status == Unresolved) != (ch.Finding.Rule == RuleUnresolved) {
			t.Errorf("status %s with rule %s", ch.Status, ch.Finding.Rule)
		}
		if ch.Finding.Class != "error" {
			t.Errorf("class %s", ch.Finding.Class)
		}
	default:
		t.Errorf("unknown status %q", ch.Status)
	}
	if ch.ClaimIndex != ch.Claim.Index {
		t.Errorf("ClaimIndex %d != Claim.Index %d", ch.ClaimIndex, ch.Claim.Index)
	}
}

// tsCase is one table row: a claim and its rendered outcome.
type tsCase struct {
	name  string
	claim Claim
	want  string
}
