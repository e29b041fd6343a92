package postflight

import (
	"os"
	"path/filepath"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/store"
)

// takeForeign snapshots the records of every task but own present in the work tree
// (trust-model.md I3): path → audit.HashForeignRecord. Only canonical task folders directly
// below .mastermind/tasks are read, never through a symlink; a missing tasks folder gives an
// empty snapshot.
func takeForeign(root, own, baseline string) *store.ForeignSnapshot {
	snap := &store.ForeignSnapshot{Baseline: baseline, Records: map[string]string{}}
	tasks, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(TasksDir)))
	if err != nil {
		return snap
	}
	for _, td := range tasks {
		if td.Name() == own || !td.IsDir() || !taskRe.MatchString(td.Name()) {
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
