//go:build linux

package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Fault tests (docs/hardening.md, "Faults and concurrency") for the store: SIGKILL during every
// store write, a second controller, a read-only and a full store.

// payload n: 128 KiB of one repeated line, so that a torn or mixed write is visible.
func payload(n int) []byte {
	return bytes.Repeat([]byte(fmt.Sprintf("version %06d\n", n)), 128<<10/15)
}

func wholePayload(data []byte) (int, bool) {
	var n int
	if _, err := fmt.Sscanf(string(data), "version %06d\n", &n); err != nil {
		return 0, false
	}
	return n, bytes.Equal(data, payload(n))
}

// faultRecord is version n of a record: the state carries the payload, so a torn record fails.
func faultRecord(n int, audit []byte) *Record {
	st, _ := json.Marshal(map[string]string{"payload": string(payload(n))})
	r := &Record{State: st, TaskDir: "/nowhere"}
	r.SetMirror("audit.md", audit)
	return r
}

// helperTask opens the task the fault helpers share: store root and repository from the
// environment.
func helperTask(t *testing.T) *Task {
	_, tk := openFaultTask(t, os.Getenv("STORE_KILL_ROOT"), os.Getenv("STORE_KILL_GITDIR"))
	return tk
}

// openFaultTask opens the store at root and task 001-a of the repository whose git directory is
// gitDir (work tree its parent); both are closed when the test ends.
func openFaultTask(t *testing.T, root, gitDir string) (*Store, *Task) {
	t.Helper()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	tk, err := s.OpenTask(RepoRef{GitDir: gitDir, WorkTree: filepath.Dir(gitDir)}, "001-a")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return s, tk
}

// TestHelperStoreWriter is the child of TestKillDuringStoreWritesFault: it performs every kind
// of store write over and over (mirror copy, record, snapshot blobs) until killed.
func TestHelperStoreWriter(t *testing.T) {
	if os.Getenv("STORE_KILL_ROOT") == "" {
		t.Skip("helper process only")
	}
	tk := helperTask(t)
	r, err := tk.Load()
	if err != nil || r == nil {
		t.Fatal("helper: no record", err)
	}
	for i := 1; ; i++ {
		audit := payload(100000 + i)
		if _, err := tk.KeepCopy(audit); err != nil {
			t.Fatal(err)
		}
		st, _ := json.Marshal(map[string]string{"payload": string(payload(i))})
		r.State = st
		r.SetMirror("audit.md", audit)
		if err := tk.Save(r, time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := tk.Put("index.snapshot", bytes.NewReader(payload(i))); err != nil {
			t.Fatal(err)
		}
		if err := tk.Put("sub/0123456789abcdef/index.snapshot", bytes.NewReader(payload(i))); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			fmt.Println("wrote")
		}
	}
}

// TestHelperStoreHolder holds the task's store lock until killed (TestTwoControllersFault).
func TestHelperStoreHolder(t *testing.T) {
	if os.Getenv("STORE_KILL_ROOT") == "" {
		t.Skip("helper process only")
	}
	tk := helperTask(t)
	if _, err := tk.Lock(); err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	time.Sleep(time.Minute)
}

func faultEnv(t *testing.T) (root, gitDir string) {
	dir := t.TempDir()
	gitDir = filepath.Join(dir, "repo", ".git")
	if err := os.MkdirAll(gitDir, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "state"), gitDir
}

func helperCmd(run, root, gitDir string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^"+run+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "STORE_KILL_ROOT="+root, "STORE_KILL_GITDIR="+gitDir)
	return cmd
}

// TestKillDuringStoreWritesFault kills a process that keeps writing the record, a mirror copy,
// two snapshot blobs (one nested) with SIGKILL a random 0–50 ms after its first whole round of
// writes, 12 times: the record
// always loads (never torn or mixed), its state is one whole version, the mirror copy it names
// exists and matches its hash, each snapshot is one whole version, and the next writes succeed
// over whatever temporary files the kill left.
func TestKillDuringStoreWritesFault(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	root, gitDir := faultEnv(t)
	_, tk := openFaultTask(t, root, gitDir)
	audit := payload(100000)
	if _, err := tk.KeepCopy(audit); err != nil {
		t.Fatal(err)
	}
	if err := tk.Save(faultRecord(0, audit), time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.snapshot", "sub/0123456789abcdef/index.snapshot"} {
		if err := tk.Put(name, bytes.NewReader(payload(0))); err != nil {
			t.Fatal(err)
		}
	}
	progressed := 0
	for i := 0; i < 12; i++ {
		cmd := helperCmd("TestHelperStoreWriter", root, gitDir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The kill waits for the helper's first round of writes, so a loaded machine that is
		// slow to start the helper cannot make every kill land before anything was written.
		if !waitLine(out, "wrote") {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("kill %d: the helper ended before its first write", i)
		}
		time.Sleep(time.Duration(rand.IntN(51)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		r, err := tk.Load()
		if err != nil || r == nil {
			t.Fatalf("kill %d: the record does not load: %v", i, err)
		}
		var st map[string]string
		if err := json.Unmarshal(r.State, &st); err != nil {
			t.Fatalf("kill %d: state: %v", i, err)
		}
		v, ok := wholePayload([]byte(st["payload"]))
		if !ok {
			t.Fatalf("kill %d: the state is not one whole version", i)
		}
		if v != 0 {
			progressed++
		}
		if _, err := tk.Copy(r.Mirrors["audit.md"].SHA256); err != nil {
			t.Fatalf("kill %d: the record names a mirror copy that is not there: %v", i, err)
		}
		for _, name := range []string{"index.snapshot", "sub/0123456789abcdef/index.snapshot"} {
			rc, err := tk.Open(name)
			if err != nil {
				t.Fatalf("kill %d: %s: %v", i, name, err)
			}
			snap, err := io.ReadAll(rc)
			rc.Close()
			if _, ok := wholePayload(snap); err != nil || !ok {
				t.Fatalf("kill %d: %s is not one whole version (%v)", i, name, err)
			}
		}
		names, _ := os.ReadDir(tk.Path())
		for _, e := range names {
			n := e.Name()
			if !strings.HasPrefix(n, ".") && n != "state.json" && n != "lock" && n != "mirrors" && n != "snapshots" {
				t.Fatalf("kill %d: unexpected file %s", i, n)
			}
		}
		if _, err := tk.KeepCopy(audit); err != nil {
			t.Fatalf("kill %d: the write after the kill failed: %v", i, err)
		}
		if err := tk.Save(faultRecord(0, audit), time.Now()); err != nil {
			t.Fatalf("kill %d: the write after the kill failed: %v", i, err)
		}
	}
	t.Logf("%d of 12 kills came after the helper had written a new record", progressed)
	if progressed == 0 {
		t.Fatal("no kill came after a write: the helper never got going, so nothing was tested")
	}
}

// TestTwoControllersFault: while one process holds a task's store lock, a second gets ErrBusy at
// once (never waits); after the first is killed, the lock is free.
func TestTwoControllersFault(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	root, gitDir := faultEnv(t)
	cmd := helperCmd("TestHelperStoreHolder", root, gitDir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if !waitLine(out, "locked") {
		t.Fatal("helper: ended before it held the lock")
	}
	_, tk := openFaultTask(t, root, gitDir)
	start := time.Now()
	if _, err := tk.Lock(); !errors.Is(err, ErrBusy) {
		t.Fatalf("second controller: %v, want busy", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("the busy lock took %v; it must not wait", d)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	l, err := tk.Lock()
	if err != nil {
		t.Fatalf("after the holder died: %v", err)
	}
	l.Unlock()
}

// mountTmpfs mounts a tmpfs of size at a new directory, or skips when mount(2) is not permitted.
func mountTmpfs(t *testing.T, size string) string {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("mounting a tmpfs is not permitted here (%v); run as root to test a read-only or full store", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// TestReadOnlyStoreFault: on a store remounted read-only every write is ErrReadOnly with advice,
// the record still loads unchanged, and nothing was lost.
func TestReadOnlyStoreFault(t *testing.T) {
	dir := mountTmpfs(t, "4m")
	_, gitDir := faultEnv(t)
	root := filepath.Join(dir, "state")
	s, tk := openFaultTask(t, root, gitDir)
	audit := []byte("audit v1")
	if err := tk.Save(faultRecord(1, audit), time.Now()); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(tk.Path(), "state.json"))
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("remount read-only: %v", err)
	}
	for name, write := range map[string]func() error{
		"Save":     func() error { return tk.Save(faultRecord(2, audit), time.Now()) },
		"KeepCopy": func() error { _, err := tk.KeepCopy([]byte("audit v2")); return err },
		"Put":      func() error { return tk.Put("index.snapshot", strings.NewReader("x")) },
		"OpenTask": func() error {
			_, err := s.OpenTask(RepoRef{GitDir: gitDir, WorkTree: filepath.Dir(gitDir)}, "002-b")
			return err
		},
	} {
		err := write()
		if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "not writable") {
			t.Errorf("%s on a read-only store: %v", name, err)
		}
	}
	after, _ := os.ReadFile(filepath.Join(tk.Path(), "state.json"))
	if !bytes.Equal(before, after) {
		t.Fatal("the record changed")
	}
	if r, err := tk.Load(); err != nil || r == nil {
		t.Fatalf("Load on a read-only store: %v", err)
	}
}

// TestFullStoreFault: on a full store Save is ErrFull, the previous record is intact byte for
// byte, and no temporary file is left.
func TestFullStoreFault(t *testing.T) {
	dir := mountTmpfs(t, "256k")
	_, gitDir := faultEnv(t)
	_, tk := openFaultTask(t, filepath.Join(dir, "state"), gitDir)
	small := &Record{State: json.RawMessage(`{"v":1}`)}
	if err := tk.Save(small, time.Now()); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(tk.Path(), "state.json"))
	f, _ := os.Create(filepath.Join(dir, "filler"))
	_, _ = f.Write(make([]byte, 512<<10))
	f.Close()
	err := tk.Save(faultRecord(1, []byte("a")), time.Now())
	if !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "full") {
		t.Fatalf("Save on a full store: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(tk.Path(), "state.json"))
	if !bytes.Equal(before, after) {
		t.Fatal("the previous record changed")
	}
	entries, _ := os.ReadDir(tk.Path())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Fatalf("a temporary file was left: %s", e.Name())
		}
	}
}

// waitLine reads r until a line equal to want arrives (true) or r ends (false). The rest of r is
// drained in the background so the helper never blocks on a full pipe.
func waitLine(r io.Reader, want string) bool {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if sc.Text() == want {
			go func() { _, _ = io.Copy(io.Discard, r) }()
			return true
		}
	}
	return false
}
