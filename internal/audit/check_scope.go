package audit

import (
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// checkScope applies §10.3 with lifecycle-v2.md §1: a changed path outside the declared scope is
// unexpected_file, unless checkForbids already reported it as forbidden (forbids override the
// scope); a touches or expected_docs path that did not change, and a deletes path that was not
// deleted, are missing_expected_file (all warnings).
func checkScope(r *run) ([]finding.Finding, error) {
	sc := r.in.Spec.Scope
	inScope := map[string]bool{}
	for _, p := range sc.Declared {
		inScope[p] = true
	}
	fs := r.pathFindings(finding.KindUnexpectedFile, func(i int) bool {
		p := r.paths[i]
		return !inScope[p] && !r.forbidden[p]
	})
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
