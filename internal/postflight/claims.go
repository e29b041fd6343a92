package postflight

import (
	"context"
	"fmt"

	"github.com/mastermind-controller/mastermind/internal/claims"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/report"
)

// checkClaims runs the claims checks of spec-and-lifecycle.md §4 step 5.7 / §10.6 for every report
// (not behind an opt-in): each report claim is verified against the working tree and the baseline
// tree through internal/claims. It returns the claim_checks evidence — a non-nil []claims.Check,
// so a report without claims renders `[]` (evaluated, nothing to check) — and the failed or
// unresolved claims' findings in claim order. d is the changed set D restricted to UTF-8 paths.
// Its errors are operational (exit 3), never findings: a claim that needs a language backend this
// build leaves out (claims.ErrBackendUnavailable, lifecycle-v2.md §8), or a cancelled context,
// which claims.Verify turns into search_budget_exhausted outcomes that must not stand as an audit
// result.
func (c *controller) checkClaims(ctx context.Context, rep *report.Report, baseline string, d []gitscope.Entry) ([]claims.Check, []finding.Finding, error) {
	checks := []claims.Check{}
	if len(rep.Claims) == 0 {
		return checks, nil, nil
	}
	cs := make([]claims.Claim, len(rep.Claims))
	for i, rc := range rep.Claims {
		cs[i] = claims.Claim{Index: rc.Index, Kind: rc.Kind, Symbol: rc.Symbol, File: rc.File, Signature: rc.Signature,
			From: rc.From, To: rc.To, FromFile: rc.FromFile, ToFile: rc.ToFile, Relation: rc.Relation}
	}
	changed := make([]claims.ChangedFile, len(d))
	for i, e := range d {
		changed[i] = claims.ChangedFile{Path: string(e.Path), Status: string(e.Status)}
	}
	src := claims.RootSource{
		Root: c.task.Root,
		Baseline: func(p string) ([]byte, bool, error) {
			return c.git.BaselineBlob(ctx, baseline, p)
		},
		List: func() ([]string, error) { return c.git.ListFiles(ctx) },
	}.Source()
	vc, err := claims.Verify(ctx, cs, changed, src, baseline)
	if err != nil {
		return nil, nil, err
	}
	checks = append(checks, vc...)
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("claims checks interrupted: %w", err)
	}
	var fs []finding.Finding
	for _, ch := range checks {
		if ch.Finding == nil {
			continue
		}
		f := *ch.Finding
		f.File, f.Line, f.Column, f.Pointer = "", 0, 0, ""
		if f.Class == "" {
			f.Class = kindClass(f.Rule)
		}
		fs = append(fs, f)
	}
	return checks, fs, nil
}
