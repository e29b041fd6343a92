package gitscope

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// On one file system the private index is a hard link to the real one, and git's way of writing
// an index (a lock file renamed over the path) replaces the link without touching the real
// index's bytes or mtime.
func TestPrivateIndexLinkedOnSameFileSystem(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "index"), filepath.Join(dir, "private")
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	if err := os.WriteFile(src, []byte("DIRC real index"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(src, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if err := linkOrCopyIndex(src, dst); err != nil {
		t.Fatal(err)
	}
	si, _ := os.Stat(src)
	di, _ := os.Stat(dst)
	if !os.SameFile(si, di) {
		t.Fatal("private index is not a hard link on the same file system")
	}
	// What git does to GIT_INDEX_FILE when it refreshes it.
	if err := os.WriteFile(dst+".lock", []byte("DIRC refreshed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dst+".lock", dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(src); string(b) != "DIRC real index" {
		t.Errorf("real index bytes changed: %q", b)
	}
	if fi, _ := os.Stat(src); !fi.ModTime().Equal(mtime) {
		t.Errorf("real index mtime changed: %v", fi.ModTime())
	}
}

// Anything but a regular file is never linked: a symlink is copied through (as before), a FIFO is
// refused without blocking.
func TestPrivateIndexNotLinked(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("DIRC via link"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "index-symlink")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "private1")
	if err := linkOrCopyIndex(link, dst); err != nil {
		t.Fatal(err)
	}
	li, _ := os.Lstat(dst)
	ti, _ := os.Stat(target)
	if !li.Mode().IsRegular() || os.SameFile(li, ti) {
		t.Errorf("symlinked index: want a private copy, got mode %v same=%v", li.Mode(), os.SameFile(li, ti))
	}
	if b, _ := os.ReadFile(dst); !bytes.Equal(b, []byte("DIRC via link")) {
		t.Errorf("copy holds %q", b)
	}

	fifo := filepath.Join(dir, "index-fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { done <- linkOrCopyIndex(fifo, filepath.Join(dir, "private2")) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("FIFO index: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("FIFO index: blocked")
	}
	if _, err := os.Lstat(filepath.Join(dir, "private2")); err == nil {
		t.Error("FIFO index: a private file was left")
	}
}

// The copy (another file system) keeps the bytes and the nanosecond mtime.
func TestPrivateIndexCopyKeepsMtime(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "index"), filepath.Join(dir, "copy")
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	if err := os.WriteFile(src, bytes.Repeat([]byte("x"), 1<<20+3), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(src, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if err := copyIndex(src, dst); err != nil {
		t.Fatal(err)
	}
	si, _ := os.Stat(src)
	di, _ := os.Stat(dst)
	if os.SameFile(si, di) || di.Size() != si.Size() || !di.ModTime().Equal(mtime) {
		t.Errorf("copy: same=%v size %d/%d mtime %v", os.SameFile(si, di), di.Size(), si.Size(), di.ModTime())
	}
}
