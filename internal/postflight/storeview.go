package postflight

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/store"
)

// StoreView reads one work tree's records in the controller store without creating, locking or
// writing anything, for status and the gate (trust-model.md I2).
type StoreView struct {
	s      *store.Store // nil when the store does not exist yet
	gitDir string
	path   string // the work tree's store folder
}

// OpenStoreView opens the store at stateDir ("" for store.Location()) for the work tree whose
// own git directory is gitDir. A store that does not exist yet is a view without records.
func OpenStoreView(stateDir, gitDir string) (*StoreView, error) {
	if stateDir == "" {
		var err error
		if stateDir, err = store.Location(); err != nil {
			return nil, err
		}
	}
	s, err := store.OpenExisting(stateDir)
	if err != nil {
		return nil, err
	}
	id, err := store.RepoID(gitDir)
	if err != nil {
		if s != nil {
			s.Close()
		}
		return nil, fmt.Errorf("git directory %s: %w", gitDir, err)
	}
	return &StoreView{s: s, gitDir: gitDir, path: filepath.Join(stateDir, "repos", id)}, nil
}

// Path is the work tree's folder in the controller store (it may not exist yet).
func (v *StoreView) Path() string { return v.path }

// Close releases the store handle.
func (v *StoreView) Close() {
	if v != nil && v.s != nil {
		v.s.Close()
	}
}

// overlay replaces a scanned task's mirror state by the store's record when there is one, and
// notes a mirror that holds content the controller never wrote.
func (v *StoreView) overlay(in *TaskInfo) {
	if v == nil || v.s == nil || in.Task.Spec == "" {
		return
	}
	if _, ok := in.Err.(*NotTaskFolderError); ok {
		return
	}
	st, err := v.s.FindTask(v.gitDir, in.Task.Name)
	if err != nil || st == nil {
		if err != nil {
			in.Err = err
		}
		return
	}
	defer st.Close()
	rec, err := st.Load()
	if err != nil || rec == nil {
		if err != nil {
			in.Err = err
		}
		return
	}
	s, err := ParseState(rec.State)
	if err != nil {
		in.Err = &store.Error{Kind: store.KindCorrupt, Op: "read", Path: st.Path() + "/state.json", Err: err}
		return
	}
	in.Recorded = true
	if in.Err != nil {
		// A corrupt mirror stays an error (spec-and-lifecycle.md §5.3), the record notwithstanding.
		return
	}
	data, rerr := fsx.ReadInRoot(in.Task.Root, in.Task.StateRel(), MaxStateBytes)
	if rerr == nil && rec.CheckMirror(mirrorState, data, true) == store.MirrorTampered {
		in.Tampered = fmt.Sprintf("%s: %s differs from what mastermind last wrote; the controller store's record is shown, and the next run-task rewrites the mirror and reports it", finding.KindControllerRecordTampered, in.Task.StateRel())
	}
	in.State = s
}

// snapshots opens the store folder of task, which holds the pre-flight snapshots its audits
// read (a gitscope.SnapshotStore); nil without a record. The caller closes it.
func (v *StoreView) snapshots(task string) (*store.Task, error) {
	if v == nil || v.s == nil {
		return nil, nil
	}
	return v.s.FindTask(v.gitDir, task)
}

// recordedTask is one task record of the work tree: its name, the store folder holding it and
// the status of its state, or the error that kept the record from being read.
type recordedTask struct {
	name, dir, status string
	err               error
}

// records lists the records of the work tree at workTree that hold a state (a folder left by a
// refused first pre-flight holds none), sorted by name, including those written under an earlier
// git directory of the work tree (store.RepoIDs); none without a store.
func (v *StoreView) records(workTree string) ([]recordedTask, error) {
	if v == nil || v.s == nil {
		return nil, nil
	}
	ids, err := v.s.RepoIDs(v.gitDir, workTree)
	if err != nil {
		return nil, err
	}
	var out []recordedTask
	seen := map[string]bool{}
	for _, id := range ids {
		names, err := v.s.TaskNames(id)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if seen[n] {
				continue
			}
			seen[n] = true
			if r, ok := v.readRecord(id, n); ok {
				out = append(out, r)
			}
		}
	}
	slices.SortFunc(out, func(a, b recordedTask) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// readRecord reads the record of task n in the store folder repos/<id>; false when it holds no state.
func (v *StoreView) readRecord(id, n string) (recordedTask, bool) {
	r := recordedTask{name: n, dir: filepath.Join(v.s.Root(), "repos", id, "tasks", n)}
	st, err := v.s.FindTaskIn(id, n)
	if err != nil || st == nil {
		r.err = err
		return r, err != nil
	}
	rec, err := st.Load()
	path := st.Path()
	st.Close()
	switch {
	case err != nil:
		r.err = err
		return r, true
	case rec == nil:
		return r, false
	}
	s, err := ParseState(rec.State)
	if err != nil {
		r.err = &store.Error{Kind: store.KindCorrupt, Op: "read", Path: path + "/state.json", Err: err}
		return r, true
	}
	r.status = s.Status
	return r, true
}
