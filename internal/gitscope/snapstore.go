package gitscope

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// SnapshotStore holds the pre-flight snapshots of one task as named blobs, written at pre-flight
// and read at post-flight (gitscope.md §4.6). Put replaces a blob atomically, and Open of a
// blob never stored fails with an error that is fs.ErrNotExist. Names are ASCII and
// '/'-separated, without "." or ".." components; concurrent Puts of one name need not be safe.
type SnapshotStore interface {
	Put(name string, r io.Reader) error
	Open(name string) (io.ReadCloser, error)
}

// LocalSnapshotStore is an optional interface of a SnapshotStore that keeps its blobs as local
// files, whose SnapshotPath returns the file of a stored blob. gitscope then hard-links the index
// snapshot as post-flight's private index instead of copying it (gitscope.md §4.8).
type LocalSnapshotStore interface {
	SnapshotStore
	SnapshotPath(name string) (string, error)
}

// Snapshot blob names (see SnapshotStore).
const (
	SnapshotIndex  = "index.snapshot"
	SnapshotInputs = "inputs.snapshot"
)

// ErrNoSnapshot: the task has no pre-flight snapshot, for example because pre-flight ran on
// another machine. Post-flight cannot decide I1 without it.
var ErrNoSnapshot = errors.New("no pre-flight snapshot of the repository for this task; run pre-flight again (mastermind run-task <spec> --pre-only)")

// prefixStore is a SnapshotStore under a name prefix (a submodule's snapshots).
type prefixStore struct {
	s      SnapshotStore
	prefix string
}

func (p prefixStore) Put(name string, r io.Reader) error      { return p.s.Put(p.prefix+name, r) }
func (p prefixStore) Open(name string) (io.ReadCloser, error) { return p.s.Open(p.prefix + name) }

// dirStore is a SnapshotStore in one directory: name "a/b" is the file <dir>/a/b.
type dirStore struct{ dir string }

// GitDirStore returns the interim SnapshotStore of task, the directory
// <git dir>/mastermind/snapshots/<task>/ of this work tree, created with mode 0700 on first Put.
// task must be one path component. The folder is in the executor's reach, so it guards against
// casual edits only (trust-model.md §3).
func (r *Repo) GitDirStore(task string) (SnapshotStore, error) {
	if task == "" || task == "." || task == ".." || strings.ContainsAny(task, "/\\\x00") {
		return nil, fmt.Errorf("task name %q cannot name a snapshot folder", task)
	}
	gitDir, _, ok := gitDirOf(r.root)
	if !ok {
		return nil, fmt.Errorf("%s: cannot find the git directory for the snapshot store: %w", r.root, ErrNotRepository)
	}
	return dirStore{dir: filepath.Join(gitDir, "mastermind", "snapshots", task)}, nil
}

func checkBlobName(name string) error {
	if name == "" {
		return fmt.Errorf("empty snapshot name")
	}
	for _, c := range strings.Split(name, "/") {
		if c == "" || c == "." || c == ".." || strings.ContainsAny(c, "\\\x00") {
			return fmt.Errorf("snapshot name %q is not a clean relative path", name)
		}
	}
	return nil
}

func (d dirStore) Put(name string, r io.Reader) error {
	if err := checkBlobName(name); err != nil {
		return err
	}
	p := filepath.Join(d.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("snapshot store: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".put-*")
	if err != nil {
		return fmt.Errorf("snapshot store: %w", err)
	}
	_, err = io.Copy(tmp, r)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("snapshot store: write %s: %w", name, err)
	}
	return nil
}

func (d dirStore) Open(name string) (io.ReadCloser, error) {
	if err := checkBlobName(name); err != nil {
		return nil, err
	}
	p := filepath.Join(d.dir, filepath.FromSlash(name))
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("snapshot %s: %w", name, fs.ErrNotExist)
		}
		return nil, fmt.Errorf("snapshot store: %w", err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("snapshot store: %s is not a regular file: %w", p, ErrUnsafeRepository)
	}
	return f, nil
}

func (d dirStore) SnapshotPath(name string) (string, error) {
	if err := checkBlobName(name); err != nil {
		return "", err
	}
	p := filepath.Join(d.dir, filepath.FromSlash(name))
	if _, err := os.Lstat(p); err != nil {
		return "", err
	}
	return p, nil
}

func (p prefixStore) SnapshotPath(name string) (string, error) {
	if ls, ok := p.s.(LocalSnapshotStore); ok {
		return ls.SnapshotPath(p.prefix + name)
	}
	return "", fs.ErrNotExist
}
