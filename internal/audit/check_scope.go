package audit

import (
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// checkScope applies §10.3 and lifecycle-v2.md §1: a changed path outside the scope that
// checkForbids did not report is unexpected_file, and a declared path that did not change as
// declared is missing_expected_file.
func checkScope(r *run) ([]finding.Finding, error) {
	sc := r.in.Spec.Scope
	inScope := map[string]bool{}
	for _, p := range sc.Declared {
		inScope[p] = true
	}
	r.pathFindings(finding.KindUnexpectedFile, func(i int) bool {
		p := r.paths[i]
		return !inScope[p] && !r.forbidden[p]
	})
	var fs []finding.Finding
	seen := map[string]bool{}
	for _, list := range [][]string{sc.Touches, sc.ExpectedDocs} {
		for _, p := range list {
			if seen[p] {
				continue
			}
			seen[p] = true
			if _, ok := r.status(p); !ok {
				fs = append(fs, findMissingExpectedFile(p))
			}
		}
	}
	for _, p := range sc.Deletes {
		if s, _ := r.status(p); s != gitscope.StatusDeleted {
			fs = append(fs, findNotDeleted(p))
		}
	}
	return fs, nil
}
