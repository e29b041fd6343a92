package postflight

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// countingLookup is a source that counts its baseline lookups.
type countingLookup struct {
	source
	n *atomic.Int32
}

func (g countingLookup) BaselineEntries(ctx context.Context, paths []string) (map[string]gitscope.EntryType, error) {
	g.n.Add(1)
	return g.source.BaselineEntries(ctx, paths)
}

// TestRepeatedPostflightLooksNothingUp: a repeated post-flight rebuilds the recorded outcome
// without the baseline lookup of the declared creations (a hook's every stop), and a post-flight
// whose inputs changed since a recorded verdict, or that audits unchanged ones again, still looks
// them up before it audits.
func TestRepeatedPostflightLooksNothingUp(t *testing.T) {
	root, opts := newTaskRepo(t)
	var n atomic.Int32
	orig := newSnapshotView
	t.Cleanup(func() { newSnapshotView = orig })
	newSnapshotView = func(ctx context.Context, git Git, baseline string, snap gitscope.SnapshotStore) (source, error) {
		src, err := orig(ctx, git, baseline, snap)
		return countingLookup{source: src, n: &n}, err
	}
	driftWith(t, root, "notes/extra.txt")
	first := run(t, opts, ModePostOnly)
	if first.Repeated || first.Verdict != VerdictDrift || n.Load() != 1 {
		t.Fatalf("first post-flight: repeated %v, verdict %q, %d lookups; want false, drift, 1", first.Repeated, first.Verdict, n.Load())
	}
	n.Store(0)
	again := run(t, opts, ModePostOnly)
	if !again.Repeated || again.Verdict != VerdictDrift {
		t.Fatalf("repeat: repeated %v, verdict %q; want true, drift", again.Repeated, again.Verdict)
	}
	if got := n.Load(); got != 0 {
		t.Errorf("a repeated post-flight ran %d baseline lookups, want 0", got)
	}
	// Unchanged inputs that must be audited all the same (--rerun-verify) are looked up too.
	rerun := opts
	rerun.RerunVerify = true
	forced := run(t, rerun, ModePostOnly)
	if forced.Repeated || forced.Verdict != VerdictDrift || n.Load() != 1 {
		t.Fatalf("--rerun-verify: repeated %v, verdict %q, %d lookups; want false, drift, 1", forced.Repeated, forced.Verdict, n.Load())
	}
	n.Store(0)
	writeFile(t, root, "notes/extra.txt", "y\n")
	changed := run(t, opts, ModePostOnly)
	if changed.Repeated || changed.Verdict != VerdictDrift || n.Load() != 1 {
		t.Fatalf("changed inputs: repeated %v, verdict %q, %d lookups; want false, drift, 1", changed.Repeated, changed.Verdict, n.Load())
	}
}
