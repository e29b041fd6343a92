package cli

import (
	"fmt"
	"time"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/harness"
	"github.com/mastermind-controller/mastermind/internal/store"
)

// openHookRecord opens the stop hook's loop-guard record of task in the controller store
// (trust-model.md I4): it is written through the store's handle of the task's folder, never in
// the work tree. The post-flight that just ran made the folder; a task the store has none for
// is an error. The returned close releases the store.
func openHookRecord(repo *gitscope.Repo, task string) (harness.RecordFile, func(), error) {
	gitDir, err := repo.GitDir()
	if err != nil {
		return nil, nil, err
	}
	loc, err := store.Location()
	if err != nil {
		return nil, nil, err
	}
	s, err := store.OpenExisting(loc)
	if err != nil {
		return nil, nil, err
	}
	if s == nil {
		return nil, nil, fmt.Errorf("no controller store at %s; %s", loc, sameStoreStep)
	}
	t, err := s.FindTask(gitDir, task)
	if err == nil && t == nil {
		err = fmt.Errorf("the controller store %s has no folder for task %s; %s", loc, task, sameStoreStep)
	}
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return t.HookRecord(), func() { t.Close(); s.Close() }, nil
}

// sameStoreStep is the next step when the hook finds no store folder for its task: the hook runs
// in the harness's environment, which may name another store than the pre-flight used.
const sameStoreStep = "check that " + store.EnvStateDir + " names the store the task's pre-flight used, or pre-flight it again: mastermind run-task <spec> --pre-only"

// controllerRecorder returns the function that records a controller write below .mastermind/
// in the store's registry before it happens (trust-model.md I3), for new-spec's .gitignore and
// the dispatch counters, when root is a work-tree top level and the controller store can be
// opened. Otherwise it is nil and the write counts as the planner's; the returned close releases
// the store.
func controllerRecorder(root string) (func(rel string, data []byte) error, func()) {
	repo, err := gitscope.Open(root)
	if err != nil {
		return nil, func() {}
	}
	gitDir, err := repo.GitDir()
	if err != nil {
		return nil, func() {}
	}
	loc, err := store.Location()
	if err != nil || store.CheckOutside(loc, repo.Root()) != nil {
		return nil, func() {}
	}
	s, err := store.Open(loc)
	if err != nil {
		return nil, func() {}
	}
	r, err := s.OpenRepo(store.RepoRef{GitDir: gitDir, WorkTree: repo.Root()})
	if err != nil {
		s.Close()
		return nil, func() {}
	}
	return func(rel string, data []byte) error { return r.Record(rel, data, time.Now()) },
		func() { r.Close(); s.Close() }
}
