package verifyrun

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// WorktreeContent returns a content id for the repository-relative slash path rel under root,
// as it is now: "file:<sha256>" for a regular file ("exec:<sha256>" when any execute bit is set,
// the one mode bit git records: a script's mode decides whether a test can run it), "link:<target>"
// for a symlink, "dir" for a directory, "absent" when missing, "other:<mode>" for anything else,
// "error:<text>" when it cannot be read (a symlinked ancestor included; a missing or
// non-directory ancestor is "absent"). A symlink is never followed and a FIFO never opened.
// "dir", "other:" and "error:" name no content (a nested repository's or submodule's files are not
// read): Stable is false for them.
func WorktreeContent(root, rel string) string {
	// No ancestor may be a symlink either: a directory swapped for a link to another tree would
	// otherwise feed its files into the receipts' fingerprint.
	if i := strings.LastIndexByte(rel, '/'); i > 0 {
		if err := fsx.CheckNoSymlink(root, rel[:i]); err != nil {
			switch fsx.ReasonOf(err) {
			case fsx.ReasonMissing, fsx.ReasonNotRegular:
				return "absent"
			}
			return "error:" + err.Error()
		}
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return "absent"
	case err != nil:
		return "error:" + err.Error()
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(p)
		if err != nil {
			return "error:" + err.Error()
		}
		return "link:" + t
	case fi.IsDir():
		return "dir"
	case !fi.Mode().IsRegular():
		return fmt.Sprintf("other:%v", fi.Mode().Type())
	}
	// O_NOFOLLOW|O_NONBLOCK: a file swapped for a symlink or a FIFO after the lstat is neither
	// followed nor waited on (SameFile below then reports the swap).
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "error:" + err.Error()
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !os.SameFile(fi, st) {
		return "error:changed while read"
	}
	h := sha256.New()
	if err := fsx.HashFile(h, f); err != nil {
		return "error:" + err.Error()
	}
	if fi.Mode().Perm()&0o111 != 0 {
		return "exec:" + hex.EncodeToString(h.Sum(nil))
	}
	return "file:" + hex.EncodeToString(h.Sum(nil))
}

// Stable reports whether the content id c (WorktreeContent) determines the path's content: a
// file's hash, a link's target, or absent. A directory (a nested repository, a submodule), a
// special file or an unreadable path is not: equal ids may hide different content.
func Stable(c string) bool {
	return c == "absent" || strings.HasPrefix(c, "file:") || strings.HasPrefix(c, "exec:") || strings.HasPrefix(c, "link:")
}

// StateMap turns path states into the map ModifiedPaths compares ("<status> <content>").
func StateMap(ps []PathState) map[string]string {
	m := make(map[string]string, len(ps))
	for _, p := range ps {
		m[p.Path] = p.Status + " " + p.Content
	}
	return m
}
