package postflight

import (
	"context"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// snapshotGit is a Git whose changed set is computed against the task's pre-flight snapshots
// (gitscope.ChangedSetSince, trust-model.md I1), held in the controller store.
type snapshotGit struct {
	Git
	snap gitscope.SnapshotStore
}

// commitDiffer is the part of *gitscope.Repo that diffs two commits.
type commitDiffer interface {
	DiffCommits(ctx context.Context, from, to string) (*gitscope.ChangedSet, error)
}

// ChangedSet is the snapshot run's changed set plus every path that differs between the
// baseline and HEAD. The work tree decides the net change (gitscope.md §1), but an edit the
// executor committed and then reverted only in the work tree is still in HEAD, and a planner who
// commits the reported files publishes it: such a path is a changed path too (hardening A1).
func (g snapshotGit) ChangedSet(ctx context.Context, baseline string) (*gitscope.ChangedSet, error) {
	// The commit diff runs beside the snapshot run, so it adds no serial git call.
	type diffResult struct {
		cs  *gitscope.ChangedSet
		err error
	}
	done := make(chan diffResult, 1)
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		head, unborn, err := g.Head(dctx)
		d, ok := g.Git.(commitDiffer)
		if err != nil || unborn || head == baseline || !ok {
			done <- diffResult{nil, err}
			return
		}
		committed, err := d.DiffCommits(dctx, baseline, head)
		done <- diffResult{committed, err}
	}()
	cs, err := g.Git.ChangedSetSince(ctx, baseline, g.snap)
	if err != nil {
		cancel()
		<-done
		return nil, err
	}
	r := <-done
	if r.err != nil {
		return nil, r.err
	}
	if r.cs == nil || cs.Degraded {
		return cs, nil
	}
	return withCommitted(cs, r.cs.Entries), nil
}

// withCommitted adds to cs the committed entries whose paths it lacks, keeping Entries sorted by
// raw path bytes and unique.
func withCommitted(cs *gitscope.ChangedSet, committed []gitscope.Entry) *gitscope.ChangedSet {
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
		slices.SortFunc(cs.Entries, func(a, b gitscope.Entry) int { return strings.Compare(string(a.Path), string(b.Path)) })
	}
	return cs
}
