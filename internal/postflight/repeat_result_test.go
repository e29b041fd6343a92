package postflight

import (
	"os"
	"path/filepath"
	"testing"
)

// editRecord changes the task's store record as edit does and saves it.
func editRecord(t *testing.T, opts Options, edit func(tf *taskFiles)) {
	t.Helper()
	tf := loadTaskFiles(t, opts)
	defer tf.close()
	edit(tf)
	if err := tf.st.Save(tf.rec, fixedNow()); err != nil {
		t.Fatal(err)
	}
}

// loadTaskFiles opens the task files of opts' task, holding its lock until the caller closes
// them, and loads its record.
func loadTaskFiles(t *testing.T, opts Options) *taskFiles {
	t.Helper()
	task, err := ResolveTask(opts.Git.Root(), opts.SpecArg)
	if err != nil {
		t.Fatal(err)
	}
	gitDir, err := opts.Git.GitDir()
	if err != nil {
		t.Fatal(err)
	}
	tf, err := openTaskFiles(task, opts.StateDir, gitDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tf.load(fixedNow()); err != nil {
		tf.close()
		t.Fatal(err)
	}
	return tf
}

// TestRepeatWithoutStoredResult: a record from before the audit result was kept (no
// Record.Result) is never repeated from audit.md: the unchanged inputs are audited again, the
// blocking streak does not count that re-audit, and the result it stores makes the next
// post-flight a read.
func TestRepeatWithoutStoredResult(t *testing.T) {
	root, opts := newTaskRepo(t)
	driftWith(t, root, "x.txt")
	first := run(t, opts, ModePostOnly)
	if first.Outcome != OutcomePostDrift || first.State.BlockingStreak != 1 {
		t.Fatalf("first: %s streak %d", first.Outcome, first.State.BlockingStreak)
	}
	editRecord(t, opts, func(tf *taskFiles) { tf.rec.Result = nil })
	res := run(t, opts, ModePostOnly)
	if res.Repeated || res.Outcome != OutcomePostDrift || res.State.BlockingStreak != 1 {
		t.Fatalf("old record: repeated %v %s streak %d", res.Repeated, res.Outcome, res.State.BlockingStreak)
	}
	if res = run(t, opts, ModePostOnly); !res.Repeated || res.Outcome != OutcomePostDrift || res.AuditSummary != first.AuditSummary {
		t.Fatalf("then: repeated %v %s", res.Repeated, res.Outcome)
	}
}

// TestRepeatNeedsItsStoredResult: a result copy changed in the store, or one that names
// another audit.md, is not read: the post-flight audits again.
func TestRepeatNeedsItsStoredResult(t *testing.T) {
	root, opts := newTaskRepo(t)
	driftWith(t, root, "x.txt")
	run(t, opts, ModePostOnly)
	var copyPath string
	editRecord(t, opts, func(tf *taskFiles) { copyPath = filepath.Join(tf.storePath, "mirrors", tf.rec.Result.SHA256) })
	data, err := os.ReadFile(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyPath, append(data, ' '), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := run(t, opts, ModePostOnly); res.Repeated || res.Outcome != OutcomePostDrift {
		t.Fatalf("forged copy: repeated %v %s", res.Repeated, res.Outcome)
	}
	editRecord(t, opts, func(tf *taskFiles) { tf.rec.Result.AuditSHA256 = tf.rec.Result.SHA256 })
	if res := run(t, opts, ModePostOnly); res.Repeated || res.Outcome != OutcomePostDrift {
		t.Fatalf("result of another audit.md: repeated %v %s", res.Repeated, res.Outcome)
	}
	if res := run(t, opts, ModePostOnly); !res.Repeated {
		t.Fatalf("then: not repeated: %s", res.Message)
	}
}
