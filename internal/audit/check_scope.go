package audit

import "github.com/mastermind-controller/mastermind/internal/finding"

// checkScope applies §10.3: a changed path outside the declared scope is unexpected_file; a
// touches or expected_docs path that did not change is missing_expected_file (both warnings).
func checkScope(r *run) ([]finding.Finding, error) {
	sc := r.in.Spec.Scope
	var fs []finding.Finding
	inScope := map[string]bool{}
	for _, p := range sc.Declared {
		inScope[p] = true
	}
	for _, e := range r.d {
		if !inScope[string(e.Path)] {
			fs = append(fs, findUnexpectedFile(string(e.Path)))
		}
	}
	seen := map[string]bool{}
	for _, list := range [][]string{sc.Touches, sc.ExpectedDocs} {
		for _, p := range list {
			if seen[p] {
				continue
			}
			seen[p] = true
			if _, ok := r.dset[p]; !ok {
				fs = append(fs, findMissingExpectedFile(p))
			}
		}
	}
	return fs, nil
}
