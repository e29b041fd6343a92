package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/google/renameio/v2"
)

// CheckWritable refuses to replace anything but a regular file: an existing symlink (dangling or
// not), directory, FIFO or device at path is a *PathError. A missing path is fine.
func CheckWritable(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return &PathError{Path: path, Reason: ReasonSymlink}
	}
	if !fi.Mode().IsRegular() {
		return &PathError{Path: path, Reason: ReasonNotRegular, Detail: describeMode(fi.Mode())}
	}
	return nil
}

// WriteFileAtomic replaces path with data atomically (spec-and-lifecycle.md §12.2): a temporary
// file in the same directory is written, fsynced and renamed over path, and the directory is
// fsynced, so an interruption leaves the old or the new complete file. An error from that last
// sync is returned although path already holds data; a symlink or non-regular file is refused.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	if err := CheckWritable(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := renameio.WriteFile(path, data, perm, renameio.WithTempDir(dir)); err != nil {
		return err
	}
	return syncDir(dir)
}

// WriteFileAtomicMode is WriteFileAtomic with the file's mode set to exactly perm, whether the
// file is new or replaced, as a git hook needs.
func WriteFileAtomicMode(path string, data []byte, perm fs.FileMode) error {
	if err := CheckWritable(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	pf, err := renameio.NewPendingFile(path, renameio.WithTempDir(dir), renameio.WithStaticPermissions(perm))
	if err != nil {
		return err
	}
	defer pf.Cleanup()
	if _, err := pf.Write(data); err != nil {
		return err
	}
	if err := pf.CloseAtomicallyReplace(); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir fsyncs the directory dir, since a rename is durable only once its directory is synced.
// A file system that cannot sync a directory is not an error. It is a variable so fault tests can
// make it fail.
var syncDir = func(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	return err
}
