package postflight

import (
	"context"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// snapshotGit is a Git whose changed set is computed against the task's pre-flight snapshots
// (gitscope.ChangedSetSince, trust-model.md I1), held in the controller store.
type snapshotGit struct {
	Git
	snap gitscope.SnapshotStore
}

func (g snapshotGit) ChangedSet(ctx context.Context, baseline string) (*gitscope.ChangedSet, error) {
	return g.Git.ChangedSetSince(ctx, baseline, g.snap)
}
