package audit

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/claims"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/report"
)

func str(s string) *string { return &s }

// TestCheckClaims: §10.6 on real Go sources at the baseline and in the working tree.
func TestCheckClaims(t *testing.T) {
	base := map[string]string{"go.mod": "module example.com/a\n", "a.go": "package a\n\nfunc Old() {}\n"}
	work := map[string]string{"a.go": "package a\n\nfunc Old() { New(1) }\n\nfunc New(n int) int { return n }\n"}
	cases := []struct {
		name   string
		claims []report.Claim
		want   []string
	}{
		{"no claims", nil, nil},
		{"function added", []report.Claim{{Kind: "function_added", Symbol: str("New"), File: str("a.go")}}, nil},
		{"function already existed", []report.Claim{{Kind: "function_added", Symbol: str("Old"), File: str("a.go")}},
			[]string{"claimed_symbol_not_added a.go"}},
		{"function missing", []report.Claim{{Kind: "function_added", Symbol: str("Gone"), File: str("a.go")}},
			[]string{"claimed_symbol_missing a.go"}},
		{"signature differs", []report.Claim{{Kind: "function_added", Symbol: str("New"), File: str("a.go"), Signature: str("func New() int")}},
			[]string{"claimed_signature_mismatch a.go"}},
		{"integration present", []report.Claim{{Kind: "integration", From: str("Old"), To: str("New")}}, nil},
		{"integration target missing", []report.Claim{{Kind: "integration", From: str("Old"), To: str("Nope")}},
			[]string{"hallucinated_symbol"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", base, work)
			rep := completeReport("a.go")
			for i, c := range tc.claims {
				c.Index = i
				rep.Claims = append(rep.Claims, c)
			}
			r, _ := f.run(t, rep)
			fs, err := checkClaims(r)
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, fs, tc.want...)
			checks, ok := r.ev.ClaimChecks.([]claims.Check)
			if !ok || checks == nil || len(checks) != len(tc.claims) {
				t.Errorf("claim_checks evidence %#v", r.ev.ClaimChecks)
			}
		})
	}
}

// TestCheckClaimsCancelled: a cancelled context is an operational error, never an audit result.
func TestCheckClaimsCancelled(t *testing.T) {
	f := newFixture(t, "", map[string]string{"a.go": "package a\n"}, map[string]string{"a.go": "package a\n\nfunc New() {}\n"})
	rep := completeReport("a.go")
	rep.Claims = []report.Claim{{Kind: "function_added", Symbol: str("New"), File: str("a.go")}}
	r, _ := f.run(t, rep)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.ctx = ctx
	if _, err := checkClaims(r); err == nil {
		t.Fatal("cancelled claims checks returned no error")
	}
}

// TestCheckClaimsBackend: a Python claim is checked in a cgo build and is an operational
// ErrBackendUnavailable in a build without cgo — never a finding, so never a verdict
// (lifecycle-v2.md §8).
func TestCheckClaimsBackend(t *testing.T) {
	f := newFixture(t, "", map[string]string{"a.py": "def old():\n    pass\n"},
		map[string]string{"a.py": "def old():\n    pass\n\n\ndef new():\n    pass\n"})
	rep := completeReport("a.py")
	rep.Claims = []report.Claim{{Kind: "function_added", Symbol: str("new"), File: str("a.py")}}
	r, _ := f.run(t, rep)
	fs, err := checkClaims(r)
	if claims.TreeSitter {
		if err != nil || len(fs) != 0 {
			t.Fatalf("cgo build: findings %v, error %v; want the claim verified", fs, err)
		}
		return
	}
	if !errors.Is(err, claims.ErrBackendUnavailable) || fs != nil {
		t.Fatalf("build without cgo: findings %v, error %v; want ErrBackendUnavailable", fs, err)
	}
}

// forgedClaims is a ClaimsGit whose baseline blobs are forged objects.
type forgedClaims struct{ ClaimsGit }

func (forgedClaims) BaselineBlob(context.Context, string, string) ([]byte, bool, error) {
	return nil, false, fmt.Errorf("%w: object 1234 holds object 5678", gitscope.ErrObjectStoreModified)
}

// TestForgedObjectIsNoClaimResult: a forged object under a claim's baseline read is exit 3
// (trust-model.md §4.5), never an unresolved claim; the rename pairing passes it on too.
func TestForgedObjectIsNoClaimResult(t *testing.T) {
	f := newFixture(t, "", map[string]string{"a.go": "package a\n"}, map[string]string{"a.go": "package a\n\nfunc New() {}\n"})
	rep := completeReport("a.go")
	rep.Claims = []report.Claim{{Kind: "function_added", Symbol: str("New"), File: str("a.go")}}
	r, _ := f.run(t, rep)
	r.in.Claims = forgedClaims{r.in.Claims}
	if _, err := checkClaims(r); !errors.Is(err, gitscope.ErrObjectStoreModified) {
		t.Fatalf("claims: %v, want ErrObjectStoreModified", err)
	}
}
