package postflight

import (
	"os"
	"path/filepath"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/store"
)

// takeForeign snapshots the records of every task but own present in the work tree
// (trust-model.md I3): path → audit.HashForeignRecord. Only canonical task folders directly
// below .mastermind/tasks are read, never through a symlink; a missing tasks folder gives an
// empty snapshot.
func takeForeign(root, own, baseline string) *store.ForeignSnapshot {
	snap := &store.ForeignSnapshot{Baseline: baseline, Records: map[string]string{}, Files: preflightFiles(root)}
	tasks, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(TasksDir)))
	if err != nil {
		return snap
	}
	for _, td := range tasks {
		if td.Name() == own || !td.IsDir() || !repopath.TaskNamePattern.MatchString(td.Name()) {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(TasksDir), td.Name()))
		if err != nil {
			continue
		}
		for _, e := range entries {
			rel := TasksDir + "/" + td.Name() + "/" + e.Name()
			if _, _, ok := repopath.TaskArtifact(rel); !ok {
				continue
			}
			if h := audit.HashForeignRecord(root, rel); h != "" && h != audit.ForeignUnreadable {
				snap.Records[rel] = h
			}
		}
	}
	return snap
}

// preflightFiles hashes every controller name outside the task folders present in the work
// tree (repopath.ControlWritten: current, tasks/_lessons.md, releases/<task>.md,
// dispatch/<id>.json), read never through a symlink; what the planner wrote there before
// pre-flight is then not taken for the executor's (trust-model.md I3).
func preflightFiles(root string) map[string]string {
	out := map[string]string{}
	add := func(rel string) {
		if c := repopath.ClassifyControl(rel); c.Kind != repopath.ControlWritten {
			return
		}
		if h := audit.HashForeignRecord(root, rel); h != "" && h != audit.ForeignUnreadable {
			out[rel] = h
		}
	}
	for _, rel := range []string{CurrentRel, TasksDir + "/" + lessonsName} {
		add(rel)
	}
	for _, dir := range []string{repopath.ControlDir + "/releases", repopath.ControlDir + "/dispatch"} {
		d, err := fsx.OpenDir(root, dir)
		if err != nil {
			continue
		}
		names, _ := d.Names()
		d.Close()
		for _, n := range names {
			add(dir + "/" + n)
		}
	}
	return out
}

// withPreflightFiles is snap with the controller names' hashes added (preflightFiles), for a
// record taken before they were kept: the names an older mastermind wrote are then not the
// executor's. What an executor wrote to them since that record's first pre-flight is taken in too,
// once, on the first pre-flight after the upgrade.
func withPreflightFiles(snap *store.ForeignSnapshot, root string) *store.ForeignSnapshot {
	out := *snap
	out.Files = preflightFiles(root)
	return &out
}

// controllerWrote reports whether sha is a version of task's mirror name that task's own
// controller wrote (its store record), so that another task's post-flight run beside this one
// is not taken for this executor's doing.
func (tf *taskFiles) controllerWrote(task, name, sha string) bool {
	if tf.store == nil {
		return false
	}
	st, err := tf.store.FindTask(tf.gitDir, task)
	if err != nil || st == nil {
		return false
	}
	defer st.Close()
	rec, err := st.Load()
	if err != nil || rec == nil {
		return false
	}
	// The last version it wrote, or an earlier one (store.Record.CheckMirrorHash).
	s := rec.CheckMirrorHash(name, sha, true)
	return s == store.MirrorMatches || s == store.MirrorStale
}
