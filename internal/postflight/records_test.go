package postflight

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/store"
)

// Tests of the controller store's part in run-task (trust-model.md I2, I4, §3).

const auditRel = ".mastermind/tasks/020-cache/audit.md"

// TestMirrorsRestoredFromStore: deleted mirrors hide nothing and are rewritten byte for byte from
// the store, without a tampering finding; the task goes on from the store's record.
func TestMirrorsRestoredFromStore(t *testing.T) {
	root, opts := newTaskRepo(t)
	heldWork(t, root)
	run(t, opts, ModePostOnly)
	state, audit := readFile(t, root, stateRel), readFile(t, root, auditRel)
	for _, rel := range []string{stateRel, auditRel} {
		if err := os.Remove(filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, opts, ModeAuto)
	if res.Outcome != OutcomeHistoryPending || len(res.Warnings) != 0 {
		t.Fatalf("outcome %s, warnings %v", res.Outcome, res.Warnings)
	}
	if !bytes.Equal(readFile(t, root, stateRel), state) || !bytes.Equal(readFile(t, root, auditRel), audit) {
		t.Fatal("the mirrors were not restored byte for byte")
	}
}

// TestForgedAuditMirror: an audit.md the controller never wrote is rewritten from the store; the
// completion refuses to close the task on it (audit_required), and the next post-flight reports it
// once as controller_record_tampered naming the file.
func TestForgedAuditMirror(t *testing.T) {
	root, opts := newTaskRepo(t)
	heldWork(t, root)
	run(t, opts, ModePostOnly)
	completeTheReview(t, root)
	audit := readFile(t, root, auditRel)
	writeFile(t, root, auditRel, strings.Replace(string(audit), "Held", "Held (forged)", 1))
	res := run(t, opts, ModeAuto)
	wantOutcome(t, res, OutcomePostRefused, StatusAuditRequired, NextRunAudit)
	if !strings.Contains(res.Message, "controller records were changed outside mastermind (.mastermind/tasks/020-cache/audit.md)") {
		t.Fatalf("message %q", res.Message)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], finding.KindControllerRecordTampered) {
		t.Fatalf("warnings %v", res.Warnings)
	}
	if !bytes.Equal(readFile(t, root, auditRel), audit) {
		t.Fatal("audit.md was not rewritten from the store")
	}
	res = run(t, opts, ModePostOnly)
	var found int
	for f := range res.AllFindings() {
		if f.Rule == finding.KindControllerRecordTampered && f.FieldString("file") == auditRel && f.FieldString("expected_sha256") == fsx.SHA256Hex(audit) {
			found++
		}
	}
	if found != 1 || res.Outcome != OutcomePostBroken {
		t.Fatalf("outcome %s, findings %v", res.Outcome, res.Findings)
	}
	// The evidence is reported once: the next audit is the first held one again (and the review
	// completed for it closes the task, once the lesson the broken audit proposed is written).
	completeTheReview(t, root)
	if res = run(t, opts, ModePostOnly); res.Outcome != OutcomeCompleted || len(res.Findings) != 0 {
		t.Fatalf("the evidence is reported once; then %s %v", res.Outcome, res.Findings)
	}
}

// TestForgedStateMirror: a state.json the controller never wrote (the iteration budget reset by
// hand) is rewritten from the store's record and decides nothing; the post-flight reports it once
// as controller_record_tampered naming state.json and the hash the store expected.
func TestForgedStateMirror(t *testing.T) {
	root, opts := newTaskRepo(t)
	heldWork(t, root)
	run(t, opts, ModePostOnly)
	state := readFile(t, root, stateRel)
	forged := strings.Replace(string(state), `"iteration": 1,`, `"iteration": 0,`, 1)
	if forged == string(state) {
		t.Fatalf("state.json has no iteration to forge:\n%s", state)
	}
	writeFile(t, root, stateRel, forged)
	res := run(t, opts, ModePostOnly)
	if now := string(readFile(t, root, stateRel)); !strings.Contains(now, `"iteration": 1,`) {
		t.Fatalf("the forged iteration was kept:\n%s", now)
	}
	var found int
	for f := range res.AllFindings() {
		if f.Rule == finding.KindControllerRecordTampered && f.FieldString("file") == stateRel && f.FieldString("expected_sha256") == fsx.SHA256Hex(state) {
			found++
		}
	}
	if found != 1 || res.Outcome != OutcomePostBroken {
		t.Fatalf("outcome %s, findings %v", res.Outcome, res.Findings)
	}
	// Reported once: the next audit is held again.
	if res = run(t, opts, ModePostOnly); res.Outcome != OutcomePostHeld || len(res.Findings) != 0 {
		t.Fatalf("the evidence is reported once; then %s %v", res.Outcome, res.Findings)
	}
}

// TestNoRecordNoVerdict: a state.json without a store record never yields a verdict; --pre-only
// starts afresh at HEAD, --adopt keeps an ancestor baseline.
func TestNoRecordNoVerdict(t *testing.T) {
	root, opts := newTaskRepo(t)
	base := readState(t, root).BaselineRef
	heldWork(t, root)
	writeFile(t, root, "notes.txt", "later\n")
	git(t, root, "add", "notes.txt")
	git(t, root, "commit", "-q", "-m", "later")
	forgetRecord(t, root, "020-cache")
	for _, m := range []Mode{ModeAuto, ModePostOnly} {
		res := run(t, opts, m)
		if res.Outcome != OutcomePostRefused || !strings.HasPrefix(res.Message, MsgNoRecord) {
			t.Fatalf("mode %d: %s %q", m, res.Outcome, res.Message)
		}
	}
	opts.Adopt = true
	res := run(t, opts, ModePreOnly)
	if res.Outcome != OutcomePreReady || res.State.BaselineRef != base || res.State.Iteration != 1 || res.Adopted != base {
		t.Fatalf("adopt: %s %+v %q", res.Outcome, res.State, res.Adopted)
	}
	forgetRecord(t, root, "020-cache")
	opts.Adopt = false
	res = run(t, opts, ModePreOnly)
	if res.Outcome != OutcomePreReady || res.State.BaselineRef == base || len(res.Warnings) != 1 {
		t.Fatalf("fresh pre-flight: %s %+v %v", res.Outcome, res.State, res.Warnings)
	}
}

// TestStoreLockExcludesSecondController: the store's lock excludes a second controller even when
// the executor deleted the task folder's lock file (the second one would take a new one).
func TestStoreLockExcludesSecondController(t *testing.T) {
	root, opts := newTaskRepo(t)
	s, err := store.Open(os.Getenv(store.EnvStateDir))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tk, err := s.OpenTask(store.RepoRef{GitDir: filepath.Join(root, ".git"), WorkTree: root}, "020-cache")
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	l, err := tk.Lock()
	if err != nil {
		t.Fatal(err)
	}
	before := readFile(t, root, stateRel)
	os.Remove(filepath.Join(root, ".mastermind/tasks/020-cache/state.controller.lock"))
	_, err = Run(context.Background(), Options{Git: opts.Git, SpecArg: taskSpec, Mode: ModePreOnly, Now: fixedNow})
	var busy *LockBusyError
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "task controller is busy") {
		t.Fatalf("second controller: %v", err)
	}
	if !bytes.Equal(before, readFile(t, root, stateRel)) {
		t.Fatal("state changed under a busy store lock")
	}
	l.Unlock()
	run(t, opts, ModePreOnly)
}

// TestReadOnlyStoreFault: with the store on a file system remounted read-only, every phase fails
// with a store error of kind read_only (exit 3), and neither the store nor the task folder changes.
func TestReadOnlyStoreFault(t *testing.T) {
	mnt := t.TempDir()
	mountOrSkip(t, "tmpfs", mnt, "tmpfs", 0, "size=8m")
	t.Setenv(store.EnvStateDir, filepath.Join(mnt, "state"))
	root, opts := newTaskRepo(t)
	dir := filepath.Join(root, ".mastermind/tasks/020-cache")
	before, storeBefore := readTree(t, dir), readTree(t, mnt)
	mountOrSkip(t, "", mnt, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, "")
	for _, mode := range []Mode{ModePreOnly, ModePostOnly, ModeAuto} {
		opts.Mode = mode
		res, err := Run(context.Background(), opts)
		if !errors.Is(err, store.ErrReadOnly) || res.Outcome != OutcomeError {
			t.Fatalf("mode %d: %s, %v", mode, res.Outcome, err)
		}
	}
	sameTree(t, before, readTree(t, dir))
	sameTree(t, storeBefore, readTree(t, mnt))
}

// TestFullStoreFault: with the store's file system full, post-flight fails with a store error of
// kind full (exit 3) and the store's record is the previous one byte for byte.
func TestFullStoreFault(t *testing.T) {
	mnt := t.TempDir()
	mountOrSkip(t, "tmpfs", mnt, "tmpfs", 0, "size=256k")
	t.Setenv(store.EnvStateDir, filepath.Join(mnt, "state"))
	root, opts := newTaskRepo(t)
	heldWork(t, root)
	storeBefore := readTree(t, filepath.Join(mnt, "state"))
	f, _ := os.Create(filepath.Join(mnt, "filler"))
	_, _ = f.Write(make([]byte, 512<<10))
	f.Close()
	res, err := Run(context.Background(), Options{Git: opts.Git, SpecArg: taskSpec, Mode: ModePostOnly, Now: fixedNow})
	if !errors.Is(err, store.ErrFull) || res.Outcome != OutcomeError {
		t.Fatalf("%s, %v", res.Outcome, err)
	}
	sameTree(t, storeBefore, readTree(t, filepath.Join(mnt, "state")))
}

// TestTaskFolderSwapRace (trust-model.md I4): a goroutine swaps the task folder for a symlink to
// another directory in a loop while post-flights run; nothing is ever written there, and every
// failed run is an error (operational, or a usage error when the swap is seen at resolution).
func TestTaskFolderSwapRace(t *testing.T) {
	if testing.Short() {
		t.Skip("races a goroutine for a few seconds")
	}
	root, opts := newTaskRepo(t)
	heldWork(t, root)
	outside := t.TempDir()
	task := filepath.Join(root, ".mastermind/tasks/020-cache")
	real := task + ".real"
	stop := make(chan struct{})
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if os.Rename(task, real) != nil {
				continue
			}
			_ = os.Symlink(outside, task)
			swaps.Add(1)
			time.Sleep(time.Duration(swaps.Load()%5) * 100 * time.Microsecond)
			_ = os.Remove(task)
			_ = os.Rename(real, task)
			time.Sleep(time.Duration(swaps.Load()%7) * time.Millisecond)
		}
	}()
	var halted sync.Once
	halt := func() { halted.Do(func() { close(stop); wg.Wait() }) }
	t.Cleanup(halt)
	var failed, passed int
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		res, err := Run(context.Background(), Options{Git: opts.Git, SpecArg: taskSpec, Mode: ModePostOnly, Now: fixedNow})
		switch {
		case err == nil:
			passed++
		case res.Outcome == OutcomeError:
			// A usage error (the swap seen while resolving the spec path) or an operational one.
			failed++
		default:
			t.Fatalf("%s: %v", res.Outcome, err)
		}
	}
	halt()
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("written outside the task folder: %v", entries)
	}
	t.Logf("%d swaps, %d runs completed, %d failed", swaps.Load(), passed, failed)
	if failed == 0 {
		t.Fatal("no run met a swap: the race did not happen")
	}
	if res := run(t, opts, ModePostOnly); res.Outcome != OutcomePostHeld {
		t.Fatalf("after the race: %s %v %+v", res.Outcome, res.Repeated, res.Findings)
	}
}

// TestSaveAuditFailureLeavesRecords: a render that fails part way leaves audit.md, the store's
// record and copies as they were, and no temporary file in the task folder or the store; a
// successful save writes audit.md, its copy and its hash at once.
func TestSaveAuditFailureLeavesRecords(t *testing.T) {
	root, opts := newTaskRepo(t)
	heldWork(t, root)
	run(t, opts, ModePostOnly)
	audit := readFile(t, root, auditRel)
	tf := loadTaskFiles(t, opts)
	defer tf.close()
	listing := func() []string {
		var out []string
		for _, dir := range []string{filepath.Dir(filepath.Join(root, auditRel)), tf.storePath, filepath.Join(tf.storePath, "mirrors")} {
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				out = append(out, dir+"/"+e.Name())
			}
		}
		return out
	}
	before, recBefore := listing(), tf.rec.Mirrors[mirrorAudit]
	boom := errors.New("render failed")
	_, err := tf.saveAudit(func(w io.Writer) error {
		if _, err := w.Write(bytes.Repeat([]byte("partial audit\n"), 10000)); err != nil {
			return err
		}
		return boom
	}, nil, fixedNow())
	if !errors.Is(err, boom) {
		t.Fatalf("saveAudit = %v", err)
	}
	if !bytes.Equal(readFile(t, root, auditRel), audit) || tf.rec.Mirrors[mirrorAudit].SHA256 != recBefore.SHA256 {
		t.Fatal("a failed save changed audit.md or the record")
	}
	if after := listing(); !slices.Equal(after, before) {
		t.Fatalf("a failed save left files:\n%v\nwant\n%v", after, before)
	}
	h, err := tf.saveAudit(func(w io.Writer) error { _, err := io.WriteString(w, "new audit\n"); return err }, nil, fixedNow())
	if err != nil {
		t.Fatal(err)
	}
	if string(readFile(t, root, auditRel)) != "new audit\n" || h != fsx.SHA256Hex([]byte("new audit\n")) || tf.rec.Mirrors[mirrorAudit].SHA256 != h {
		t.Fatalf("save: hash %s, record %+v", h, tf.rec.Mirrors[mirrorAudit])
	}
	if got, err := tf.st.Copy(h); err != nil || string(got) != "new audit\n" {
		t.Fatalf("store copy %q, %v", got, err)
	}
}
