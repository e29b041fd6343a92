package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.md", "hello")
	big := write("big.md", strings.Repeat("x", 11))
	exact := write("exact.md", strings.Repeat("x", 10))
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(ok, link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling.md")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}

	if b, err := ReadFile(ok, 10); err != nil || string(b) != "hello" {
		t.Fatalf("ReadFile(ok) = %q, %v", b, err)
	}
	if b, err := ReadFile(exact, 10); err != nil || len(b) != 10 {
		t.Fatalf("a file of exactly the limit must pass: %d, %v", len(b), err)
	}
	tests := []struct {
		path   string
		reason Reason
	}{
		{big, ReasonTooLarge},
		{link, ReasonSymlink},
		{dangling, ReasonSymlink},
		{fifo, ReasonNotRegular},
		{dir, ReasonNotRegular},
		{filepath.Join(dir, "absent"), ReasonMissing},
	}
	for _, tt := range tests {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(tt.path, 10); done <- err }()
		select {
		case err := <-done:
			if got := ReasonOf(err); got != tt.reason {
				t.Errorf("ReadFile(%s) reason = %q (%v), want %q", filepath.Base(tt.path), got, err, tt.reason)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadFile(%s) blocked", tt.path)
		}
	}
	var pe *PathError
	if _, err := ReadFile(big, 10); !errors.As(err, &pe) || pe.Size != 11 {
		t.Fatalf("too large must report the bytes read (limit+1): %v", err)
	}
}

func TestReadInRoot(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "a", "b"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "a", "b", "f.md"), []byte("x"), 0o644))
	must(t, os.WriteFile(filepath.Join(outside, "f.md"), []byte("secret"), 0o644))
	must(t, os.Symlink(outside, filepath.Join(root, "a", "ln")))

	if _, err := ReadInRoot(root, "a/b/f.md", 10); err != nil {
		t.Fatal(err)
	}
	if r := ReasonOf(errOnly(ReadInRoot(root, "a/ln/f.md", 10))); r != ReasonSymlinkedAncestor {
		t.Fatalf("symlinked ancestor: reason %q", r)
	}
	if r := ReasonOf(errOnly(ReadInRoot(root, "a/../../etc/passwd", 10))); r != ReasonOutsideRoot {
		t.Fatalf("dotdot: reason %q", r)
	}
	if r := ReasonOf(errOnly(ReadInRoot(root, "a/b/missing.md", 10))); r != ReasonMissing {
		t.Fatalf("missing: reason %q", r)
	}
	if _, err := Rel(root, filepath.Join(outside, "f.md")); ReasonOf(err) != ReasonOutsideRoot {
		t.Fatalf("Rel outside: %v", err)
	}
	if rel, err := Rel(root, filepath.Join(root, "a", "b", "f.md")); err != nil || rel != "a/b/f.md" {
		t.Fatalf("Rel = %q, %v", rel, err)
	}
}

func TestWriteFileAtomicRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "state.json")
	must(t, os.Symlink(target, link))
	if err := WriteFileAtomic(link, []byte("{}"), 0o644); ReasonOf(err) != ReasonSymlink {
		t.Fatalf("WriteFileAtomic over a dangling symlink: %v", err)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Fatal("the symlink target must not be created")
	}
	p := filepath.Join(dir, "ok.json")
	must(t, WriteFileAtomic(p, []byte("1"), 0o644))
	must(t, WriteFileAtomic(p, []byte("2"), 0o644))
	if b, _ := os.ReadFile(p); string(b) != "2" {
		t.Fatalf("content %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestTryLock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.controller.lock")
	l, err := TryLock(p)
	must(t, err)
	if _, err := TryLock(p); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("second TryLock: %v, want ErrLockBusy", err)
	}
	if _, err := LockWait(p, 50*time.Millisecond); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("LockWait while held: %v", err)
	}
	must(t, l.Unlock())
	l2, err := TryLock(p)
	must(t, err)
	must(t, l2.Unlock())
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func errOnly(_ []byte, err error) error { return err }

func TestWriteFileAtomicTempInSameDir(t *testing.T) {
	// The temporary file must live beside the target, not in $TMPDIR (which may be inside the
	// work tree, or on another file system): point TMPDIR at a directory we can inspect.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	must(t, WriteFileAtomic(p, []byte("{}"), 0o644))
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Fatalf("temporary files in $TMPDIR: %v", entries)
	}
	must(t, os.Chmod(p, 0o600))
	must(t, WriteFileAtomic(p, []byte("{1}"), 0o644))
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("a replaced file keeps its mode: %v", fi.Mode())
	}
	must(t, WriteFileAtomicMode(p, []byte("#!/bin/sh\n"), 0o755))
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o755 {
		t.Fatalf("WriteFileAtomicMode sets the mode exactly: %v", fi.Mode())
	}
	link := filepath.Join(dir, "hook")
	must(t, os.Symlink(p, link))
	if err := WriteFileAtomicMode(link, []byte("x"), 0o755); ReasonOf(err) != ReasonSymlink {
		t.Fatalf("WriteFileAtomicMode over a symlink: %v", err)
	}
}

// TestReadFollow: links are followed, a FIFO is refused at once (not read), a missing file is
// fs.ErrNotExist, and the limit holds.
func TestReadFollow(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p, filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFollow(filepath.Join(dir, "l"), 3); err != nil || string(b) != "abc" {
		t.Errorf("through a link: %q %v", b, err)
	}
	if _, err := ReadFollow(p, 2); ReasonOf(err) != ReasonTooLarge {
		t.Errorf("limit: %v", err)
	}
	if _, err := ReadFollow(filepath.Join(dir, "none"), 3); !errors.Is(err, fs.ErrNotExist) || ReasonOf(err) != ReasonMissing {
		t.Errorf("missing: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFollow(fifo); ReasonOf(err) != ReasonNotRegular {
		t.Errorf("FIFO: %v", err)
	}
}
