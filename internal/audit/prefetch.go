package audit

import (
	"context"
	"sync"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// Prefetch is the audit's git work, started before the spec is parsed so that nothing serial
// precedes the git recipe (gitscope.md §8.4): the changed set and the baseline entries of the
// declared creations, each on its own goroutine. Every Prefetch must be closed, so that no git
// process outlives the audit.
type Prefetch struct {
	cancelCS     context.CancelFunc
	csDone       chan changedResult
	csOnce       sync.Once
	cs           changedResult
	cancelLookup context.CancelFunc
	entries      *pending[entriesResult]
}

type changedResult struct {
	cs  *gitscope.ChangedSet
	err error
}

type entriesResult struct {
	types map[string]gitscope.EntryType
	err   error
}

// pending is one background result, received once.
type pending[T any] struct {
	ch   chan T
	once sync.Once
	res  T
}

func (p *pending[T]) wait() T {
	p.once.Do(func() { p.res = <-p.ch })
	return p.res
}

// PrefetchGit is the part of the repository a Prefetch reads; *gitscope.Repo implements it.
type PrefetchGit interface {
	ChangedSet(ctx context.Context, baseline string) (*gitscope.ChangedSet, error)
	BaselineEntries(ctx context.Context, baseline string, paths []string) (map[string]gitscope.EntryType, error)
}

// StartChangedSet starts computing the changed set of baseline (a full commit OID) in the
// background. Call LookupBaseline once the spec is parsed, then hand the Prefetch to Compute.
func StartChangedSet(ctx context.Context, git PrefetchGit, baseline string) *Prefetch {
	csCtx, cancel := context.WithCancel(ctx)
	p := &Prefetch{cancelCS: cancel, csDone: make(chan changedResult, 1)}
	go func() {
		cs, err := git.ChangedSet(csCtx, baseline)
		p.csDone <- changedResult{cs, err}
	}()
	return p
}

// LookupBaseline starts looking the declared creations up in the baseline tree in the
// background, so that loading the pack index overlaps the changed set. Call it at most once.
func (p *Prefetch) LookupBaseline(ctx context.Context, git PrefetchGit, baseline string, paths []string) {
	lctx, cancel := context.WithCancel(ctx)
	p.cancelLookup = cancel
	p.entries = &pending[entriesResult]{ch: make(chan entriesResult, 1)}
	if len(paths) == 0 {
		p.entries.ch <- entriesResult{}
		return
	}
	go func() {
		types, err := git.BaselineEntries(lctx, baseline, paths)
		p.entries.ch <- entriesResult{types, err}
	}()
}

// LookupStarted reports whether LookupBaseline was called.
func (p *Prefetch) LookupStarted() bool { return p.entries != nil }

// ChangedSet waits for the changed set.
func (p *Prefetch) ChangedSet() (*gitscope.ChangedSet, error) {
	p.csOnce.Do(func() { p.cs = <-p.csDone; p.cancelCS() })
	return p.cs.cs, p.cs.err
}

// StopChangedSet cancels the changed set and waits for it to stop.
func (p *Prefetch) StopChangedSet() {
	p.cancelCS()
	p.ChangedSet()
}

// baselineEntries waits for the baseline lookup; without LookupBaseline it is empty.
func (p *Prefetch) baselineEntries() entriesResult {
	if p.entries == nil {
		return entriesResult{}
	}
	return p.entries.wait()
}

// Close cancels and waits for both lookups. It is safe to call more than once.
func (p *Prefetch) Close() {
	p.StopChangedSet()
	if p.entries != nil {
		p.cancelLookup()
		p.entries.wait()
	}
}
