package gitscope

import (
	"context"
	"slices"
	"strings"
)

// This file is the interim SnapshotView of the seam between the input builder (#26) and object
// verification (#29): the method set postflight is written against, delegating to the Repo
// methods of today. The object-verification branch replaces it.

// SnapshotView is the repository as one task's audit may read it: the baseline and the task's
// pre-flight snapshot are fixed in it (trust-model.md I1).
type SnapshotView struct {
	r        *Repo
	baseline string
	store    SnapshotStore
}

// SnapshotView returns the view of the task whose pre-flight snapshot of baseline is in store.
// Nothing is read yet: a missing snapshot is ErrNoSnapshot from the first ChangedSet.
func (r *Repo) SnapshotView(_ context.Context, baseline string, store SnapshotStore) (*SnapshotView, error) {
	return &SnapshotView{r: r, baseline: baseline, store: store}, nil
}

// ChangedSet is the task's complete changed set: the work tree under the pre-flight snapshots
// (ChangedSetSince) plus every path that differs between the baseline and HEAD. The work tree
// decides the net change, but an edit committed and then reverted only in the work tree is still
// in HEAD, and a planner who commits the reported files publishes it (hardening A1).
func (v *SnapshotView) ChangedSet(ctx context.Context) (*ChangedSet, error) {
	type diffResult struct {
		cs  *ChangedSet
		err error
	}
	done := make(chan diffResult, 1)
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		head, unborn, err := v.r.Head(dctx)
		if err != nil || unborn || head == v.baseline {
			done <- diffResult{nil, err}
			return
		}
		committed, err := v.r.DiffCommits(dctx, v.baseline, head)
		done <- diffResult{committed, err}
	}()
	cs, err := v.r.ChangedSetSince(ctx, v.baseline, v.store)
	if err != nil {
		cancel()
		<-done
		return nil, err
	}
	d := <-done
	if d.err != nil {
		return nil, d.err
	}
	if d.cs == nil || cs.Degraded {
		return cs, nil
	}
	return withCommitted(cs, d.cs.Entries), nil
}

// withCommitted adds to cs the committed entries whose paths it lacks, keeping Entries sorted by
// raw path bytes and unique.
func withCommitted(cs *ChangedSet, committed []Entry) *ChangedSet {
	have := make(map[string]bool, len(cs.Entries))
	for _, e := range cs.Entries {
		have[string(e.Path)] = true
	}
	added := false
	for _, e := range committed {
		if !have[string(e.Path)] {
			cs.Entries = append(cs.Entries, e)
			added = true
		}
	}
	if added {
		slices.SortFunc(cs.Entries, func(a, b Entry) int { return strings.Compare(string(a.Path), string(b.Path)) })
	}
	return cs
}

// Head is HEAD's commit, unborn in a repository without commits.
func (v *SnapshotView) Head(ctx context.Context) (oid string, unborn bool, err error) {
	return v.r.Head(ctx)
}

// BaselineEntries looks paths up in the baseline tree.
func (v *SnapshotView) BaselineEntries(ctx context.Context, paths []string) (map[string]EntryType, error) {
	return v.r.BaselineEntries(ctx, v.baseline, paths)
}

// BaselineBlob reads one file of the baseline tree.
func (v *SnapshotView) BaselineBlob(ctx context.Context, path string) ([]byte, bool, error) {
	return v.r.BaselineBlob(ctx, v.baseline, path)
}

// ListFiles is the claims checks' file list.
func (v *SnapshotView) ListFiles(ctx context.Context) ([]string, error) { return v.r.ListFiles(ctx) }

// DiffStat is the release notes' diff stat since the baseline.
func (v *SnapshotView) DiffStat(ctx context.Context) (string, error) {
	return v.r.DiffStat(ctx, v.baseline)
}
