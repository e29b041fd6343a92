package fsx

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
)

// The content ids of work-tree paths, the one vocabulary of the inputs fingerprint and the
// receipts' fingerprint (spec-and-lifecycle.md §4 step 0 lists the ids).
const (
	// ContentAbsent is the id of a missing path, or of one below a missing or non-directory
	// ancestor.
	ContentAbsent = "-"
	// ContentViaLink is the id of a path below a symlinked directory, which is never read.
	ContentViaLink = "via-link"
	// ContentDir is the id of a directory without a .git entry, whose files are not read. A
	// submodule or a nested repository has "repo:<commit>" instead (dirID).
	ContentDir = "dir"
)

// execPrefix marks a regular file with an execute bit: the one mode bit git records, and the one
// that decides whether a test can run a script.
const execPrefix = "exec:"

// ContentStable reports whether the content id id determines the path's content: a file's hash,
// a link's target hash, or absent. Equal ids of any other kind may hide different content.
func ContentStable(id string) bool {
	if h, ok := strings.CutPrefix(id, execPrefix); ok {
		return isSHA256Hex(h)
	}
	if h, ok := strings.CutPrefix(id, "link:"); ok {
		return isSHA256Hex(h)
	}
	return id == ContentAbsent || isSHA256Hex(id)
}

func isSHA256Hex(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ContentID identifies what is at the slash path rel below root now, without following a
// symlink in any component: the SHA-256 of a regular file's bytes (prefixed "exec:" when an
// execute bit is set), "link:<sha256 of the target>", "repo:<commit>" (or ContentRepoUnresolved)
// for a submodule or nested repository, ContentDir for another directory, "special:<type>" for a
// FIFO, socket or device (never opened), ContentAbsent, or ContentViaLink. An error is an I/O
// error other than those.
func ContentID(root, rel string) (string, error) {
	if i := strings.LastIndexByte(rel, '/'); i > 0 {
		if id, err := ancestorID(CheckNoSymlink(root, rel[:i])); id != "" || err != nil {
			return id, err
		}
	}
	abs := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return ContentAbsent, nil
	case err != nil:
		return "", err
	case !fi.Mode().IsRegular():
		return nonRegularID(fi, abs, func() (string, error) { return os.Readlink(abs) })
	}
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ContentAbsent, nil
	case errors.Is(err, syscall.ELOOP):
		return "link:changed", nil
	case err != nil:
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return "", err
	case !st.Mode().IsRegular():
		return "special:changed", nil
	}
	return fileID(f, st.Mode())
}

// ancestorID maps the error of checking a path's ancestors to the path's id: "" and nil when the
// ancestors are plain directories.
func ancestorID(err error) (string, error) {
	switch ReasonOf(err) {
	case "":
		return "", err
	case ReasonMissing, ReasonNotRegular:
		return ContentAbsent, nil
	case ReasonSymlink, ReasonSymlinkedAncestor:
		return ContentViaLink, nil
	}
	return "", err
}

// ContentIDs returns ContentID of every path of rels, which are sorted by path bytes, on a few
// goroutines. The paths of one directory are adjacent: each run of them opens the directory once
// (OpenDir) and reads its entries through that handle instead of checking every ancestor of every
// path again (gitscope.md §8.1 scenario B). An error names the path.
func ContentIDs(root string, rels []string) ([]string, error) {
	ids := make([]string, len(rels))
	type unit struct{ from, to int }
	var units []unit
	for i := 0; i < len(rels); {
		j, p := i+1, parentOf(rels[i])
		for j < len(rels) && parentOf(rels[j]) == p {
			j++
		}
		units = append(units, unit{i, j})
		i = j
	}
	errs := make([]error, len(units))
	workers := min(runtime.GOMAXPROCS(0)*2, len(units))
	var wg sync.WaitGroup
	next := make(chan int, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range next {
				errs[u] = dirContentIDs(root, rels[units[u].from:units[u].to], ids[units[u].from:units[u].to])
			}
		}()
	}
	for u := range units {
		next <- u
	}
	close(next)
	wg.Wait()
	return ids, errors.Join(errs...)
}

func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// dirContentIDs sets ids[i] to the content id of rels[i]; every path of rels has the same parent.
func dirContentIDs(root string, rels []string, ids []string) error {
	parent := parentOf(rels[0])
	dir, err := OpenDir(root, parent)
	if err != nil {
		id, err := ancestorID(err)
		if err != nil && !errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("%s: %w", parent, err)
		}
		for i, rel := range rels {
			if id == "" {
				// A directory that can be searched but not read (mode 0311) cannot be opened,
				// yet its files can: each is read by path, as git reads them.
				if ids[i], err = ContentID(root, rel); err != nil {
					return fmt.Errorf("%s: %w", rel, err)
				}
				continue
			}
			ids[i] = id
		}
		return nil
	}
	defer dir.Close()
	for i, rel := range rels {
		if ids[i], err = dirContentID(dir, strings.TrimPrefix(rel[len(parent):], "/")); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
	}
	return nil
}

// dirContentID is ContentID for the entry name of dir.
func dirContentID(dir *Dir, name string) (string, error) {
	fi, err := dir.Lstat(name)
	switch {
	case ReasonOf(err) == ReasonMissing:
		return ContentAbsent, nil
	case err != nil:
		return "", err
	case !fi.Mode().IsRegular():
		return nonRegularID(fi, filepath.Join(dir.Path(), name), func() (string, error) { return dir.Readlink(name) })
	}
	f, err := dir.OpenFile(name)
	switch {
	case ReasonOf(err) == ReasonMissing:
		return ContentAbsent, nil
	case ReasonOf(err) == ReasonSymlink:
		return "link:changed", nil
	case ReasonOf(err) == ReasonNotRegular:
		return "special:changed", nil
	case err != nil:
		return "", err
	}
	defer f.Close()
	return fileID(f, fi.Mode())
}

// fileID is the id of the open regular file f with mode m: its bytes' SHA-256, streamed (no size
// limit), marked when an execute bit is set.
func fileID(f *os.File, m fs.FileMode) (string, error) {
	sum, err := SHA256File(f)
	if err != nil {
		return "", err
	}
	return ExecMarked(m, sum), nil
}

// ExecMarked is the content id of a regular file of mode m whose bytes hash to sum: sum, marked
// when an execute bit is set. The history snapshot's digests mark files the same way.
func ExecMarked(m fs.FileMode, sum string) string {
	if m.Perm()&0o111 == 0 {
		return sum
	}
	return execPrefix + sum
}

// nonRegularID is the content id of a path abs that lstat found not to be a regular file (fi):
// "link:<sha256 of the target>" for a symlink (readlink reads the target), dirID for a
// directory, otherwise "special:<type>".
func nonRegularID(fi fs.FileInfo, abs string, readlink func() (string, error)) (string, error) {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := readlink()
		if err != nil {
			return "", err
		}
		return "link:" + SHA256Hex([]byte(t)), nil
	case fi.IsDir():
		return dirID(abs), nil
	}
	return "special:" + fi.Mode().Type().String(), nil
}
