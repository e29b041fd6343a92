package postflight

import (
	"context"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// snapshotGit is a Git whose reads of the repository for one baseline go through the task's
// gitscope.SnapshotView (trust-model.md I1, §4.5): the complete changed set, the baseline
// lookups, the claims' file list and the diff stat, all against the pre-flight snapshots held
// in the controller store. The view is the run's one, kept in the task's files.
type snapshotGit struct {
	Git
	files    *taskFiles
	baseline string
}

// snapshotViewer is the part of *gitscope.Repo that opens a task's view.
type snapshotViewer interface {
	SnapshotView(ctx context.Context, baseline string, store gitscope.SnapshotStore) (*gitscope.SnapshotView, error)
}

// view returns the run's view of baseline, opening it on first use; nil when the Git cannot
// open one (a test double), which then answers as it would without snapshots but for the
// changed set.
func (g snapshotGit) view(ctx context.Context, baseline string) (*gitscope.SnapshotView, error) {
	tf := g.files
	tf.viewMu.Lock()
	defer tf.viewMu.Unlock()
	if tf.view != nil && tf.view.Baseline() == baseline {
		return tf.view, nil
	}
	sv, ok := g.Git.(snapshotViewer)
	if !ok {
		return nil, nil
	}
	v, err := sv.SnapshotView(ctx, baseline, tf.st)
	if err != nil || v == nil {
		return nil, err
	}
	if tf.view != nil {
		tf.view.Close()
	}
	tf.view = v
	return v, nil
}

func (g snapshotGit) ChangedSet(ctx context.Context, baseline string) (*gitscope.ChangedSet, error) {
	v, err := g.view(ctx, baseline)
	if err != nil || v == nil {
		if err == nil {
			return g.Git.ChangedSetSince(ctx, baseline, g.files.st)
		}
		return nil, err
	}
	return v.ChangedSet(ctx)
}

func (g snapshotGit) Head(ctx context.Context) (string, bool, error) {
	v, err := g.view(ctx, g.baseline)
	if err != nil || v == nil {
		if err == nil {
			return g.Git.Head(ctx)
		}
		return "", false, err
	}
	return v.Head(ctx)
}

func (g snapshotGit) BaselineEntries(ctx context.Context, baseline string, paths []string) (map[string]gitscope.EntryType, error) {
	v, err := g.view(ctx, baseline)
	if err != nil || v == nil {
		if err == nil {
			return g.Git.BaselineEntries(ctx, baseline, paths)
		}
		return nil, err
	}
	return v.BaselineEntries(ctx, paths)
}

func (g snapshotGit) BaselineBlob(ctx context.Context, baseline, path string) ([]byte, bool, error) {
	v, err := g.view(ctx, baseline)
	if err != nil || v == nil {
		if err == nil {
			return g.Git.BaselineBlob(ctx, baseline, path)
		}
		return nil, false, err
	}
	return v.BaselineBlob(ctx, path)
}

func (g snapshotGit) ListFiles(ctx context.Context) ([]string, error) {
	v, err := g.view(ctx, g.baseline)
	if err != nil || v == nil {
		if err == nil {
			return g.Git.ListFiles(ctx)
		}
		return nil, err
	}
	return v.ListFiles(ctx)
}

func (g snapshotGit) DiffStat(ctx context.Context, baseline string) (string, error) {
	v, err := g.view(ctx, baseline)
	if err != nil || v == nil {
		if err == nil {
			return g.Git.DiffStat(ctx, baseline)
		}
		return "", err
	}
	return v.DiffStat(ctx)
}

// SnapshotView lets a fixedGit wrapping a Repo open the view too.
func (g fixedGit) SnapshotView(ctx context.Context, baseline string, store gitscope.SnapshotStore) (*gitscope.SnapshotView, error) {
	if sv, ok := g.Git.(snapshotViewer); ok {
		return sv.SnapshotView(ctx, baseline, store)
	}
	return nil, nil
}
