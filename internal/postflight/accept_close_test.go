package postflight

import (
	"context"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// blockingLookup is a source whose baseline lookup waits for its context to end, and records
// when it does.
type blockingLookup struct {
	source
	started, ended chan struct{}
}

func (g blockingLookup) BaselineEntries(ctx context.Context, paths []string) (map[string]gitscope.EntryType, error) {
	g.started <- struct{}{}
	<-ctx.Done()
	g.ended <- struct{}{}
	return nil, ctx.Err()
}

// TestAcceptClosesTheInputsLookups: accept reads the inputs as post-flight does, which starts the
// changed set and HEAD; when accept returns none of them still runs (audit.Prefetch: every
// Prefetch must be closed). The state records a fingerprint, so the baseline lookup of the
// creations waits for an audit, which accept never runs: it is not started at all.
func TestAcceptClosesTheInputsLookups(t *testing.T) {
	root, opts := newTaskRepo(t)
	driftWith(t, root, "internal/cache/shard.go")
	wantOutcome(t, run(t, opts, ModePostOnly), OutcomePostDrift, StatusDrift, NextPlannerReview)
	g := blockingLookup{started: make(chan struct{}, 4), ended: make(chan struct{}, 4)}
	orig := newSnapshotView
	t.Cleanup(func() { newSnapshotView = orig })
	newSnapshotView = func(ctx context.Context, git Git, baseline string, snap gitscope.SnapshotStore) (source, error) {
		src, err := orig(ctx, git, baseline, snap)
		g.source = src
		return g, err
	}
	res, err := Accept(context.Background(), AcceptOptions{Git: opts.Git, SpecArg: taskSpec, Reason: "the shard is wanted", Now: fixedNow, StateDir: opts.StateDir})
	if err != nil {
		t.Fatalf("Accept: %v", err)
	}
	if res.Outcome != OutcomeAccepted {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	if n := len(g.started); n != 0 {
		t.Errorf("accept started %d baseline lookups, want none", n)
	}
	for n := len(g.started); n > 0; n-- {
		select {
		case <-g.ended:
		default:
			t.Fatal("accept returned while its baseline lookup still runs")
		}
	}
}
