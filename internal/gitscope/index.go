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

// privateIndex is a temporary, byte-identical copy of the repository's index with the original
// index's modification time (a hard link to it where possible, see linkOrCopyIndex), so that `git diff <commit>` can refresh its stat cache into the copy
// instead of rewriting the repository's own index (gitscope.md §4.2: the audit must not write to
// the repository; git 2.39's diff calls refresh_index_quietly() whatever --no-optional-locks says).
//
// Exactness: git reads the copy exactly as it would read the real index. The copy keeps the real
// index's mtime (nanoseconds where the temporary file system keeps them; a coarser file system
// only moves it earlier), so git's racy-git check treats the same entries as racily clean and
// re-hashes them; a later mtime would hide same-size edits made in the index's last tick.
// A split index's shared part is found through the git directory, not GIT_INDEX_FILE, and is only
// read; `-c core.splitIndex=false` (see indexGuardArgs) makes any refresh write a self-contained
// index into the copy, never a new .git/sharedindex.* file.
type privateIndex struct {
	dir      string // temporary directory holding the copy; "" when there is nothing to clean up
	path     string // value for GIT_INDEX_FILE
	excludes string // snapshot runs: the pre-flight exclude file (preflightExcludes)
}

// indexGuardArgs are the -c settings every command that may write an index carries together
// with a private index: never split it, and never write a new shared index, so no
// .git/sharedindex.* file is created. (Hooks, post-index-change included, are off for every
// command through globalArgs.)
var indexGuardArgs = []string{"-c", "core.splitIndex=false", "-c", "splitIndex.maxPercentChange=100"}

// newPrivateIndex copies the index of the repository at root into a fresh temporary directory.
// A repository without an index gets a path to a file that does not exist, which git reads as an
// empty index, exactly like the missing real one. The index must be a regular file (a FIFO or
// device would hang or flood the copy): anything else is *ErrGitFailed.
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

// privateIndexParent chooses where the private index copy lives. It must be outside the work
// tree, or `ls-files --others` and the diff would see it as an untracked change: $TMPDIR is
// used unless it lies inside the work tree (testscript, for one, puts TMPDIR inside its work
// directory, and a user may point it at ./tmp); otherwise the directory of the real index (the
// git directory), which git never lists.
func (r *Repo) privateIndexParent(indexPath string) string {
	tmp := os.TempDir()
	if !within(r.root, tmp) {
		return tmp
	}
	return filepath.Dir(indexPath)
}

// within reports whether path lies in or below dir, comparing both as given and with symbolic
// links resolved (a TMPDIR reached through a symlink must not escape the check).
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

// indexPath returns the path of the work tree's index: <git dir>/index, where the git directory
// is root/.git or the directory a .git file names (linked worktrees, submodules,
// --separate-git-dir). When .git cannot be read that way, or no index is there, git itself is
// asked: a private index copied from a wrong path would be empty, and an empty index makes every
// baseline file look deleted.
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

// linkOrCopyIndex gives dst (which must not exist) src's bytes and modification time: a hard
// link when src is a regular file of at most maxIndexBytes on the same file system as dst,
// otherwise a copy (copyIndex). The link copies nothing (an 8.8 MB index of 100,000 files took
// 20–30 ms to copy) and is as safe as the copy: git never writes an index in place — it writes
// <GIT_INDEX_FILE>.lock and renames it over the path, which replaces the private directory
// entry and leaves the shared inode, the repository's index, with its bytes and mtime. Only
// the index's change time moves (link count). The linked file is checked again after the link,
// so a swap between the check and the link cannot hand git a FIFO or an oversized file.
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
