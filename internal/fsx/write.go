package fsx

import (
	"errors"
	"io/fs"
	"os"

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

// WriteFileAtomic replaces path with data atomically: a temporary file in the same directory is
// written, fsynced and renamed over path, and the directory is fsynced
// (spec-and-lifecycle.md §12.2). An interruption leaves either the old or the new complete file.
// An existing symlink or non-regular file at path is refused (CheckWritable).
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	if err := CheckWritable(path); err != nil {
		return err
	}
	return renameio.WriteFile(path, data, perm)
}
