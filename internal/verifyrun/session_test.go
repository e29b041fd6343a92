//go:build !windows

package verifyrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/spec"
)

// counterCmd appends a line to file each time it runs and prints how often it has run.
func counterCmd(file string) string {
	return "echo run >> " + file + "; wc -l < " + file
}

func runCount(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

func TestRunAllReusesTheSetOfTheSameFingerprint(t *testing.T) {
	dir := t.TempDir()
	st := DirStore{Dir: filepath.Join(t.TempDir(), "receipts")}
	c1, c2 := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	plan := []spec.DeclaredCommand{{Cmd: counterCmd(c1), Timeout: time.Minute}, {Cmd: counterCmd(c2) + "; exit 3"}}
	ctx := context.Background()
	rs, reused, err := RunAll(ctx, plan, "fp-a", false, st, Options{Dir: dir})
	if err != nil || reused || len(rs) != 2 || rs[0].ExitCode != 0 || rs[1].ExitCode != 3 || rs[1].InputsFingerprint != "fp-a" {
		t.Fatalf("first: %v %v %+v", err, reused, rs)
	}
	// The full outputs are stored beside the receipts, and their hashes match.
	for i, r := range rs {
		log, err := os.ReadFile(st.logPath(i + 1))
		sum := sha256.Sum256(log)
		if err != nil || hex.EncodeToString(sum[:]) != r.OutputSHA256 || int64(len(log)) != r.OutputBytes {
			t.Errorf("run %d: log %q (%v) does not match its receipt", i+1, log, err)
		}
	}
	again, reused, err := RunAll(ctx, plan, "fp-a", false, st, Options{Dir: dir})
	if err != nil || !reused || len(again) != 2 || again[1].ExitCode != 3 || again[0].OutputSHA256 != rs[0].OutputSHA256 {
		t.Fatalf("repeat: %v %v %+v", err, reused, again)
	}
	if runCount(t, c1) != 1 || runCount(t, c2) != 1 {
		t.Fatalf("a repeated post-flight ran the commands again: %d, %d", runCount(t, c1), runCount(t, c2))
	}
	// --rerun-verify, other inputs, or another plan run again.
	if _, reused, err = RunAll(ctx, plan, "fp-a", true, st, Options{Dir: dir}); err != nil || reused {
		t.Fatalf("rerun: %v %v", err, reused)
	}
	if _, reused, err = RunAll(ctx, plan, "fp-b", false, st, Options{Dir: dir}); err != nil || reused {
		t.Fatalf("other inputs: %v %v", err, reused)
	}
	longer := []spec.DeclaredCommand{plan[0], {Cmd: plan[1].Cmd, Timeout: time.Hour}}
	if _, reused, err = RunAll(ctx, longer, "fp-b", false, st, Options{Dir: dir}); err != nil || reused {
		t.Fatalf("other plan: %v %v", err, reused)
	}
	if runCount(t, c1) != 4 {
		t.Errorf("runs: %d", runCount(t, c1))
	}
	// A shorter set replaces a longer one completely.
	if _, _, err = RunAll(ctx, plan[:1], "fp-c", false, st, Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.receiptPath(2)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the second receipt of the earlier set is still there: %v", err)
	}
	if got, ok, err := st.Load("fp-c"); err != nil || !ok || len(got) != 1 {
		t.Errorf("load: %v %v %d", err, ok, len(got))
	}
}

func TestDamagedReceiptsAreRunAgain(t *testing.T) {
	dir := t.TempDir()
	st := DirStore{Dir: filepath.Join(t.TempDir(), "receipts")}
	c := filepath.Join(dir, "count")
	plan := []spec.DeclaredCommand{{Cmd: counterCmd(c)}}
	ctx := context.Background()
	if _, _, err := RunAll(ctx, plan, "fp", false, st, Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	for _, damage := range []string{`{"schema_version":1,"cmd":"x","extra":1}`, `not json`, `{"schema_version":2}`} {
		if err := os.WriteFile(st.receiptPath(1), []byte(damage), 0o600); err != nil {
			t.Fatal(err)
		}
		before := runCount(t, c)
		if _, reused, err := RunAll(ctx, plan, "fp", false, st, Options{Dir: dir}); err != nil || reused || runCount(t, c) != before+1 {
			t.Errorf("%s: reused %v, err %v", damage, reused, err)
		}
	}
	// A forged receipt with the right fingerprint but another command is not this plan's.
	rs, _, _ := st.Load("fp")
	rs[0].Cmd = "true"
	if err := st.Save("fp", rs); err != nil {
		t.Fatal(err)
	}
	if _, reused, _ := RunAll(ctx, plan, "fp", false, st, Options{Dir: dir}); reused {
		t.Error("a receipt of another command was reused")
	}
	// A FIFO in place of a receipt is not opened and not a receipt.
	os.Remove(st.receiptPath(1))
	if err := syscall.Mkfifo(st.receiptPath(1), 0o600); err != nil {
		t.Skip(err)
	}
	if _, ok, err := st.Load("fp"); ok || err != nil {
		t.Errorf("fifo: %v %v", ok, err)
	}
}

func TestCanceledSetIsNotSaved(t *testing.T) {
	dir := t.TempDir()
	st := DirStore{Dir: filepath.Join(t.TempDir(), "receipts")}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, _, err := RunAll(ctx, []spec.DeclaredCommand{{Cmd: "true"}, {Cmd: "sleep 30"}}, "fp", false, st, Options{Dir: dir})
	if !errors.Is(err, ErrCanceled) {
		t.Fatalf("err %v", err)
	}
	if _, ok, _ := st.Load("fp"); ok {
		t.Error("a canceled set was saved")
	}
}

func TestFingerprint(t *testing.T) {
	plan := []spec.DeclaredCommand{{Cmd: "go test ./..."}}
	ch := []PathState{{Path: "a.go", Status: "modified", Content: "file:1"}}
	base := Fingerprint("h", "b", ch, plan)
	variants := []string{
		Fingerprint("h2", "b", ch, plan),
		Fingerprint("h", "b2", ch, plan),
		Fingerprint("h", "b", []PathState{{Path: "a.go", Status: "modified", Content: "file:2"}}, plan),
		Fingerprint("h", "b", []PathState{{Path: "a.go", Status: "added", Content: "file:1"}}, plan),
		Fingerprint("h", "b", nil, plan),
		Fingerprint("h", "b", ch, []spec.DeclaredCommand{{Cmd: "go test ./...", Timeout: time.Hour}}),
		Fingerprint("h", "b", ch, []spec.DeclaredCommand{{Cmd: "go test ./... "}}),
		Fingerprint("h", "b", []PathState{{Path: "a.go", Status: "modifiedfile:1"}}, plan),
	}
	for i, v := range variants {
		if v == base || len(v) != 64 {
			t.Errorf("variant %d: %s", i, v)
		}
	}
	// The default timeout and an explicit 10m are the same plan.
	if Fingerprint("h", "b", ch, []spec.DeclaredCommand{{Cmd: "go test ./...", Timeout: spec.DefaultVerifyTimeout}}) != base {
		t.Error("default timeout differs from 10m")
	}
}

// TestWorktreeContent: the receipts read fsx.ContentID's ids, and a path behind a symlinked
// directory or one that cannot be read is never stable, so no receipt is reused for it.
func TestWorktreeContent(t *testing.T) {
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(root, "f"), []byte("x"), 0o644))
	sum := sha256.Sum256([]byte("x"))
	if got, want := WorktreeContent(root, "f"), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("f: got %q, want %q", got, want)
	}
	outside := t.TempDir()
	must(os.WriteFile(filepath.Join(outside, "g"), []byte("x"), 0o644))
	must(os.Symlink(outside, filepath.Join(root, "out")))
	if got := WorktreeContent(root, "out/g"); fsx.ContentStable(got) {
		t.Errorf("out/g behind a symlinked directory: got stable %q", got)
	}
	// A path out of the root cannot be read: an error id, not a failure.
	if got := WorktreeContent(root, "../f"); !strings.HasPrefix(got, "error:") || fsx.ContentStable(got) {
		t.Errorf("../f: got %q, want an unstable error id", got)
	}
	// The execute bit is content: a script a test runs fails when it loses it.
	x := WorktreeContent(root, "f")
	must(os.Chmod(filepath.Join(root, "f"), 0o755))
	if got := WorktreeContent(root, "f"); got == x || !fsx.ContentStable(got) {
		t.Errorf("executable f: got %q", got)
	}
	must(os.Chmod(filepath.Join(root, "f"), 0o644))
	before := StateMap([]PathState{{Path: "f", Status: "modified", Content: WorktreeContent(root, "f")}})
	must(os.WriteFile(filepath.Join(root, "f"), []byte("y"), 0o644))
	after := StateMap([]PathState{{Path: "f", Status: "modified", Content: WorktreeContent(root, "f")}})
	if got := ModifiedPaths(before, after); len(got) != 1 || got[0] != "f" {
		t.Errorf("a rewritten modified file is not detected: %v", got)
	}
}
