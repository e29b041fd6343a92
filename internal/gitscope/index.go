package gitscope

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxIndexBytes bounds the private index copy. A real index of a million files is about 100 MiB;
// anything over this is refused rather than copied.
const maxIndexBytes = 2 << 30

// privateIndex is a byte-identical copy of the repository's index that keeps its modification
// time, so that `git diff <commit>` refreshes its stat cache into the copy instead of rewriting
// the repository's index. git reads it exactly as the real one, racy-git check included
// (gitscope.md §4.8).
type privateIndex struct {
	dir      string // temporary directory holding the copy; "" when there is nothing to clean up
	path     string // value for GIT_INDEX_FILE
	excludes string // snapshot runs: the pre-flight exclude file (preflightExcludes)
}

// indexGuardArgs are the -c settings every command that may write an index carries with a
// private index: never split it and never write a new shared index, so no .git/sharedindex.*
// file is created.
var indexGuardArgs = []string{"-c", "core.splitIndex=false", "-c", "splitIndex.maxPercentChange=100"}

// newPrivateIndex copies the index of the repository at root into a fresh temporary directory;
// without an index it gets a path that does not exist, which git reads as an empty index. An
// index that is not a regular file is *ErrGitFailed.
func (r *Repo) newPrivateIndex(ctx context.Context) (*privateIndex, error) {
	src, err := r.indexPath(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(r.privateIndexParent(src), "mastermind-index-")
	if err != nil {
		return nil, fmt.Errorf("private index: %w", err)
	}
	pi := &privateIndex{dir: dir, path: filepath.Join(dir, "index")}
	if err := linkOrCopyIndex(src, pi.path); err != nil {
		pi.cleanup()
		return nil, err
	}
	return pi, nil
}

// privateIndexParent chooses where the private index copy lives: outside the work tree, where
// git would list it as untracked. That is $TMPDIR unless it lies inside the work tree, as
// testscript's does, and otherwise the git directory, which git never lists.
func (r *Repo) privateIndexParent(indexPath string) string {
	tmp := os.TempDir()
	if !within(r.root, tmp) {
		return tmp
	}
	return filepath.Dir(indexPath)
}

// within reports whether path lies in or below dir, comparing both as given and with symbolic
// links resolved, so that a TMPDIR reached through a symlink cannot escape the check.
func within(dir, path string) bool {
	in := func(d, p string) bool {
		rel, err := filepath.Rel(d, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
	}
	absDir, err1 := filepath.Abs(dir)
	absPath, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return true // unknown: treat as inside, the git directory is always safe
	}
	if in(absDir, absPath) {
		return true
	}
	rd, err1 := filepath.EvalSymlinks(absDir)
	rp, err2 := filepath.EvalSymlinks(absPath)
	if err1 != nil || err2 != nil {
		return err2 != nil // a TMPDIR that cannot be resolved is not trusted
	}
	return in(rd, rp)
}

// cleanup removes the temporary directory.
func (pi *privateIndex) cleanup() {
	if pi != nil && pi.dir != "" {
		_ = os.RemoveAll(pi.dir)
	}
}

// env returns the GIT_INDEX_FILE setting for the child environment.
func (pi *privateIndex) env() []string {
	if pi == nil {
		return nil
	}
	return []string{"GIT_INDEX_FILE=" + pi.path}
}

// indexPath returns the path of the work tree's index, <git dir>/index. When .git cannot be read
// or holds no index, git itself is asked, because a private index copied from a wrong path would
// be empty and make every baseline file look deleted.
func (r *Repo) indexPath(ctx context.Context) (string, error) {
	if gitDir, _, ok := gitDirOf(r.root); ok {
		p := filepath.Join(gitDir, "index")
		if _, err := os.Lstat(p); err == nil {
			return p, nil
		}
	}
	out, err := r.runSimple(ctx, r.root, "rev-parse", "--git-path", "index")
	if err != nil {
		return "", err
	}
	p := strings.TrimSuffix(string(out), "\n")
	if p == "" || strings.ContainsAny(p, "\n\x00") {
		return "", &ErrGitFailed{Cmd: "rev-parse", Exit: -1, Stderr: "unexpected output: index path"}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.root, p)
	}
	return p, nil
}

// linkOrCopyIndex gives dst, which must not exist, src's bytes and modification time: a hard
// link when src is a small regular file on the same file system, otherwise a copy. The link
// saves 20–30 ms on a 100,000-file index and is as safe as the copy (gitscope.md §4.8).
func linkOrCopyIndex(src, dst string) error {
	if fi, err := os.Lstat(src); err == nil && indexLinkable(fi) && os.Link(src, dst) == nil {
		if li, err := os.Lstat(dst); err == nil && indexLinkable(li) {
			return nil
		}
		if err := os.Remove(dst); err != nil {
			return fmt.Errorf("private index: %w", err)
		}
	}
	return copyIndex(src, dst)
}

// indexLinkable reports whether fi is a regular file small enough to serve as the private index.
func indexLinkable(fi os.FileInfo) bool {
	return fi.Mode().IsRegular() && fi.Size() <= maxIndexBytes
}

// copyIndex copies src to dst (which must not exist) and gives dst src's modification time.
// A missing src is not an error: dst is then left absent. src is opened without blocking and
// must be a regular file of at most maxIndexBytes; its size must not change during the copy.
func copyIndex(src, dst string) error {
	in, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return &ErrGitFailed{Cmd: "diff", Exit: -1, Stderr: fmt.Sprintf("cannot read the index %s: %v", src, err)}
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &ErrGitFailed{Cmd: "diff", Exit: -1, Stderr: fmt.Sprintf("the index %s is not a regular file (%s)", src, fi.Mode().Type())}
	}
	if fi.Size() > maxIndexBytes {
		return &ErrGitFailed{Cmd: "diff", Exit: -1, Stderr: fmt.Sprintf("the index %s is larger than %d bytes", src, int64(maxIndexBytes))}
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("private index: %w", err)
	}
	n, err := io.Copy(out, io.LimitReader(in, fi.Size()+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("private index: copy %s: %w", src, err)
	}
	if n != fi.Size() {
		return &ErrGitFailed{Cmd: "diff", Exit: -1, Stderr: fmt.Sprintf("the index %s changed while it was copied", src)}
	}
	if err := os.Chtimes(dst, fi.ModTime(), fi.ModTime()); err != nil {
		return fmt.Errorf("private index: %w", err)
	}
	return nil
}
