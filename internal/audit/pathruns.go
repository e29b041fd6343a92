package audit

import (
	"iter"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// pathFindings holds the per-path findings of kind for the paths D[i] with keep(i) as one
// finding.PathRun; Compute materialises the runs at the end when Inputs.PathRuns is not set.
func (r *run) pathFindings(kind string, keep func(i int) bool) {
	n := 0
	for i := range r.paths {
		if keep(i) {
			n++
		}
	}
	switch {
	case n == 0:
		return
	case n == len(r.paths):
		r.runs = append(r.runs, finding.PathRun{Kind: kind, Files: r.fileFields})
		return
	}
	idx := make([]int32, 0, n)
	for i := range r.paths {
		if keep(i) {
			idx = append(idx, int32(i))
		}
	}
	r.runs = append(r.runs, finding.PathRun{Kind: kind, Files: r.fileFields, Index: idx})
}

// All yields the findings of fs (sorted by Compare) and of runs (each in path order, as
// Compute builds them) in Compare order: the order Sort gives to all of them materialised, an
// explicit finding first on a tie. It holds one finding per run at a time.
func All(fs []finding.Finding, runs []finding.PathRun) iter.Seq[finding.Finding] {
	return func(yield func(finding.Finding) bool) {
		next := make([]int, len(runs))
		i := 0
		for {
			best, bestRun := finding.Finding{}, -2
			if i < len(fs) {
				best, bestRun = fs[i], -1
			}
			for k, r := range runs {
				if next[k] >= r.Len() {
					continue
				}
				if f := r.At(next[k]); bestRun == -2 || Compare(f, best) < 0 {
					best, bestRun = f, k
				}
			}
			switch bestRun {
			case -2:
				return
			case -1:
				i++
			default:
				next[bestRun]++
			}
			if !yield(best) {
				return
			}
		}
	}
}

// Len is the number of findings All yields.
func Len(fs []finding.Finding, runs []finding.PathRun) int {
	n := len(fs)
	for _, r := range runs {
		n += r.Len()
	}
	return n
}

// VerdictOfAll is VerdictOf over fs and the findings of runs.
func VerdictOfAll(fs []finding.Finding, runs []finding.PathRun) Verdict {
	e, w := finding.Count(fs)
	re, rw := finding.CountRuns(runs)
	switch {
	case e+re > 0:
		return VerdictBroken
	case w+rw > 0:
		return VerdictDrift
	}
	return VerdictHeld
}
