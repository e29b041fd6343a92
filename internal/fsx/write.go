package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

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
// file in the SAME directory is written, fsynced and renamed over path, and the directory is
// fsynced. An interruption leaves either the old or the new complete file (and at worst a stray
// temporary ".<name><digits>" file beside it, never elsewhere). A new file gets perm (less the
// umask); a replaced file keeps its permissions. An existing symlink or non-regular file at path
// is refused (CheckWritable).
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	if err := CheckWritable(path); err != nil {
		return err
	}
	return renameio.WriteFile(path, data, perm, renameio.WithTempDir(filepath.Dir(path)))
}

// WriteFileAtomicMode is WriteFileAtomic with the file's mode set to exactly perm, whether the
// file is new or replaced (for example 0755 for a git hook).
func WriteFileAtomicMode(path string, data []byte, perm fs.FileMode) error {
	if err := CheckWritable(path); err != nil {
		return err
	}
	pf, err := renameio.NewPendingFile(path, renameio.WithTempDir(filepath.Dir(path)), renameio.WithStaticPermissions(perm))
	if err != nil {
		return err
	}
	defer pf.Cleanup()
	if _, err := pf.Write(data); err != nil {
		return err
	}
	return pf.CloseAtomicallyReplace()
}
