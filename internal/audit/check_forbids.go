package audit

import "github.com/mastermind-controller/mastermind/internal/finding"

// checkForbids applies lifecycle-v2.md §2: every changed path a forbids pattern matches is
// forbidden_path_changed, whatever the report and the scope say. It records those paths in
// r.forbidden for checkScope, so it must run first.
func checkForbids(r *run) ([]finding.Finding, error) {
	fb := r.in.Spec.Forbids
	if fb.Empty() {
		return nil, nil
	}
	var fs []finding.Finding
	r.forbidden = map[string]bool{}
	for i, e := range r.d {
		p := r.paths[i]
		if pat, bad := fb.Match(p, e.NestedRepository); bad {
			r.forbidden[p] = true
			fs = append(fs, findForbiddenPathChanged(p, pat))
		}
	}
	return fs, nil
}
