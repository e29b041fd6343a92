package gitscope

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
)

// SnapshotView is the repository as a task's audit may read it (trust-model.md §4, §4.5): the
// baseline and the pre-flight snapshots are fixed in it, and every read answers from them, the
// work tree and objects verified as they are read. It is safe for concurrent use; Close stops
// the git processes it keeps.
type SnapshotView struct {
	r        *Repo
	baseline string
	store    SnapshotStore
	s        *inputsSnapshot

	csMu   sync.Mutex
	csDone bool
	cs     *ChangedSet
	csErr  error
}

// SnapshotView opens the view of the task whose pre-flight snapshot is in store, for baseline
// (a full OID or EmptyTreeOID). ErrNoSnapshot when store holds none; an error when the
// snapshot is of another baseline.
func (r *Repo) SnapshotView(ctx context.Context, baseline string, store SnapshotStore) (*SnapshotView, error) {
	if !IsFullOID(baseline) {
		return nil, fmt.Errorf("baseline %q is not a full 40-hex object id: %w", baseline, ErrBaselineUnavailable)
	}
	s, err := loadSnapshot(store)
	if err != nil {
		return nil, err
	}
	if s.Baseline != baseline {
		return nil, fmt.Errorf("the pre-flight snapshot is of baseline %s, not %s; run pre-flight again", s.Baseline, baseline)
	}
	return &SnapshotView{r: r, baseline: baseline, store: store, s: s}, nil
}

// Baseline is the view's baseline.
func (v *SnapshotView) Baseline() string { return v.baseline }

// Close stops the view's git processes. The view must not be used afterwards.
func (v *SnapshotView) Close() error { return nil }

// ChangedSet is the task's complete changed set: the work tree against the pre-flight
// snapshots (trust-model.md I1) plus every path that differs between the baseline and HEAD, so
// that an edit committed and then reverted in the work tree is still a changed path (hardening
// A1). It is computed once per view.
func (v *SnapshotView) ChangedSet(ctx context.Context) (*ChangedSet, error) {
	v.csMu.Lock()
	defer v.csMu.Unlock()
	if !v.csDone {
		v.cs, v.csErr = v.changedSet(ctx)
		v.csDone = v.csErr == nil || ctx.Err() == nil
	}
	return v.cs, v.csErr
}

func (v *SnapshotView) changedSet(ctx context.Context) (*ChangedSet, error) {
	type diffResult struct {
		cs  *ChangedSet
		err error
	}
	done := make(chan diffResult, 1)
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		head, unborn, err := v.r.Head(dctx)
		if err != nil || unborn || head == v.baseline || !v.r.gitUsable() {
			done <- diffResult{nil, err}
			return
		}
		committed, err := v.r.DiffCommits(dctx, v.baseline, head)
		done <- diffResult{committed, err}
	}()
	cs, err := v.r.changedSince(ctx, v.s, v.store, 0)
	if err != nil {
		cancel()
		<-done
		return nil, err
	}
	res := <-done
	if res.err != nil {
		return nil, res.err
	}
	if res.cs == nil || cs.Degraded {
		return cs, nil
	}
	return withCommitted(cs, res.cs.Entries), nil
}

// withCommitted adds to cs the committed entries whose paths it lacks, keeping Entries sorted
// by raw path bytes and unique.
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
		slices.SortFunc(cs.Entries, func(a, b Entry) int { return bytes.Compare(a.Path, b.Path) })
	}
	return cs
}

// Head is the commit HEAD names, or unborn.
func (v *SnapshotView) Head(ctx context.Context) (oid string, unborn bool, err error) {
	return v.r.Head(ctx)
}

// BaselineEntries reports what the baseline tree has at each path (Repo.BaselineEntries).
func (v *SnapshotView) BaselineEntries(ctx context.Context, paths []string) (map[string]EntryType, error) {
	return v.r.BaselineEntries(ctx, v.baseline, paths)
}

// BaselineBlob returns the baseline's bytes of path (Repo.BaselineBlob).
func (v *SnapshotView) BaselineBlob(ctx context.Context, path string) ([]byte, bool, error) {
	return v.r.BaselineBlob(ctx, v.baseline, path)
}

// ListFiles is the claims' file list: every tracked and untracked, non-ignored file.
func (v *SnapshotView) ListFiles(ctx context.Context) ([]string, error) {
	return v.r.ListFiles(ctx)
}

// DiffStat is the release-notes diff stat of the work tree against the baseline.
func (v *SnapshotView) DiffStat(ctx context.Context) (string, error) {
	return v.r.DiffStat(ctx, v.baseline)
}
