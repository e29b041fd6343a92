package fsx

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Fault tests (docs/hardening.md, "Faults and concurrency") for WriteFileAtomic: SIGKILL during a
// write, the temporary files a kill leaves, and a full disk.

// version n of the test file: 256 KiB of one repeated line, so a torn write is visible.
func version(n int) []byte {
	return bytes.Repeat([]byte(fmt.Sprintf("version %06d\n", n)), 256<<10/15)
}

// wholeVersion reports whether data is exactly one complete version.
func wholeVersion(data []byte) bool {
	var n int
	if _, err := fmt.Sscanf(string(data), "version %06d\n", &n); err != nil {
		return false
	}
	return bytes.Equal(data, version(n))
}

// TestHelperAtomicWriter is the child of TestKillDuringWriteFault: it rewrites the file over and
// over until it is killed. It does nothing in a normal run.
func TestHelperAtomicWriter(t *testing.T) {
	path := os.Getenv("FSX_KILL_PATH")
	if path == "" {
		t.Skip("helper process only")
	}
	for i := 1; ; i++ {
		if err := WriteFileAtomic(path, version(i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKillDuringWriteFault kills a process that keeps rewriting one file with SIGKILL after a
// random 0–50 ms: the file is always one whole version (never empty, torn or mixed), the only
// strays are renameio temporary files beside it, and the next write succeeds over them.
func TestKillDuringWriteFault(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := WriteFileAtomic(path, version(0), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		killHelper(t, "^TestHelperAtomicWriter$", "FSX_KILL_PATH="+path)
		data, err := os.ReadFile(path)
		if err != nil || !wholeVersion(data) {
			t.Fatalf("kill %d: the file is not one whole version (%d bytes, err %v)", i, len(data), err)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() != "state.json" && !strings.HasPrefix(e.Name(), ".state.json") {
				t.Fatalf("kill %d: unexpected file %s", i, e.Name())
			}
		}
		if err := WriteFileAtomic(path, version(1000+i), 0o644); err != nil {
			t.Fatalf("kill %d: the write after the kill failed: %v", i, err)
		}
	}
}

// killHelper starts this test binary running only the helper test named by run, with env added,
// and kills it with SIGKILL after a random 0–50 ms.
func killHelper(t *testing.T, run string, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run="+run, "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Duration(rand.IntN(51)) * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
}

// TestFullDiskWriteFault: on a full tmpfs WriteFileAtomic fails with ENOSPC, leaves the old file
// byte for byte and removes its temporary file. Needs root and mount(2); skips otherwise.
func TestFullDiskWriteFault(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("mounting a tmpfs is not permitted here (%v); run as root to test a full disk", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	path := filepath.Join(dir, "audit.md")
	old := []byte("old complete version\n")
	if err := WriteFileAtomic(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create(filepath.Join(dir, "filler"))
	_, _ = f.Write(make([]byte, 128<<10)) // ENOSPC once the 64 KiB are used
	f.Close()
	err := WriteFileAtomic(path, bytes.Repeat([]byte("new\n"), 4096), 0o644)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want ENOSPC", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
		t.Fatalf("the old file changed: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("a temporary file was left: %v", entries)
	}
}

// TestWriteDirSyncFault: the directory is synced after the rename, and a failing sync is
// reported although the file already holds the new bytes.
func TestWriteDirSyncFault(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	var synced []string
	orig := syncDir
	t.Cleanup(func() { syncDir = orig })
	syncDir = func(d string) error { synced = append(synced, d); return orig(d) }
	if err := WriteFileAtomic(path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomicMode(path, []byte("two"), 0o755); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 2 || synced[0] != dir || synced[1] != dir {
		t.Fatalf("synced directories = %q, want %q twice", synced, dir)
	}
	eio := errors.New("injected EIO")
	syncDir = func(string) error { return eio }
	if err := WriteFileAtomic(path, []byte("three"), 0o644); !errors.Is(err, eio) {
		t.Fatalf("WriteFileAtomic with a failing directory sync = %v, want the sync error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "three" {
		t.Fatalf("file = %q after the failed sync, want the new bytes", got)
	}
	if err := orig(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("syncing a missing directory succeeded")
	}
}
