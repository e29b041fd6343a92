package postflight

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// The input builder of trust-model.md I1: every door that audits a task reads the repository
// through the one source sourceFor gives it, as the door table of architecture.md lists. No audit
// reads the live index or the live ignore rules.

// source is the repository as one task's audit reads it, its baseline fixed: the changed set C,
// HEAD, the baseline tree's entries and blobs, the claims' file list and the release notes' diff
// stat. *gitscope.SnapshotView and commitSource implement it; Close releases its git processes
// once the door is done with it.
type source interface {
	ChangedSet(ctx context.Context) (*gitscope.ChangedSet, error)
	Head(ctx context.Context) (oid string, unborn bool, err error)
	BaselineEntries(ctx context.Context, paths []string) (map[string]gitscope.EntryType, error)
	BaselineBlob(ctx context.Context, path string) ([]byte, bool, error)
	ListFiles(ctx context.Context) ([]string, error)
	DiffStat(ctx context.Context) (string, error)
	Close() error
}

// ErrNoRecord: the door cannot apply the task's pre-flight snapshots, because this machine's
// controller store has no record of the task.
var ErrNoRecord = errors.New(MsgNoRecord)

// builder is the input builder of one door: git is the work tree's repository; head, set only
// for the gate against a base, is the head commit every task is read from.
type builder struct {
	git  Git
	head *headCommit
}

// sourceFor is task's source under the door's rule of trust-model.md I1: snap is the task's
// pre-flight snapshot in its store record, nil when this machine has none.
func (b builder) sourceFor(ctx context.Context, baseline string, snap gitscope.SnapshotStore) (source, error) {
	if b.head != nil {
		return b.head.source(baseline), nil
	}
	if snap == nil {
		return nil, ErrNoRecord
	}
	return newSnapshotView(ctx, b.git, baseline, snap)
}

// repoFindings are the findings about the repository every snapshot door adds to its audits: a
// git binary that may not be the system's own (trust-model.md §6). The gate against a base reads
// committed objects only and adds none.
func (b builder) repoFindings(ctx context.Context) []finding.Finding {
	if b.head != nil {
		return nil
	}
	if p, _, risk := b.git.GitBinary(ctx); risk != "" {
		return []finding.Finding{audit.FindGitBinaryRisk(p, risk)}
	}
	return nil
}

// newSnapshotView opens the snapshot view; tests replace it to watch what the audit reads.
var newSnapshotView = func(ctx context.Context, git Git, baseline string, snap gitscope.SnapshotStore) (source, error) {
	return git.SnapshotView(ctx, baseline, snap)
}

// auditGit is a task's source as the audit package reads it (audit.PrefetchGit, audit.ClaimsGit):
// bound to the task's baseline. changed, when set, is the changed set the door already computed
// for this audit, returned instead of computing it again; the gate shares one computation between
// a task's audit and the range's ownership.
type auditGit struct {
	src      source
	baseline string
	changed  *gitscope.ChangedSet
}

func (g auditGit) bound(baseline string) error {
	if baseline != g.baseline {
		return fmt.Errorf("internal error: the audit of baseline %s asked about baseline %s", ShortOID(g.baseline), ShortOID(baseline))
	}
	return nil
}

func (g auditGit) ChangedSet(ctx context.Context, baseline string) (*gitscope.ChangedSet, error) {
	if err := g.bound(baseline); err != nil {
		return nil, err
	}
	if g.changed != nil {
		return g.changed, nil
	}
	return g.src.ChangedSet(ctx)
}

func (g auditGit) BaselineEntries(ctx context.Context, baseline string, paths []string) (map[string]gitscope.EntryType, error) {
	if err := g.bound(baseline); err != nil {
		return nil, err
	}
	return g.src.BaselineEntries(ctx, paths)
}

func (g auditGit) BaselineBlob(ctx context.Context, baseline, path string) ([]byte, bool, error) {
	if err := g.bound(baseline); err != nil {
		return nil, false, err
	}
	return g.src.BaselineBlob(ctx, path)
}

func (g auditGit) ListFiles(ctx context.Context) ([]string, error) { return g.src.ListFiles(ctx) }

// without returns a copy of cs without the paths in exclude.
func without(cs *gitscope.ChangedSet, exclude map[string]bool) *gitscope.ChangedSet {
	if cs == nil || len(exclude) == 0 {
		return cs
	}
	out := *cs
	out.Entries = slices.DeleteFunc(slices.Clone(cs.Entries), func(e gitscope.Entry) bool { return exclude[string(e.Path)] })
	return &out
}

// changedOnce is a task's changed set computed at most once per gate run, for its audit and for
// the range's ownership. The computation ignores the caller's cancellation, not its deadline:
// post-flight cancels a speculative changed set when a report is rejected, but this one is
// shared, so it is finished and kept.
type changedOnce struct {
	src source
	// writes are the files the controller's verification runs created, from the task's store
	// record (a local gate), left out of the changed set while unchanged; root is the work tree.
	writes map[string]string
	root   string
	once   sync.Once
	cs     *gitscope.ChangedSet
	err    error
}

func (c *changedOnce) get(ctx context.Context, stats *GateStats) (*gitscope.ChangedSet, error) {
	c.once.Do(func() {
		stats.ChangedSets++
		cctx := context.WithoutCancel(ctx)
		if dl, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			cctx, cancel = context.WithDeadline(cctx, dl)
			defer cancel()
		}
		c.cs, c.err = c.src.ChangedSet(cctx)
		if c.err == nil {
			// Left out here, the audit, the acceptance and closure snapshots and the branch's
			// ownership all see the D the run-task post-flight charged (audit.TaskD).
			c.cs = withoutWrites(c.root, c.cs, c.writes)
		}
	})
	return c.cs, c.err
}

// withoutWrites is cs without the controller's writes that still hold their recorded content
// (a copy when one is left out; cs is unchanged).
func withoutWrites(root string, cs *gitscope.ChangedSet, writes map[string]string) *gitscope.ChangedSet {
	if cs == nil || len(writes) == 0 {
		return cs
	}
	entries, left := audit.WithoutControllerWrites(root, cs.Entries, writes)
	if len(left) == 0 {
		return cs
	}
	out := *cs
	out.Entries = entries
	return &out
}
