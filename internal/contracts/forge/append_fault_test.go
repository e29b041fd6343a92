package forge

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Fault tests (docs/hardening.md, "Faults and concurrency"): what the events writer does when
// the WAL or the lock path is not a regular file, and when a writer is killed with SIGKILL in the
// middle of an append.

// ingestWithin runs Ingest in a goroutine and fails the test if it has not returned after d: a
// planted FIFO must never hang the writer. d is a hang detector, not a performance bound.
func ingestWithin(t *testing.T, d time.Duration, root string) error {
	t.Helper()
	done := make(chan error, 1)
	rep := validReport(t, `"fault"`)
	go func() {
		_, err := Ingest(root, "run-1", "a", rep, fixedNow)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("Ingest did not return within %v (hung)", d)
		return nil
	}
}

// plant replaces path with an entry of the given kind; it returns false when the kind cannot be
// made here (mknod needs root).
func plant(t *testing.T, path, kind, outside string) bool {
	t.Helper()
	var err error
	switch kind {
	case "fifo":
		err = syscall.Mkfifo(path, 0o644)
	case "symlink":
		err = os.Symlink(outside, path)
	case "symlink-to-dev-zero":
		err = os.Symlink("/dev/zero", path)
	case "dangling symlink":
		err = os.Symlink(outside+".absent", path)
	case "directory":
		err = os.Mkdir(path, 0o755)
	case "device":
		if err = syscall.Mknod(path, syscall.S_IFCHR|0o644, 1<<8|3); errors.Is(err, syscall.EPERM) {
			return false
		}
	default:
		t.Fatalf("unknown kind %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

var plantKinds = []string{"fifo", "symlink", "symlink-to-dev-zero", "dangling symlink", "directory", "device"}

// TestWALNotRegularFault: a FIFO, device, directory or symlink at events.jsonl.wal is refused at
// once (before the fix a FIFO or a link to /dev/zero hung the ingest in os.ReadFile, and a link
// was read through). The log, the planted entry and the link target are left as they were.
func TestWALNotRegularFault(t *testing.T) {
	for _, kind := range plantKinds {
		t.Run(kind, func(t *testing.T) {
			root, dir, before := seedLog(t)
			outside := filepath.Join(t.TempDir(), "target")
			os.WriteFile(outside, []byte("outside\n"), 0o644)
			wal := filepath.Join(dir, WALFile)
			if !plant(t, wal, kind, outside) {
				t.Skip("mknod is not permitted here")
			}
			err := ingestWithin(t, 10*time.Second, root)
			var we *WALError
			if !errors.As(err, &we) {
				t.Fatalf("err = %v, want a *WALError", err)
			}
			if !bytes.Equal(readEvents(t, root, "run-1"), before) {
				t.Fatal("the log changed")
			}
			if _, err := os.Lstat(wal); err != nil {
				t.Fatalf("the planted %s was removed: %v", kind, err)
			}
			if got, _ := os.ReadFile(outside); string(got) != "outside\n" {
				t.Fatalf("link target changed: %q", got)
			}
			if _, err := os.Lstat(outside + ".absent"); err == nil {
				t.Fatal("the dangling link's target was created")
			}
			if _, err := os.Lstat(filepath.Join(dir, LockFile)); err == nil {
				t.Fatal("the events lock was left behind")
			}
		})
	}
}

// TestLockNotRegularFault: a symlink, directory, FIFO or device at events.jsonl.lock is refused
// at once with a *LockPathError, even when it is old enough to look stale. Before the fix it was
// waited on for the whole lock timeout with the message "(… held)", and after 10 s it was
// unlinked as a stale lock (an empty directory included).
func TestLockNotRegularFault(t *testing.T) {
	for _, kind := range plantKinds {
		for _, age := range []time.Duration{0, 20 * time.Second} {
			t.Run(fmt.Sprintf("%s age %v", kind, age), func(t *testing.T) {
				root, dir, before := seedLog(t)
				outside := filepath.Join(t.TempDir(), "target")
				os.WriteFile(outside, []byte("outside\n"), 0o644)
				lock := filepath.Join(dir, LockFile)
				if !plant(t, lock, kind, outside) {
					t.Skip("mknod is not permitted here")
				}
				if age > 0 {
					old := time.Now().Add(-age)
					ts := []unix.Timespec{unix.NsecToTimespec(old.UnixNano()), unix.NsecToTimespec(old.UnixNano())}
					if err := unix.UtimesNanoAt(unix.AT_FDCWD, lock, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
						t.Fatal(err)
					}
				}
				t.Setenv(LockTimeoutEnv, "30000")
				err := ingestWithin(t, 10*time.Second, root)
				var le *LockPathError
				if !errors.As(err, &le) {
					t.Fatalf("err = %v, want a *LockPathError", err)
				}
				if !bytes.Equal(readEvents(t, root, "run-1"), before) {
					t.Fatal("the log changed")
				}
				if _, err := os.Lstat(lock); err != nil {
					t.Fatalf("the planted %s was removed: %v", kind, err)
				}
				if got, _ := os.ReadFile(outside); string(got) != "outside\n" {
					t.Fatalf("link target changed: %q", got)
				}
			})
		}
	}
}

// TestHelperForgeKillProcess is the child of TestKillDuringAppendFault: it ingests into one run
// until it is killed. It does nothing in a normal run.
func TestHelperForgeKillProcess(t *testing.T) {
	root := os.Getenv("FORGE_KILL_ROOT")
	if root == "" {
		t.Skip("helper process only")
	}
	for i := 0; i < 10000; i++ {
		if _, err := Ingest(root, "run-1", "killed", validReport(t, fmt.Sprintf(`"k%d"`, i)), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// faultIterations is FAULT_ITERATIONS when set (scripts/faults/kill9.sh raises it), else def.
func faultIterations(def int) int {
	if n, err := strconv.Atoi(os.Getenv("FAULT_ITERATIONS")); err == nil && n > 0 {
		return n
	}
	return def
}

// TestKillDuringAppendFault kills an ingesting process with SIGKILL at a random delay of 0–50 ms,
// then ingests again in this process: the log must verify, hold only whole two-line ingests
// (agent_output directly followed by its evidence), and a leftover WAL or lock must never break
// the next ingest. A lock left by the killed process is aged past the 10 s stale limit (its pid
// is dead) so that the takeover runs now instead of after 10 s.
func TestKillDuringAppendFault(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	root := t.TempDir()
	dir := filepath.Join(root, ".claude", "forge-runs", "run-1")
	iters := faultIterations(6)
	var wals, locks int
	for i := 0; i < iters; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperForgeKillProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "FORGE_KILL_ROOT="+root)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(51)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		if _, err := os.Lstat(filepath.Join(dir, WALFile)); err == nil {
			wals++
		}
		if lock := filepath.Join(dir, LockFile); fileExists(lock) {
			locks++
			old := time.Now().Add(-20 * time.Second)
			os.Chtimes(lock, old, old)
		}
		if _, err := Ingest(root, "run-1", "after", validReport(t, `"after"`), time.Now()); err != nil {
			t.Fatalf("iteration %d: the ingest after the kill failed: %v", i, err)
		}
		data := readEvents(t, root, "run-1")
		tail, err := VerifyLog(data, "run-1")
		if err != nil {
			t.Fatalf("iteration %d: %v", i, err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if len(lines)%2 != 0 || tail.Chained != len(lines) {
			t.Fatalf("iteration %d: %d lines, %d chained: a half-written ingest", i, len(lines), tail.Chained)
		}
		for j := 0; j < len(lines); j += 2 {
			a, b := mustObject(t, lines[j]), mustObject(t, lines[j+1])
			if a.vals["event_type"] != EventAgentOutput || b.vals["event_type"] != EventEvidenceAdded {
				t.Fatalf("iteration %d: lines %d-%d are not one ingest's pair", i, j+1, j+2)
			}
		}
		for _, name := range []string{WALFile, LockFile} {
			if fileExists(filepath.Join(dir, name)) {
				t.Fatalf("iteration %d: %s left behind by a completed ingest", i, name)
			}
		}
	}
	t.Logf("%d kills: %d left a WAL to recover, %d left a lock to take over", iters, wals, locks)
}

func fileExists(p string) bool { _, err := os.Lstat(p); return err == nil }
