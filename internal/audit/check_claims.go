package audit

import (
	"errors"
	"fmt"

	"github.com/mastermind-controller/mastermind/internal/claims"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// checkClaims applies §10.6: each report claim is verified against the working tree and the
// baseline tree, the claim_checks evidence is filled, never nil, and the failed or unresolved
// claims' findings are returned in claim order. A missing language backend and a cancelled
// context are operational errors, never findings (lifecycle-v2.md §8).
func checkClaims(r *run) ([]finding.Finding, error) {
	rep, ctx, baseline := r.rep, r.ctx, r.in.Baseline
	checks := []claims.Check{}
	r.ev.ClaimChecks = checks
	if len(rep.Claims) == 0 {
		return nil, nil
	}
	cs := make([]claims.Claim, len(rep.Claims))
	for i, rc := range rep.Claims {
		cs[i] = claims.Claim{Index: rc.Index, Kind: rc.Kind, Symbol: rc.Symbol, File: rc.File, Signature: rc.Signature,
			From: rc.From, To: rc.To, FromFile: rc.FromFile, ToFile: rc.ToFile, Relation: rc.Relation}
	}
	changed := make([]claims.ChangedFile, len(r.d))
	for i, e := range r.d {
		changed[i] = claims.ChangedFile{Path: r.paths[i], Status: string(e.Status)}
	}
	// A forged object is exit 3 (trust-model.md §4.5), never an unverifiable claim: the first
	// such error is kept and returned once the checks are done.
	var forged error
	keep := func(err error) error {
		if forged == nil && errors.Is(err, gitscope.ErrObjectStoreModified) {
			forged = err
		}
		return err
	}
	src := claims.RootSource{
		Root: r.in.Root,
		Baseline: func(p string) ([]byte, bool, error) {
			data, ok, err := r.in.Claims.BaselineBlob(ctx, baseline, p)
			return data, ok, keep(err)
		},
		List: func() ([]string, error) {
			files, err := r.in.Claims.ListFiles(ctx)
			return files, keep(err)
		},
	}.Source()
	vc, err := claims.Verify(ctx, cs, changed, src, baseline)
	if err == nil {
		err = forged
	}
	if err != nil {
		return nil, err
	}
	checks = append(checks, vc...)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("claims checks interrupted: %w", err)
	}
	r.ev.ClaimChecks = checks
	var fs []finding.Finding
	for _, ch := range checks {
		if ch.Finding == nil {
			continue
		}
		f := *ch.Finding
		f.File, f.Line, f.Column, f.Pointer = "", 0, 0, ""
		if f.Class == "" {
			f.Class = finding.KindClass(f.Rule)
		}
		fs = append(fs, f)
	}
	return fs, nil
}
