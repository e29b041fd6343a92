// Package claims checks the structural claims of an executor report, function_added and
// integration, against the source with no index or database (spec-and-lifecycle.md §10.6).
//
// Go is parsed with the standard library; Python, JavaScript, TypeScript/TSX, Rust and Java with
// the official tree-sitter grammars, which need cgo. A build without them gives a claim that needs
// one of those languages no outcome, so the verdict does not depend on the build
// (lifecycle-v2.md §8).
//
// Verify reads files only through a Source, so post-flight plugs in the working tree and the
// baseline tree.
package claims

// Post-flight wiring (spec-and-lifecycle.md §4 step 5.7):
//
//	src := claims.RootSource{
//		Root:     repo.Root(),
//		Baseline: func(p string) ([]byte, bool, error) { return repo.BaselineBlob(ctx, baseline, p) },
//		List:     func() ([]string, error) { return repo.ListFiles(ctx) },
//	}.Source()
//	checks, err := claims.Verify(ctx, cs, changed, src, baseline) // cs from report.Claim, changed from D
//	if err != nil {
//		return err // a missing backend: operational, exit 3, no verdict
//	}
//	for _, ch := range checks {
//		if ch.Finding != nil {
//			findings = append(findings, *ch.Finding)
//		}
//	}
//	// evidence: "claim_checks": checks (each Check marshals to {claim_index, claim, status, evidence?, finding?})
