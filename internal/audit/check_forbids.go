package audit

import "github.com/mastermind-controller/mastermind/internal/finding"

// checkForbids applies lifecycle-v2.md §2: every changed path that a forbids pattern of the spec
// forbids is forbidden_path_changed (error), whether files_modified lists it or not and whether
// the scope declares it or not. It records the forbidden paths in r.forbidden, so checkScope
// does not report them a second time as unexpected_file; it must run before checkScope.
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
