package audit

import (
	"cmp"
	"errors"
	"slices"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// Rename is a deleted deletes path and an added creates path whose contents are at least
// gitscope.RenameThreshold percent similar, shown in audit.md as "renamed From → To". It is for
// readability only; the findings are those of the deletion and of the addition.
type Rename struct {
	From, To string
	// Similarity is git's similarity index of the two contents, in percent.
	Similarity int
}

// Bounds that keep the pairing cheap: files larger than maxRenameBytes are not paired, and
// with more than maxRenamePairs candidate pairs none are scored.
const (
	maxRenameBytes = 8 << 20
	maxRenamePairs = 10_000
)

// pairRenames pairs the spec's deletes paths that D has as deleted with its creates paths that
// D has as added or untracked, best score first and each path once, as git pairs them. Only a
// cancelled context or a forged object is an error; an unreadable or symlinked file pairs
// nothing.
func pairRenames(r *run) ([]Rename, error) {
	sc := r.in.Spec.Scope
	var dels, adds []string
	for _, p := range sc.Deletes {
		if s, _ := r.status(p); s == gitscope.StatusDeleted {
			dels = append(dels, p)
		}
	}
	for _, p := range sc.Creates {
		if s, _ := r.status(p); s == gitscope.StatusAdded || s == gitscope.StatusUntracked {
			adds = append(adds, p)
		}
	}
	if len(dels) == 0 || len(adds) == 0 || len(dels)*len(adds) > maxRenamePairs || r.in.Claims == nil {
		return nil, nil
	}
	old := map[string][]byte{}
	for _, p := range dels {
		data, ok, err := r.in.Claims.BaselineBlob(r.ctx, r.in.Baseline, p)
		if r.ctx.Err() != nil {
			return nil, r.ctx.Err()
		}
		if errors.Is(err, gitscope.ErrObjectStoreModified) {
			return nil, err // a forged object is exit 3, whatever reads it
		}
		if err == nil && ok && len(data) <= maxRenameBytes {
			old[p] = data
		}
	}
	cur := map[string][]byte{}
	for _, p := range adds {
		if data, err := fsx.ReadInRoot(r.in.Root, p, maxRenameBytes); err == nil {
			cur[p] = data
		}
	}
	var cands []Rename
	for _, from := range dels {
		for _, to := range adds {
			a, okA := old[from]
			b, okB := cur[to]
			if !okA || !okB {
				continue
			}
			if s := gitscope.Similarity(a, b); s >= gitscope.RenameThreshold {
				cands = append(cands, Rename{From: from, To: to, Similarity: s})
			}
		}
	}
	slices.SortFunc(cands, func(x, y Rename) int {
		return cmp.Or(cmp.Compare(y.Similarity, x.Similarity), cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To))
	})
	var out []Rename
	used := map[string]bool{}
	for _, c := range cands {
		if used[c.From] || used["\x00"+c.To] {
			continue
		}
		used[c.From], used["\x00"+c.To] = true, true
		out = append(out, c)
	}
	slices.SortFunc(out, func(x, y Rename) int { return cmp.Compare(x.From, y.From) })
	return out, nil
}
