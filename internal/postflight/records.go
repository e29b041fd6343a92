package postflight

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/store"
)

// MsgNoRecord is the refusal for a task whose folder has a state.json but whose controller store
// has no record (trust-model.md §3): never a verdict from the mirror.
const MsgNoRecord = "no controller record for this task on this machine; run --pre-only"

// Mirror file names inside the task folder.
const (
	mirrorState = "state.json"
	mirrorAudit = "audit.md"
)

// taskFiles is one run's access to a task: the task folder opened once and used for every read,
// write and lock below it (trust-model.md I4), the task folder's lock and the store's lock, and
// the task's authoritative record in the controller store (I2).
type taskFiles struct {
	task      Task
	dir       *fsx.Dir
	locks     []*fsx.Lock
	store     *store.Store
	st        *store.Task
	rec       *store.Record // nil until the first pre-flight writes one
	storePath string        // the task's store folder
	gitDir    string        // the work tree's git directory, the store key
	// foreign, when set, is the snapshot of the other tasks' records the next saveState
	// stores, taken at a baseline's first pre-flight (trust-model.md I3).
	foreign *store.ForeignSnapshot
	// preflightAt, when set, is the approving pre-flight's time in Unix ms, which the next
	// saveState stores.
	preflightAt int64
	// reported is set once an audit has turned rec.Tampered into findings; the next Save
	// clears the list.
	reported bool
	// repoDir is the repository's store folder, opened once by repo; rule is the run's
	// changed-set rule and temps this task's temporary names.
	repoDir *store.Repo
	rule    repopath.ControlRule
	temps   *store.TempNames
}

// openTaskFiles opens the task folder without following links, takes its lock and then the
// store's, both without waiting, and opens the task's store folder. stateDir is the store root,
// "" for store.Location().
func openTaskFiles(t Task, stateDir, gitDir string) (*taskFiles, error) {
	d, err := fsx.OpenDir(t.Root, t.Dir)
	if err != nil {
		return nil, fmt.Errorf("task folder %s: %w", t.Dir, err)
	}
	tf := &taskFiles{task: t, dir: d, gitDir: gitDir}
	ok := false
	defer func() {
		if !ok {
			tf.close()
		}
	}()
	// The folder's own lock is flock(2) on the folder itself, so no lock file sits in the
	// task folder for an executor to fill (trust-model.md I3).
	l, err := d.TryLockDir()
	if err != nil {
		if errors.Is(err, fsx.ErrLockBusy) {
			return nil, &LockBusyError{Path: t.Dir}
		}
		return nil, fmt.Errorf("controller lock on %s: %w", t.Dir, err)
	}
	tf.locks = append(tf.locks, l)
	if stateDir == "" {
		if stateDir, err = store.Location(); err != nil {
			return nil, err
		}
	}
	if err := store.CheckOutside(stateDir, t.Root); err != nil {
		return nil, err
	}
	s, err := store.Open(stateDir)
	if err != nil {
		return nil, err
	}
	tf.store = s
	tf.st, err = s.OpenTask(store.RepoRef{GitDir: gitDir, WorkTree: t.Root}, t.Name)
	if err != nil {
		return nil, err
	}
	tf.storePath = tf.st.Path()
	sl, err := tf.st.Lock()
	if err != nil {
		if store.KindOf(err) == store.KindBusy {
			return nil, &LockBusyError{Path: tf.storePath + "/lock"}
		}
		return nil, err
	}
	tf.locks = append(tf.locks, sl)
	// What a killed run of this task's controller left behind is removed before anything is
	// read: a temporary file is never a controller name (trust-model.md I3).
	if err := tf.removeTemps(); err != nil {
		return nil, err
	}
	ok = true
	return tf, nil
}

// close releases the locks (store first) and the handles.
func (tf *taskFiles) close() {
	for i := len(tf.locks) - 1; i >= 0; i-- {
		tf.locks[i].Unlock()
	}
	tf.locks = nil
	if tf.repoDir != nil {
		tf.repoDir.Close()
	}
	if tf.st != nil {
		tf.st.Close()
	}
	if tf.store != nil {
		tf.store.Close()
	}
	tf.dir.Close()
}

// loaded is what load found.
type loaded struct {
	// State is the authoritative state from the store; nil without a record.
	State *State
	// Mirror is the task folder's state.json when the store has no record for the task, for the
	// refusal and for --adopt; nil otherwise.
	Mirror *State
	// Rewritten names the mirrors found tampered with and rewritten from the store this run.
	Rewritten []string
}

// load reads the task's record and checks the mirrors against it, as trust-model.md §3 "Mirror
// check" says. Without a record the mirror is read strictly and returned as Mirror, and nothing is
// decided from it.
func (tf *taskFiles) load(now time.Time) (*loaded, error) {
	rec, err := tf.st.Load()
	if err != nil {
		return nil, err
	}
	t := tf.task
	data, rerr := tf.dir.ReadFile(mirrorState, MaxStateBytes)
	present := rerr == nil
	if rerr != nil && fsx.ReasonOf(rerr) != fsx.ReasonMissing {
		return nil, stateReadError(t, rerr)
	}
	var mirror *State
	if present {
		if mirror, err = ParseState(data); err != nil {
			return nil, &CorruptStateError{Path: t.StateRel(), Reason: err.Error()}
		}
		if mirror.SpecPath != t.Spec {
			return nil, &CorruptStateError{Path: t.StateRel(), Reason: fmt.Sprintf("spec_path %q does not match the spec %q", mirror.SpecPath, t.Spec)}
		}
	}
	if rec == nil {
		return &loaded{Mirror: mirror}, nil
	}
	tf.rec = rec
	st, err := ParseState(rec.State)
	if err == nil && st.SpecPath != t.Spec {
		err = fmt.Errorf("spec_path %q does not match the spec %q", st.SpecPath, t.Spec)
	}
	if err != nil {
		return nil, &store.Error{Kind: store.KindCorrupt, Op: "read", Path: tf.storePath + "/state.json", Err: err}
	}
	out := &loaded{State: st}
	changed := false
	// state.json: the record's state rendered is what the controller wrote.
	want, err := MarshalState(st)
	if err != nil {
		return nil, err
	}
	// Every status but a match rewrites the mirror; an unknown or tampered one is also recorded.
	// A stale or missing mirror is a version the record already names.
	if status := rec.CheckMirror(mirrorState, data, present); status != store.MirrorMatches {
		if status == store.MirrorTampered {
			rec.Tampered = append(rec.Tampered, tampering(rec, mirrorState, data, present, now))
			out.Rewritten = append(out.Rewritten, t.StateRel())
		}
		if status == store.MirrorTampered || status == store.MirrorUnknown {
			rec.SetMirror(mirrorState, want)
			changed = true
		}
		if err := tf.dir.WriteFileAtomic(mirrorState, want, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", t.StateRel(), err)
		}
	}
	// audit.md: rewritten from the store's copy. A non-regular audit.md is left for the next
	// write to refuse (spec-and-lifecycle.md §12.2).
	if _, ok := rec.Mirrors[mirrorAudit]; ok {
		// Hashed while it is read, so a large audit.md is not held in memory. The limit is the
		// one a repeated post-flight reads audit.md with, so a forged audit.md larger than a
		// store copy is still found.
		ah, aerr := tf.hashFile(mirrorAudit, MaxAuditBytes)
		apresent := aerr == nil
		if aerr == nil || fsx.ReasonOf(aerr) == fsx.ReasonMissing {
			status := rec.CheckMirrorHash(mirrorAudit, ah, apresent)
			if status == store.MirrorTampered {
				rec.Tampered = append(rec.Tampered, tamperingHash(rec, mirrorAudit, ah, apresent, now))
				out.Rewritten = append(out.Rewritten, t.AuditRel())
				changed = true
			}
			if status == store.MirrorTampered || status == store.MirrorStale || status == store.MirrorMissing {
				if err := tf.restoreAudit(rec); err != nil {
					return nil, err
				}
			}
		} else if fsx.ReasonOf(aerr) == "" {
			return nil, fmt.Errorf("read %s: %w", t.AuditRel(), aerr)
		}
	}
	if changed {
		if err := tf.st.Save(rec, now); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// warnRewritten warns of every mirror load found tampered with and rewritten from the store.
func (c *controller) warnRewritten(ld *loaded) {
	for _, f := range ld.Rewritten {
		c.warnf("%s: %s was changed outside mastermind; it was rewritten from the controller store (%s), and the next post-flight reports it as an error", finding.KindControllerRecordTampered, f, c.files.storePath)
	}
}

// restoreAudit rewrites audit.md from the store's copy, streamed and verified against its hash
// before it replaces audit.md. Without a valid copy the forged file is removed, so nobody reads it
// as the controller's.
func (tf *taskFiles) restoreAudit(rec *store.Record) error {
	m := rec.Mirrors[mirrorAudit]
	if m.SHA256 == "" {
		return tf.dir.Remove(mirrorAudit, false)
	}
	af, err := tf.dir.CreateAtomic(mirrorAudit, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", tf.task.AuditRel(), err)
	}
	bw := bufio.NewWriterSize(af, 64<<10)
	err = tf.st.CopyTo(m.SHA256, bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		af.Abort()
		if store.KindOf(err) != store.KindCorrupt {
			return err
		}
		rec.SetMirrorHash(mirrorAudit, "")
		return tf.dir.Remove(mirrorAudit, false)
	}
	if err := af.Commit(); err != nil {
		return fmt.Errorf("write %s: %w", tf.task.AuditRel(), err)
	}
	return nil
}

// hashFile returns the lowercase hex SHA-256 of the task-folder file name, read by streaming with
// the checks and limit of fsx.Dir.ReadFile.
func (tf *taskFiles) hashFile(name string, limit int64) (string, error) {
	f, err := tf.dir.OpenStable(name, limit)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return fsx.SHA256File(f)
}

func tampering(rec *store.Record, name string, data []byte, present bool, now time.Time) store.Tampering {
	h := ""
	if present {
		h = fsx.SHA256Hex(data)
	}
	return tamperingHash(rec, name, h, present, now)
}

// tamperingHash is tampering with the file found given by its SHA-256 h.
func tamperingHash(rec *store.Record, name, h string, present bool, now time.Time) store.Tampering {
	found := "missing"
	if present {
		found = h
	}
	return store.Tampering{File: name, Expected: rec.Mirrors[name].SHA256, Found: found, At: now.Unix()}
}

// stateReadError maps a refused state.json read to the §5.3 error.
func stateReadError(t Task, err error) error {
	switch fsx.ReasonOf(err) {
	case fsx.ReasonSymlink:
		return &CorruptStateError{Path: t.StateRel(), Reason: "it is a symbolic link"}
	case fsx.ReasonNotRegular:
		return &CorruptStateError{Path: t.StateRel(), Reason: "it is not a regular file"}
	case fsx.ReasonTooLarge:
		return &CorruptStateError{Path: t.StateRel(), Reason: "larger than 1 MiB"}
	case fsx.ReasonUnstable:
		return &CorruptStateError{Path: t.StateRel(), Reason: "it changed while being read"}
	}
	return &CorruptStateError{Path: t.StateRel(), Reason: err.Error()}
}

// saveState writes s to the store first, then to the state.json mirror: an interruption between
// the two leaves the mirror at the previous version, which load takes for an interrupted write,
// not for tampering.
func (tf *taskFiles) saveState(s *State, now time.Time) error {
	if r := s.Validate(); r != "" {
		return fmt.Errorf("internal error: refusing to write invalid state: %s", r)
	}
	data, err := MarshalState(s)
	if err != nil {
		return err
	}
	rec := tf.rec
	if rec == nil {
		rec = &store.Record{}
	}
	rec.State, rec.TaskDir = data, tf.task.Abs(tf.task.Dir)
	if tf.foreign != nil {
		rec.Foreign = tf.foreign
	}
	if tf.preflightAt != 0 {
		rec.PreflightAtMs = tf.preflightAt
	}
	rec.SetMirror(mirrorState, data)
	if tf.reported {
		rec.Tampered = nil
	}
	if err := tf.st.Save(rec, now); err != nil {
		return err
	}
	tf.rec = rec
	if err := tf.dir.WriteFileAtomic(mirrorState, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", tf.task.StateRel(), err)
	}
	return nil
}

// saveAudit streams audit.md to a store copy and a temporary file at once, stores result's data
// beside it, saves the record and then renames audit.md into place, in trust-model.md §3's write
// order. It returns audit.md's SHA-256.
func (tf *taskFiles) saveAudit(render, result func(io.Writer) error, now time.Time) (string, error) {
	if tf.rec == nil {
		return "", errors.New("internal error: audit.md before the first state")
	}
	cp, err := tf.st.NewCopy()
	if err != nil {
		return "", err
	}
	af, err := tf.dir.CreateAtomic(mirrorAudit, 0o644)
	if err != nil {
		cp.Abort()
		return "", err
	}
	bw := bufio.NewWriterSize(io.MultiWriter(cp, af), 64<<10)
	err = render(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		af.Abort()
		cp.Abort()
		return "", err
	}
	h, err := cp.Commit()
	if err != nil {
		af.Abort()
		return "", err
	}
	var res *store.Result
	if result != nil {
		rh, err := tf.saveCopy(result)
		if err != nil {
			af.Abort()
			return "", err
		}
		res = &store.Result{SHA256: rh, AuditSHA256: h}
	}
	prev, had := tf.rec.Mirrors[mirrorAudit]
	prevResult := tf.rec.Result
	tf.rec.SetMirrorHash(mirrorAudit, h)
	tf.rec.Result = res
	if err := tf.st.Save(tf.rec, now); err != nil {
		// The record in memory goes back to what the store holds; the next save prunes the
		// copies no longer named.
		if had {
			tf.rec.Mirrors[mirrorAudit] = prev
		} else {
			delete(tf.rec.Mirrors, mirrorAudit)
		}
		tf.rec.Result = prevResult
		af.Abort()
		return "", err
	}
	return h, af.Commit()
}

// saveCopy stores what write writes as a mirror copy, by streaming, and returns its SHA-256.
func (tf *taskFiles) saveCopy(write func(io.Writer) error) (string, error) {
	cp, err := tf.st.NewCopy()
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriterSize(cp, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		cp.Abort()
		return "", err
	}
	return cp.Commit()
}

// tamperFindings are the controller_record_tampered findings for the mirrors the store has
// recorded as tampered and no audit has reported yet.
func (tf *taskFiles) tamperFindings() []finding.Finding {
	if tf == nil || tf.rec == nil {
		return nil
	}
	var fs []finding.Finding
	for _, tp := range tf.rec.Tampered {
		rel := tf.task.Dir + "/" + tp.File
		what := "was changed"
		if tp.Found == "missing" {
			what = "was removed"
		}
		fs = append(fs, finding.Finding{Rule: finding.KindControllerRecordTampered, Class: finding.ClassError, File: rel,
			Message: fmt.Sprintf("%s %s by someone other than mastermind since the controller wrote it; it was rewritten from the controller store, and every decision uses the store's record", rel, what),
			Fields:  []finding.Field{{Key: "file", Value: rel}, {Key: "expected_sha256", Value: tp.Expected}, {Key: "found_sha256", Value: tp.Found}}})
	}
	return fs
}

// TamperedNames returns the task-folder paths of pending tampering evidence.
func (tf *taskFiles) tamperedFiles() []string {
	if tf == nil || tf.rec == nil {
		return nil
	}
	var out []string
	for _, tp := range tf.rec.Tampered {
		out = append(out, tf.task.Dir+"/"+tp.File)
	}
	return out
}

// readFile reads a task-folder file through the folder handle.
func (tf *taskFiles) readFile(name string, limit int64) ([]byte, error) {
	return tf.dir.ReadFile(name, limit)
}

// writeFile writes a task-folder file atomically through the folder handle.
func (tf *taskFiles) writeFile(name string, data []byte) error {
	return tf.dir.WriteFileAtomic(name, data, 0o644)
}

// checkWritable refuses a task-folder file writeFile would refuse (a symlink, not a regular file).
func (tf *taskFiles) checkWritable(name string) error { return tf.dir.CheckWritable(name) }

// check reports whether the task folder is still the folder the run opened.
func (tf *taskFiles) check() error { return tf.dir.Check() }

// tamperFindings returns the pending controller_record_tampered findings and marks them as
// reported, so that the state write that persists this audit clears them.
func (c *controller) tamperFindings() []finding.Finding {
	if c.files == nil {
		return nil
	}
	fs := c.files.tamperFindings()
	if len(fs) > 0 {
		c.files.reported = true
	}
	return fs
}

// readTaskFile reads the task-folder file name (display path rel) through the folder handle in a
// run-task, or by path below the repository root in the gate's read-only audit.
func (c *controller) readTaskFile(name, rel string, limit int64) ([]byte, error) {
	if c.files != nil {
		return c.files.readFile(name, limit)
	}
	return fsx.ReadInRoot(c.task.Root, rel, limit)
}

// releaseNotesWrite is the release notes as a controller write to record.
func (c *controller) releaseNotesWrite(notes []byte) store.FileWrite {
	return store.FileWrite{Rel: c.task.ReleaseNotesRel(), Data: notes}
}

// writeReleaseNotes records the release notes' hash in the store (trust-model.md I3), then writes
// them; a releases folder it cannot write through is refused before the record.
func (c *controller) writeReleaseNotes(notes []byte) error {
	rd, err := c.openReleases()
	if err != nil {
		return err
	}
	defer rd.Close()
	if err := c.files.record(c.releaseNotesWrite(notes)); err != nil {
		return err
	}
	return c.putReleaseNotes(rd, notes)
}

// openReleases opens .mastermind/releases through a handle on .mastermind opened without
// following links (trust-model.md I4), creating it when missing, so that a symlinked or
// non-directory releases folder is refused before anything is recorded (hardening.md X9).
func (c *controller) openReleases() (*fsx.Dir, error) {
	md, err := c.files.openControlDir(".mastermind")
	if err != nil {
		return nil, fmt.Errorf("release notes directory .mastermind: %w", err)
	}
	defer md.Close()
	rd, err := md.MkdirSub("releases", 0o755)
	if err != nil {
		if r := fsx.ReasonOf(err); r == fsx.ReasonSymlink || r == fsx.ReasonNotRegular {
			return nil, fmt.Errorf("release notes directory .mastermind/releases: .mastermind/releases is a symbolic link or not a directory (%w); replace it with a directory and rerun post-flight", err)
		}
		return nil, fmt.Errorf("create .mastermind/releases: %w; check that .mastermind is writable and rerun post-flight", err)
	}
	if err := c.files.tempNames(rd); err != nil {
		rd.Close()
		return nil, err
	}
	return rd, nil
}

// putReleaseNotes writes <task>.md, already recorded, in the releases folder rd (openReleases).
func (c *controller) putReleaseNotes(rd *fsx.Dir, notes []byte) error {
	if err := rd.WriteFileAtomic(c.task.Name+".md", notes, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", c.task.ReleaseNotesRel(), err)
	}
	return nil
}
