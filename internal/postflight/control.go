package postflight

import (
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/store"
)

// hashInRoot returns the SHA-256 of the work-tree file rel below root, read without following
// a symbolic link and at most MaxAuditBytes. It returns "" and true when the file does not exist,
// and false when it is not a regular file that can be read whole.
func hashInRoot(root, rel string) (string, bool) {
	d, err := fsx.OpenDir(root, path.Dir(rel))
	if err != nil {
		return "", fsx.ReasonOf(err) == fsx.ReasonMissing
	}
	defer d.Close()
	f, err := d.OpenStable(path.Base(rel), MaxAuditBytes)
	if err != nil {
		return "", fsx.ReasonOf(err) == fsx.ReasonMissing
	}
	defer f.Close()
	h, err := fsx.SHA256File(f)
	return h, err == nil
}

// storeRule is the repopath.ControlRule of a door that has the controller store: a controller name
// is left out of the changed set only when its bytes are ones the controller wrote or had at this
// task's pre-flight (trust-model.md I3). Each path is decided once, so the fingerprint and the
// audit of one run see the same D.
type storeRule struct {
	root, own string
	// pre holds the SHA-256 of each controller name present at the first pre-flight of the
	// task's baseline, from store.ForeignSnapshot.
	pre map[string]string
	reg *store.Registry
	// record returns a task's store record, nil without one.
	record func(task string) *store.Record

	decisions
}

// Controller implements repopath.ControlRule.
func (r *storeRule) Controller(p string, c repopath.ControlName) bool {
	return r.once(p, func() bool { return r.decide(p, c) })
}

// decisions keeps a rule's answer per path: a path is asked about by several audits of one run,
// from several goroutines.
type decisions struct {
	mu      sync.Mutex
	decided map[string]bool
}

// once returns the kept answer for p, deciding it first when there is none.
func (d *decisions) once(p string, decide func() bool) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if v, ok := d.decided[p]; ok {
		return v
	}
	v := decide()
	if d.decided == nil {
		d.decided = map[string]bool{}
	}
	d.decided[p] = v
	return v
}

func (r *storeRule) decide(p string, c repopath.ControlName) bool {
	if c.Task == r.own && (c.Kind == repopath.ControlReport || c.Name == "spec.md") {
		return true // the task's own report and spec: the audit reads and checks them
	}
	h, ok := hashInRoot(r.root, p)
	if !ok {
		// The task's own review that is no regular file or too large is refused by readReview and
		// never archived.
		return c.Task == r.own && c.Kind == repopath.ControlContract
	}
	if h != "" && r.pre[p] == h {
		return true
	}
	switch c.Kind {
	case repopath.ControlContract:
		// A contract file with other bytes, hardening.md A-N1 and A-N3: another task's spec.md is
		// the planner's next contract while it parses as a spec, and a history-review.md is a
		// review of a snapshot its task's controller issued.
		if h == "" {
			return true
		}
		if c.Name == "spec.md" {
			return specParsesInRoot(r.root, p)
		}
		return r.reviewIssued(p, c.Task)
	case repopath.ControlReport:
		return false
	}
	if p == TasksDir+"/"+lessonsName {
		// The planner writes lessons by hand during a history review, so a file of the lessons
		// shape is its contract content.
		return r.reg.Wrote(p, h) || (h != "" && lessonsShapedInRoot(r.root, p))
	}
	if c.Task != "" && (c.Name == mirrorState || c.Name == mirrorAudit) && strings.HasPrefix(p, TasksDir+"/") {
		rec := r.record(c.Task)
		if rec == nil {
			return false
		}
		s := rec.CheckMirrorHash(c.Name, h, h != "")
		return s == store.MirrorMatches || s == store.MirrorStale
	}
	return r.reg.Wrote(p, h)
}

// reviewIssued reports whether the work-tree history review rel of task is the review of a
// snapshot that task's controller issued: the registry holds the pending review it wrote for
// that snapshot, or the task's record is held at it.
func (r *storeRule) reviewIssued(rel, task string) bool {
	data, err := fsx.ReadInRoot(r.root, rel, MaxReviewBytes)
	if err != nil {
		return task == r.own && fsx.ReasonOf(err) == fsx.ReasonTooLarge // refused as above
	}
	snap := reviewSnapshot(data)
	if snap == "" {
		return false
	}
	if r.reg.Wrote(rel, fsx.SHA256Hex(HistoryReviewTemplate(taskFolder(r.root, task), snap))) {
		return true
	}
	if rec := r.record(task); rec != nil {
		st, err := ParseState(rec.State)
		return err == nil && st.HistorySnapshotSHA256 == snap
	}
	return false
}

// specParsesInRoot reports whether the work-tree file rel parses as a spec with no error
// finding, read without following a link.
func specParsesInRoot(root, rel string) bool {
	data, err := fsx.ReadInRoot(root, rel, MaxAuditBytes)
	if err != nil {
		return false
	}
	_, fs := spec.Parse(data, rel)
	for _, f := range fs {
		if f.Class == finding.ClassError {
			return false
		}
	}
	return true
}

// lessonsShapedInRoot reports whether the work-tree file rel has the lessons file's shape, read
// without following a link.
func lessonsShapedInRoot(root, rel string) bool {
	data, err := fsx.ReadInRoot(root, rel, MaxLessonsBytes+1)
	return err == nil && IsLessonsShaped(data)
}

// preflightHashes merges the hashes a record's foreign snapshot took at the first pre-flight of
// baseline; nil for another baseline or an older record.
func preflightHashes(rec *store.Record, baseline string) map[string]string {
	if rec == nil || rec.Foreign == nil || rec.Foreign.Baseline != baseline {
		return nil
	}
	out := make(map[string]string, len(rec.Foreign.Records)+len(rec.Foreign.Files))
	for p, h := range rec.Foreign.Records {
		out[p] = h
	}
	for p, h := range rec.Foreign.Files {
		out[p] = h
	}
	return out
}

// control is the store's changed-set rule of a run-task (trust-model.md I3).
func (c *controller) control(st *State) (repopath.ControlRule, error) {
	if c.files == nil {
		return repopath.ContractsOnly{}, nil
	}
	return c.files.controlRule(st.BaselineRef)
}

// repo opens the repository's store folder once per run.
func (tf *taskFiles) repo() (*store.Repo, error) {
	if tf.repoDir != nil {
		return tf.repoDir, nil
	}
	r, err := tf.store.OpenRepo(store.RepoRef{GitDir: tf.gitDir, WorkTree: tf.task.Root})
	if err != nil {
		return nil, err
	}
	tf.repoDir = r
	return r, nil
}

// controlRule is the run's one repopath.ControlRule for the baseline, which decides every D of the
// run.
func (tf *taskFiles) controlRule(baseline string) (repopath.ControlRule, error) {
	if tf.rule != nil {
		return tf.rule, nil
	}
	r, err := tf.repo()
	if err != nil {
		return nil, err
	}
	reg, err := r.Registry()
	if err != nil {
		return nil, err
	}
	load := recordCache(tf.store, tf.gitDir)
	tf.rule = &storeRule{root: tf.task.Root, own: tf.task.Name, pre: preflightHashes(tf.rec, baseline), reg: reg,
		record: func(task string) *store.Record {
			if task == tf.task.Name {
				return tf.rec
			}
			return load(task)
		}}
	return tf.rule, nil
}

// recordCache returns a storeRule.record that reads each task's store record once with
// loadRecord. It is not safe for concurrent use; storeRule calls it under its decisions lock.
func recordCache(s *store.Store, gitDir string) func(task string) *store.Record {
	records := map[string]*store.Record{}
	return func(task string) *store.Record {
		if rec, ok := records[task]; ok {
			return rec
		}
		rec := loadRecord(s, gitDir, task)
		records[task] = rec
		return rec
	}
}

// loadRecord reads task's store record, nil when there is none or it cannot be read.
func loadRecord(s *store.Store, gitDir, task string) *store.Record {
	if s == nil {
		return nil
	}
	st, err := s.FindTask(gitDir, task)
	if err != nil || st == nil {
		return nil
	}
	defer st.Close()
	rec, err := st.Load()
	if err != nil {
		return nil
	}
	return rec
}

// record registers, before the writes, that the controller is about to write each file's data to
// the work tree, or remove it when data is nil, so the changed set knows those bytes are the
// controller's (trust-model.md I3).
func (tf *taskFiles) record(files ...store.FileWrite) error {
	r, err := tf.repo()
	if err != nil {
		return err
	}
	return r.RecordAll(time.Now(), files...)
}

// tempNames makes d name its temporary files with this task's MAC (store.TempNames).
func (tf *taskFiles) tempNames(d *fsx.Dir) error {
	if tf.temps == nil {
		r, err := tf.repo()
		if err != nil {
			return err
		}
		if tf.temps, err = r.TempNames(tf.task.Name); err != nil {
			return err
		}
	}
	d.SetTempNames(tf.temps)
	return nil
}

// removeTemps removes the temporary files a killed run of this task's controller left in the
// work tree: in the task folder and in the .mastermind folders it writes to. They are never
// controller names (trust-model.md I3), so a leftover would otherwise be a changed path.
func (tf *taskFiles) removeTemps() error {
	if err := tf.tempNames(tf.dir); err != nil {
		return err
	}
	if _, err := tf.dir.RemoveTemps(); err != nil {
		return err
	}
	for _, rel := range []string{repopath.ControlDir, TasksDir, repopath.ControlDir + "/releases"} {
		d, err := fsx.OpenDir(tf.task.Root, rel)
		if fsx.ReasonOf(err) != "" {
			continue // missing, a link or a file: nothing of ours, and no link is followed
		}
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		d.SetTempNames(tf.temps)
		_, err = d.RemoveTemps()
		d.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// openControlDir opens the folder rel below the repository root for a controller write, with
// this task's temporary names.
func (tf *taskFiles) openControlDir(rel string) (*fsx.Dir, error) {
	d, err := fsx.OpenDir(tf.task.Root, rel)
	if err != nil {
		return nil, err
	}
	if err := tf.tempNames(d); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// controlRule is the repopath.ControlRule of a read-only door for task t with state st, from the
// store read without a lock. Without a store, every controller name but the contract files and
// t's own report is a changed path.
func (v *StoreView) controlRule(t Task, st *State) repopath.ControlRule {
	r := &storeRule{root: t.Root, own: t.Name, record: func(string) *store.Record { return nil }}
	if v == nil || v.s == nil {
		return r
	}
	if repo, err := v.s.FindRepo(v.gitDir); err == nil && repo != nil {
		r.reg, _ = repo.Registry()
		repo.Close()
	}
	r.record = recordCache(v.s, v.gitDir)
	if st != nil {
		r.pre = preflightHashes(r.record(t.Name), st.BaselineRef)
	}
	return r
}

// ControlRuleFor is the repopath.ControlRule of the read-only commands that list a changed set
// without auditing a task, for the store at stateDir. task names the task whose pre-flight hashes
// apply, "" the store's current one; the returned close releases the store.
func ControlRuleFor(root, gitDir, stateDir, task string) (rule repopath.ControlRule, closeFn func()) {
	v, err := OpenStoreView(stateDir, gitDir)
	if err != nil {
		return &storeRule{root: root, record: func(string) *store.Record { return nil }}, func() {}
	}
	if task == "" {
		task, _, _ = v.current()
	}
	t := Task{Root: root, Name: task}
	var st *State
	if rec := v.record(task); rec != nil {
		st, _ = ParseState(rec.State)
	}
	return v.controlRule(t, st), v.Close
}

// record reads task's store record without a lock, nil without one.
func (v *StoreView) record(task string) *store.Record {
	if v == nil || v.s == nil || task == "" {
		return nil
	}
	return loadRecord(v.s, v.gitDir, task)
}

// current returns the store's current task, whether the store has a registry for the work tree at
// all, and the error reading it.
func (v *StoreView) current() (task string, known bool, err error) {
	if v == nil || v.s == nil {
		return "", false, nil
	}
	repo, err := v.s.FindRepo(v.gitDir)
	if err != nil || repo == nil {
		return "", false, err
	}
	defer repo.Close()
	reg, err := repo.Registry()
	if err != nil {
		return "", false, err
	}
	return reg.Current, true, nil
}

// CurrentRel is the current-task pointer (integrations.md §2), a mirror of the store's current
// task (trust-model.md I4).
const CurrentRel = repopath.ControlDir + "/current"

// maxCurrentBytes bounds the pointer read.
const maxCurrentBytes = 4 << 10

// syncCurrent keeps the store's current task and its mirror .mastermind/current in step with the
// lifecycle. The store is written first and its failure returned, since every door reads it; a
// failed mirror write is a warning.
func (c *controller) syncCurrent(out *Outcome) error {
	if out == nil || c.files == nil || (out.Outcome != OutcomePreReady && out.Outcome != OutcomeCompleted) {
		return nil
	}
	r, err := c.files.repo()
	if err != nil {
		return err
	}
	name := c.task.Name
	var data []byte
	if out.Outcome == OutcomePreReady {
		data = []byte(name + "\n")
	}
	cleared := false
	if err := r.Update(c.now(), func(g *store.Registry) error {
		switch {
		case data != nil:
			g.Current = name
			g.SetFile(CurrentRel, data)
		case g.Current == name:
			g.Current, cleared = "", true
			g.SetFile(CurrentRel, nil)
		}
		return nil
	}); err != nil {
		return err
	}
	if data == nil && !cleared {
		return nil
	}
	md, err := c.files.openControlDir(repopath.ControlDir)
	if err == nil {
		if data != nil {
			err = md.WriteFileAtomic(path.Base(CurrentRel), data, 0o644)
		} else {
			err = md.Remove(path.Base(CurrentRel), false)
		}
		md.Close()
	}
	if err != nil {
		c.warnf("current-task pointer %s not updated: %v", CurrentRel, err)
	}
	return nil
}

// CurrentTask is the current task of a work tree as the doors that take "the current task" read
// it: the store's, which the pointer mirrors.
type CurrentTask struct {
	// Task is the store's current task, "" when it has none.
	Task string
	// Warning is set when the pointer .mastermind/current says otherwise; it names both, and
	// Task stands.
	Warning string
}

// ReadCurrentTask returns the current task of the work tree from the store at stateDir. The store
// wins over the pointer the executor can write (trust-model.md I4); a store that cannot be read is
// an error.
func ReadCurrentTask(root, gitDir, stateDir string) (CurrentTask, error) {
	v, err := OpenStoreView(stateDir, gitDir)
	if err != nil {
		return CurrentTask{}, err
	}
	defer v.Close()
	task, known, err := v.current()
	if err != nil {
		return CurrentTask{}, err
	}
	pointer, perr := fsx.ReadInRoot(root, CurrentRel, maxCurrentBytes)
	named := strings.TrimSuffix(string(pointer), "\n")
	var what string
	switch {
	case perr != nil && fsx.ReasonOf(perr) == fsx.ReasonMissing:
		if task == "" {
			return CurrentTask{}, nil
		}
		what = CurrentRel + " is missing"
	case perr != nil:
		what = fmt.Sprintf("%s cannot be read (%v)", CurrentRel, perr)
	case named == task && string(pointer) == task+"\n":
		return CurrentTask{Task: task}, nil
	case !repopath.TaskNamePattern.MatchString(named) || strings.Contains(named, ".."):
		what = fmt.Sprintf("%s holds %q, not a task folder name", CurrentRel, truncateRunes(named, 80))
	default:
		what = fmt.Sprintf("%s names %s", CurrentRel, named)
	}
	says := "the controller store's current task is " + task
	switch {
	case !known:
		says = "the controller store has no record of this work tree, so there is no current task (run pre-flight on this machine)"
	case task == "":
		says = "the controller store has no current task"
	}
	return CurrentTask{Task: task, Warning: fmt.Sprintf("%s but %s; the store wins (the pointer is only its mirror)", what, says)}, nil
}

// truncateRunes shortens s to n runes, marking the cut.
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
