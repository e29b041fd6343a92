//go:build unix

package fsx

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestOpenDirRefusesLinks(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "a", "b"), 0o755))
	must(t, os.Symlink(outside, filepath.Join(root, "a", "ln")))
	must(t, os.WriteFile(filepath.Join(root, "a", "f"), []byte("x"), 0o644))

	d, err := OpenDir(root, "a/b")
	must(t, err)
	defer d.Close()
	if d.Path() != filepath.Join(root, "a", "b") {
		t.Fatalf("Path = %s", d.Path())
	}
	for _, tt := range []struct {
		rel    string
		reason Reason
	}{
		{"a/ln", ReasonSymlink},
		{"a/ln/x", ReasonSymlinkedAncestor},
		{"a/missing", ReasonMissing},
		{"a/f", ReasonNotRegular},
		{"a/../a", ReasonOutsideRoot},
		{"/etc", ReasonOutsideRoot},
	} {
		if _, err := OpenDir(root, tt.rel); ReasonOf(err) != tt.reason {
			t.Errorf("OpenDir(%s) = %v, want reason %s", tt.rel, err, tt.reason)
		}
	}
	for _, name := range []string{"", ".", "..", "x/y"} {
		if err := d.WriteFileAtomic(name, nil, 0o644); ReasonOf(err) != ReasonOutsideRoot {
			t.Errorf("WriteFileAtomic(%q) = %v", name, err)
		}
	}
}

func TestDirReadWrite(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	d, err := OpenDir(root, "")
	must(t, err)
	defer d.Close()
	must(t, d.WriteFileAtomic("state.json", []byte("1"), 0o644))
	must(t, os.Chmod(filepath.Join(root, "state.json"), 0o600))
	must(t, d.WriteFileAtomic("state.json", []byte("2"), 0o644))
	if b, err := d.ReadFile("state.json", 10); err != nil || string(b) != "2" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if fi, _ := os.Stat(filepath.Join(root, "state.json")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("a replaced file keeps its mode: %v", fi.Mode())
	}
	must(t, d.WriteFileAtomicMode("hook", []byte("#!/bin/sh\n"), 0o755))
	if fi, _ := os.Stat(filepath.Join(root, "hook")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("WriteFileAtomicMode: %v", fi.Mode())
	}
	// A symlink at the target, dangling or not, is refused and its target never created.
	must(t, os.Symlink(filepath.Join(outside, "x"), filepath.Join(root, "audit.md")))
	if err := d.WriteFileAtomic("audit.md", []byte("x"), 0o644); ReasonOf(err) != ReasonSymlink {
		t.Fatalf("write over a symlink: %v", err)
	}
	if _, err := d.ReadFile("audit.md", 10); ReasonOf(err) != ReasonSymlink {
		t.Fatalf("read through a symlink: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(outside, "x")); !os.IsNotExist(err) {
		t.Fatal("the symlink target was created")
	}
	must(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	done := make(chan error, 1)
	go func() { _, err := d.ReadFile("fifo", 10); done <- err }()
	select {
	case err := <-done:
		if ReasonOf(err) != ReasonNotRegular {
			t.Fatalf("read a FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile blocked on a FIFO")
	}
	if err := d.WriteFileAtomic("fifo", []byte("x"), 0o644); ReasonOf(err) != ReasonNotRegular {
		t.Fatalf("write over a FIFO: %v", err)
	}
	if _, err := d.TryLock("fifo"); ReasonOf(err) != ReasonNotRegular {
		t.Fatalf("lock a FIFO: %v", err)
	}
	if _, err := d.TryLock("audit.md"); ReasonOf(err) != ReasonSymlink {
		t.Fatalf("lock a symlink: %v", err)
	}
	var pe *PathError
	if _, err := d.OpenFile("fifo"); ReasonOf(err) != ReasonNotRegular || !errors.As(err, &pe) || pe.Path != filepath.Join(root, "fifo") {
		t.Fatalf("open a FIFO: %v", err)
	}
	if _, err := d.OpenFile("audit.md"); ReasonOf(err) != ReasonSymlink {
		t.Fatalf("open a symlink: %v", err)
	}
	if f, err := d.OpenFile("state.json"); err != nil {
		t.Fatalf("OpenFile: %v", err)
	} else if b, err := io.ReadAll(f); f.Close() != nil || err != nil || string(b) != "2" {
		t.Fatalf("OpenFile read %q, %v", b, err)
	}
	if _, err := d.ReadFile("absent", 10); ReasonOf(err) != ReasonMissing {
		t.Fatalf("absent: %v", err)
	}
	// Sub, MkdirSub, Lstat, Rename, Remove, Names.
	sub, err := d.MkdirSub("receipts", 0o700)
	must(t, err)
	must(t, sub.WriteFileAtomic("r1", []byte("x"), 0o600))
	sub.Close()
	if fi, err := d.Lstat("receipts"); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("Lstat(receipts) = %v, %v", fi, err)
	}
	if _, err := d.Sub("audit.md"); ReasonOf(err) != ReasonSymlink {
		t.Fatalf("Sub over a symlink: %v", err)
	}
	must(t, d.Rename("hook", "hook2"))
	must(t, d.Remove("hook2", false))
	must(t, d.Remove("hook2", false)) // missing is fine
	names, err := d.Names()
	must(t, err)
	if strings.Join(sortStrings(names), ",") != "audit.md,fifo,receipts,state.json" {
		t.Fatalf("Names = %v (temporary files left?)", names)
	}
}

func sortStrings(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

func TestDirTryLockExcludesPathLock(t *testing.T) {
	root := t.TempDir()
	d, err := OpenDir(root, "")
	must(t, err)
	defer d.Close()
	l, err := d.TryLock("state.controller.lock")
	must(t, err)
	if _, err := TryLock(filepath.Join(root, "state.controller.lock")); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("TryLock(path) while Dir.TryLock holds it: %v", err)
	}
	if _, err := d.TryLock("state.controller.lock"); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("second Dir.TryLock: %v", err)
	}
	must(t, l.Unlock())
	l2, err := TryLock(filepath.Join(root, "state.controller.lock"))
	must(t, err)
	if _, err := d.TryLock("state.controller.lock"); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("Dir.TryLock while TryLock(path) holds it: %v", err)
	}
	must(t, l2.Unlock())
}

func TestDirCheckDetectsSwap(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must(t, os.Mkdir(filepath.Join(root, "task"), 0o755))
	d, err := OpenDir(root, "task")
	must(t, err)
	defer d.Close()
	must(t, d.Check())
	must(t, os.Rename(filepath.Join(root, "task"), filepath.Join(root, "task.real")))
	must(t, os.Symlink(outside, filepath.Join(root, "task")))
	if err := d.Check(); ReasonOf(err) != ReasonReplaced || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Check after the swap: %v", err)
	}
	if err := d.WriteFileAtomic("state.json", []byte("x"), 0o644); ReasonOf(err) != ReasonReplaced {
		t.Fatalf("write after the swap: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("written outside: %v", entries)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "task.real")); len(entries) != 0 {
		t.Fatalf("a refused write left %v", entries)
	}
}

// swapLoop replaces root/task by a symlink to outside and back, as fast as it can, until stop is
// closed. It counts the swaps.
func swapLoop(t *testing.T, root, outside string, stop <-chan struct{}, swaps *atomic.Int64) {
	task, real := filepath.Join(root, "task"), filepath.Join(root, "task.real")
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
		time.Sleep(time.Duration(swaps.Load()%3) * time.Microsecond)
		_ = os.Remove(task)
		_ = os.Rename(real, task)
	}
}

// TestDirSymlinkSwapRace: a goroutine swaps the task folder for a symlink to another directory
// in a loop while the controller opens the folder and writes, reads and locks through it. Not one
// byte lands in the other directory; every failure is a typed refusal (replaced, symlink).
func TestDirSymlinkSwapRace(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must(t, os.Mkdir(filepath.Join(root, "task"), 0o755))
	stop := make(chan struct{})
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); swapLoop(t, root, outside, stop, &swaps) }()
	var once sync.Once
	halt := func() { once.Do(func() { close(stop); wg.Wait() }) }
	t.Cleanup(halt)
	var ok, refused int
	deadline := time.Now().Add(1500 * time.Millisecond)
	for i := 0; time.Now().Before(deadline) || swaps.Load() < 50; i++ {
		d, err := OpenDir(root, "task")
		if err != nil {
			r := ReasonOf(err)
			if r != ReasonSymlink && r != ReasonMissing && r != ReasonReplaced {
				t.Fatalf("OpenDir: %v", err)
			}
			refused++
			continue
		}
		for _, op := range []func() error{
			func() error { return d.WriteFileAtomic("state.json", []byte(fmt.Sprint(i)), 0o644) },
			func() error { _, err := d.ReadFile("state.json", 100); return err },
			func() error {
				l, err := d.TryLock("state.controller.lock")
				if err == nil {
					l.Unlock()
				}
				return err
			},
			func() error { return d.WriteFileAtomic("audit.md", []byte(fmt.Sprint(i)), 0o644) },
		} {
			switch err := op(); {
			case err == nil:
				ok++
			case ReasonOf(err) == ReasonReplaced || ReasonOf(err) == ReasonMissing:
				refused++
			default:
				t.Fatalf("iteration %d: %v", i, err)
			}
		}
		d.Close()
		if time.Now().After(deadline.Add(10 * time.Second)) {
			break
		}
	}
	halt()
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("written outside the task folder: %v", entries)
	}
	t.Logf("%d swaps, %d operations succeeded, %d refused", swaps.Load(), ok, refused)
	if refused == 0 {
		t.Fatalf("the swap loop never hit an operation (%d swaps): the test did not test anything", swaps.Load())
	}
}

// TestHelperDirWriter is the child of TestKillDuringDirWriteFault.
func TestHelperDirWriter(t *testing.T) {
	dir := os.Getenv("FSX_KILL_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	d, err := OpenDir(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; ; i++ {
		if err := d.WriteFileAtomic("state.json", version(i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKillDuringDirWriteFault is TestKillDuringWriteFault for Dir.WriteFileAtomic.
func TestKillDuringDirWriteFault(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	d, err := OpenDir(dir, "")
	must(t, err)
	defer d.Close()
	must(t, d.WriteFileAtomic("state.json", version(0), 0o644))
	for i := 0; i < 8; i++ {
		killHelper(t, "^TestHelperDirWriter$", "FSX_KILL_DIR="+dir)
		data, err := d.ReadFile("state.json", 1<<20)
		if err != nil || !wholeVersion(data) {
			t.Fatalf("kill %d: the file is not one whole version (%d bytes, err %v)", i, len(data), err)
		}
		names, _ := d.Names()
		for _, n := range names {
			if n != "state.json" && !strings.HasPrefix(n, ".state.json") {
				t.Fatalf("kill %d: unexpected file %s", i, n)
			}
		}
		must(t, d.WriteFileAtomic("state.json", version(1000+i), 0o644))
	}
}

// TestAtomicFile: the entry keeps its old content until Commit, Abort and a refused CommitAs
// leave no temporary file, a replaced file keeps its mode, and a symlink is refused up front.
func TestAtomicFile(t *testing.T) {
	root := t.TempDir()
	d, err := OpenDir(root, "")
	must(t, err)
	defer d.Close()
	p := filepath.Join(root, "audit.md")
	must(t, os.WriteFile(p, []byte("old"), 0o600))
	entries := func() int {
		ents, _ := os.ReadDir(root)
		return len(ents)
	}
	af, err := d.CreateAtomic("audit.md", 0o644)
	must(t, err)
	_, err = af.Write([]byte("new, streamed"))
	must(t, err)
	if b, _ := os.ReadFile(p); string(b) != "old" || entries() != 2 {
		t.Fatalf("before Commit: %q, %d entries", b, entries())
	}
	must(t, af.Commit())
	if b, _ := os.ReadFile(p); string(b) != "new, streamed" || entries() != 1 {
		t.Fatalf("after Commit: %q, %d entries", b, entries())
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("a replaced file keeps its mode: %v", fi.Mode())
	}
	if af.Commit() == nil {
		t.Fatal("a second Commit succeeded")
	}
	af, err = d.CreateAtomic("audit.md", 0o644)
	must(t, err)
	_, _ = af.Write([]byte("discarded"))
	af.Abort()
	if b, _ := os.ReadFile(p); string(b) != "new, streamed" || entries() != 1 {
		t.Fatalf("after Abort: %q, %d entries", b, entries())
	}
	un, err := d.CreateAtomicUnnamed("copy", 0o600)
	must(t, err)
	_, _ = un.Write([]byte("x"))
	if un.Commit() == nil || entries() != 1 {
		t.Fatalf("Commit of an unnamed file: %d entries", entries())
	}
	must(t, os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(root, "link")))
	un, err = d.CreateAtomicUnnamed("copy", 0o600)
	must(t, err)
	if err := un.CommitAs("link"); ReasonOf(err) != ReasonSymlink || entries() != 2 {
		t.Fatalf("CommitAs over a symlink: %v, %d entries", err, entries())
	}
	un, err = d.CreateAtomicUnnamed("copy", 0o600)
	must(t, err)
	must(t, un.CommitAs("named"))
	if _, err := d.CreateAtomic("link", 0o644); ReasonOf(err) != ReasonSymlink {
		t.Fatalf("CreateAtomic over a symlink: %v", err)
	}
}

// TestOpenStable: the streamed read gives the content and io.EOF only after the checks; a file
// over the limit, or one that changes while being read, is refused in place of io.EOF.
func TestOpenStable(t *testing.T) {
	root := t.TempDir()
	d, err := OpenDir(root, "")
	must(t, err)
	defer d.Close()
	must(t, os.WriteFile(filepath.Join(root, "a"), []byte("0123456789"), 0o644))
	read := func(limit int64, during func()) ([]byte, error) {
		f, err := d.OpenStable("a", limit)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		buf := make([]byte, 4)
		var out []byte
		for {
			n, err := f.Read(buf)
			out = append(out, buf[:n]...)
			if during != nil {
				during()
				during = nil
			}
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				return out, err
			}
		}
	}
	if b, err := read(10, nil); err != nil || string(b) != "0123456789" {
		t.Fatalf("read = %q, %v", b, err)
	}
	if _, err := read(9, nil); ReasonOf(err) != ReasonTooLarge {
		t.Fatalf("over the limit: %v", err)
	}
	grow := func() {
		f, _ := os.OpenFile(filepath.Join(root, "a"), os.O_APPEND|os.O_WRONLY, 0)
		f.Write([]byte("x"))
		f.Close()
	}
	if _, err := read(100, grow); ReasonOf(err) != ReasonUnstable {
		t.Fatalf("changed while read: %v", err)
	}
	must(t, os.Symlink("a", filepath.Join(root, "l")))
	if _, err := d.OpenStable("l", 10); ReasonOf(err) != ReasonSymlink {
		t.Fatalf("symlink: %v", err)
	}
}
