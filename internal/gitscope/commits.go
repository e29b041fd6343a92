package gitscope

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/sync/errgroup"
)

// The committed-content plumbing of the gate against a protected base (trust-model.md §5): the
// merge base, ancestry, a diff between two commits and a commit's tree written out. None of it
// reads the index or the work tree, and the pins keep a replace ref from substituting an object.

// ErrNoMergeBase: the two commits of MergeBase share no history.
var ErrNoMergeBase = errors.New("the commits share no history (no merge base)")

// ErrGraftsPresent: the repository has a .git/info/grafts file, which rewrites ancestry for
// merge-base, so MergeBase refuses to answer.
var ErrGraftsPresent = errors.New("the repository has .git/info/grafts, which rewrites commit ancestry; remove it")

// checkGrafts refuses a repository with an info/grafts file in its common git directory.
func (r *Repo) checkGrafts() error {
	_, common, ok := gitDirOf(r.root)
	if !ok {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(common, "info", "grafts")); err == nil {
		return ErrGraftsPresent
	}
	return nil
}

// MergeBase returns the best common ancestor of the commits a and b (full OIDs): `git
// merge-base a b`. Errors: ErrBaselineUnavailable for an OID that is not a full OID,
// ErrNoMergeBase, ErrGraftsPresent, *ErrGitFailed.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	if !IsFullOID(a) || !IsFullOID(b) {
		return "", ErrBaselineUnavailable
	}
	if err := r.checkGrafts(); err != nil {
		return "", err
	}
	out, err := r.runSimple(ctx, r.root, "merge-base", a, b)
	var gf *ErrGitFailed
	if errors.As(err, &gf) && gf.Exit == 1 && strings.TrimSpace(gf.Stderr) == "" {
		return "", ErrNoMergeBase
	}
	if err != nil {
		return "", err
	}
	oid := strings.TrimSpace(string(out))
	if !IsFullOID(oid) {
		return "", &ErrGitFailed{Cmd: "merge-base", Exit: -1, Stderr: "unexpected output: " + truncateForMessage(out)}
	}
	return oid, nil
}

// DiffCommits returns the paths that differ between the trees of the commits from and to as a
// ChangedSet without renames; from may be EmptyTreeOID. Only objects are read, so no filter,
// textconv or external diff can run.
func (r *Repo) DiffCommits(ctx context.Context, from, to string) (*ChangedSet, error) {
	if !IsFullOID(from) || !IsFullOID(to) {
		return nil, ErrBaselineUnavailable
	}
	args := slices.Concat(globalArgs, diffConfigArgs, []string{
		"diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", "--name-status",
		"--ignore-submodules=none", "--no-commit-id", from, to, "--",
	})
	var entries []Entry
	var total int64
	err := r.run(ctx, r.root, "diff-tree", args, func(rd io.Reader) error {
		var err error
		entries, err = parseDiff(newNulReader(rd, &total))
		return err
	})
	if err != nil {
		return nil, err
	}
	if total > maxPathBytes {
		return nil, &ErrGitFailed{Cmd: "diff-tree", Exit: -1, Stderr: fmt.Sprintf("output exceeds %d MiB of path bytes", maxPathBytes>>20)}
	}
	slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(string(a.Path), string(b.Path)) })
	return &ChangedSet{Source: SourceGit, Entries: entries}, nil
}

// maxMaterializeBytes bounds the total blob bytes Materialize writes.
const maxMaterializeBytes = 4 << 30

// MaterializeError is a commit tree Materialize refuses to write: an entry whose name could
// leave the directory or alias another entry, such as ".." or ".GIT", or a tree too deep or too
// large.
type MaterializeError struct {
	Commit string
	Path   string
	Reason string
}

func (e *MaterializeError) Error() string {
	return fmt.Sprintf("commit %s: tree entry %q %s", e.Commit, e.Path, e.Reason)
}

// Materialize writes the committed content of commit into the existing empty directory dir and
// returns the sorted repository-relative paths of its files, by the rules of gitscope.md §4.8.
// Entries are checked by name before anything is written below them.
func (r *Repo) Materialize(ctx context.Context, commit, dir string) ([]string, error) {
	if !IsFullOID(commit) {
		return nil, ErrBaselineUnavailable
	}
	if r.gitUsable() {
		return r.materializeCLI(ctx, commit, dir)
	}
	return r.materializeGoGit(ctx, commit, dir)
}

// treeFile is one ls-tree entry to write.
type treeFile struct {
	mode string // 100644, 100755, 120000, 160000
	oid  string
	path string
}

// materializeCLI is Materialize through git ls-tree and git cat-file --batch.
func (r *Repo) materializeCLI(ctx context.Context, commit, dir string) ([]string, error) {
	if err := r.checkCommit(ctx, commit); err != nil {
		return nil, err
	}
	var entries []treeFile
	var total int64
	args := slices.Concat(globalArgs, []string{"ls-tree", "-r", "-z", "--full-tree", commit})
	err := r.run(ctx, r.root, "ls-tree", args, func(rd io.Reader) error {
		return eachRecord(rd, &total, func(rec []byte) error {
			meta, name, ok := strings.Cut(string(rec), "\t")
			f := strings.Fields(meta)
			if !ok || len(f) != 3 || !IsFullOID(f[2]) {
				return shapef("ls-tree record %q", truncateForMessage(rec))
			}
			entries = append(entries, treeFile{mode: f[0], oid: f[2], path: name})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	if total > maxPathBytes {
		return nil, &ErrGitFailed{Cmd: "ls-tree", Exit: -1, Stderr: fmt.Sprintf("output exceeds %d MiB of path bytes", maxPathBytes>>20)}
	}
	// Directories first (checked by name), so nothing is written below a bad entry.
	var blobs []int
	files := make([]string, 0, len(entries))
	for i, e := range entries {
		parts := strings.Split(e.path, "/")
		if len(parts) > 1024 {
			return nil, &MaterializeError{Commit: commit, Path: e.path, Reason: "is nested deeper than 1024 levels"}
		}
		for _, p := range parts {
			if reason := badEntryName(p); reason != "" {
				return nil, &MaterializeError{Commit: commit, Path: e.path, Reason: reason}
			}
		}
		if len(parts) > 1 {
			if err := mkdirsIn(dir, parts[:len(parts)-1]); err != nil {
				return nil, err
			}
		}
		files = append(files, e.path)
		switch e.mode {
		case "160000":
			if err := os.Mkdir(filepath.Join(dir, filepath.FromSlash(e.path)), 0o755); err != nil {
				return nil, err
			}
		case "100644", "100755", "100664", "120000":
			blobs = append(blobs, i)
		default:
			return nil, &MaterializeError{Commit: commit, Path: e.path, Reason: "has the unknown mode " + e.mode}
		}
	}
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriter(pw)
		for _, i := range blobs {
			if _, err := bw.WriteString(entries[i].oid + "\n"); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(bw.Flush())
	}()
	var links []treeFile
	var written int64
	// File creation, not git, is the cost, so small blobs are handed to writers running in
	// parallel; a large one is streamed in place.
	jobs := make(chan writeJob, 256)
	errs := make(chan error, materializeWriters)
	for range materializeWriters {
		go func() {
			var first error
			for j := range jobs {
				if first != nil {
					continue
				}
				if err := writeFrom(bytes.NewReader(j.data), j.abs, j.mode); err != nil {
					first = fmt.Errorf("writing %s: %w", j.rel, err)
				}
			}
			errs <- first
		}()
	}
	catArgs := slices.Concat(globalArgs, []string{"cat-file", "--batch"})
	err = r.runIn(ctx, r.root, "cat-file", catArgs, nil, pr, func(rd io.Reader) error {
		br := bufio.NewReaderSize(rd, 64<<10)
		for _, i := range blobs {
			e := entries[i]
			head, err := br.ReadString('\n')
			if err != nil {
				return shapef("cat-file ended before %s", e.oid)
			}
			f := strings.Fields(head)
			if len(f) != 3 || f[0] != e.oid || f[1] != "blob" {
				return shapef("cat-file header %q for %s", strings.TrimSpace(head), e.oid)
			}
			size, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || size < 0 {
				return shapef("cat-file size %q", f[2])
			}
			if written += size; written > maxMaterializeBytes {
				return &MaterializeError{Commit: commit, Path: e.path, Reason: fmt.Sprintf("takes the tree over %d GiB", maxMaterializeBytes>>30)}
			}
			body := io.LimitReader(br, size)
			abs := filepath.Join(dir, filepath.FromSlash(e.path))
			mode := os.FileMode(0o644)
			if e.mode == "100755" {
				mode = 0o755
			}
			switch {
			case e.mode == "120000":
				if size > maxBlobBytes {
					return shapef("symbolic link target of %d bytes", size)
				}
				t, err := io.ReadAll(body)
				if err != nil {
					return err
				}
				links = append(links, treeFile{path: abs, oid: string(t)})
			case size <= 1<<20:
				data := make([]byte, size)
				if _, err := io.ReadFull(body, data); err != nil {
					return shapef("cat-file body of %s: %v", e.oid, err)
				}
				jobs <- writeJob{rel: e.path, abs: abs, mode: mode, data: data}
			default:
				if err := writeFrom(body, abs, mode); err != nil {
					return fmt.Errorf("writing %s: %w", e.path, err)
				}
			}
			if b, err := br.ReadByte(); err != nil || b != '\n' {
				return shapef("cat-file record of %s not terminated", e.oid)
			}
		}
		_, err := io.Copy(io.Discard, br)
		return err
	})
	pr.Close()
	close(jobs)
	for range materializeWriters {
		if werr := <-errs; err == nil {
			err = werr
		}
	}
	if err != nil {
		return nil, err
	}
	for _, l := range links {
		if err := os.Symlink(l.oid, l.path); err != nil {
			return nil, err
		}
	}
	slices.Sort(files)
	return files, nil
}

// materializeWriters is the number of goroutines creating files.
const materializeWriters = 4

// writeJob is one small blob to write.
type writeJob struct {
	rel, abs string
	mode     os.FileMode
	data     []byte
}

// checkCommit refuses an OID that is not a commit (ErrBaselineUnavailable).
func (r *Repo) checkCommit(ctx context.Context, oid string) error {
	out, err := r.runSimple(ctx, r.root, "cat-file", "-t", oid)
	if err != nil || strings.TrimSpace(string(out)) != "commit" {
		return ErrBaselineUnavailable
	}
	return nil
}

// mkdirsIn creates the directories parts below dir, one component at a time; an existing
// component must be a directory, never a link.
func mkdirsIn(dir string, parts []string) error {
	p := dir
	for _, c := range parts {
		p = filepath.Join(p, c)
		err := os.Mkdir(p, 0o755)
		if err == nil {
			continue
		}
		fi, lerr := os.Lstat(p)
		if lerr != nil || !fi.IsDir() {
			return err
		}
	}
	return nil
}

// writeFrom creates abs with O_EXCL, refusing a duplicate entry, and copies rd into it.
func writeFrom(rd io.Reader, abs string, mode os.FileMode) error {
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, rd)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// materializeGoGit is Materialize through go-git, without a usable git.
func (r *Repo) materializeGoGit(ctx context.Context, commit, dir string) ([]string, error) {
	gg, release, err := r.goGit()
	defer release()
	if err != nil {
		return nil, r.layoutError(err)
	}
	c, err := gg.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, ErrBaselineUnavailable
	}
	root, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("reading tree %s: %w", c.TreeHash, err)
	}
	type link struct{ path, target string }
	var (
		files []string
		links []link
		total int64
	)
	var walk func(t *object.Tree, prefix string, depth int) error
	walk = func(t *object.Tree, prefix string, depth int) error {
		if depth > 1024 {
			return &MaterializeError{Commit: commit, Path: prefix, Reason: "is nested deeper than 1024 levels"}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, e := range t.Entries {
			name := prefix + e.Name
			if reason := badEntryName(e.Name); reason != "" {
				return &MaterializeError{Commit: commit, Path: name, Reason: reason}
			}
			abs := filepath.Join(dir, filepath.FromSlash(name))
			switch e.Mode {
			case filemode.Dir:
				if err := os.Mkdir(abs, 0o755); err != nil {
					return err
				}
				sub, err := object.GetTree(gg.Storer, e.Hash)
				if err != nil {
					return fmt.Errorf("reading tree %s (%s): %w", name, e.Hash, err)
				}
				if err := walk(sub, name+"/", depth+1); err != nil {
					return err
				}
			case filemode.Submodule:
				if err := os.Mkdir(abs, 0o755); err != nil {
					return err
				}
				files = append(files, name)
			case filemode.Symlink:
				data, err := readBlob(gg, e.Hash, name)
				if err != nil {
					return err
				}
				links = append(links, link{abs, string(data)})
				files = append(files, name)
			default:
				blob, err := gg.BlobObject(e.Hash)
				if err != nil {
					return fmt.Errorf("reading blob %s (%s): %w", name, e.Hash, err)
				}
				if total += blob.Size; total > maxMaterializeBytes {
					return &MaterializeError{Commit: commit, Path: name, Reason: fmt.Sprintf("takes the tree over %d GiB", maxMaterializeBytes>>30)}
				}
				mode := os.FileMode(0o644)
				if e.Mode == filemode.Executable {
					mode = 0o755
				}
				if err := writeBlob(blob, abs, mode); err != nil {
					return fmt.Errorf("writing %s: %w", name, err)
				}
				files = append(files, name)
			}
		}
		return nil
	}
	if err := walk(root, "", 0); err != nil {
		return nil, err
	}
	for _, l := range links {
		if err := os.Symlink(l.target, l.path); err != nil {
			return nil, err
		}
	}
	slices.Sort(files)
	return files, nil
}

// badEntryName says why a tree entry name cannot be written, "" when it can.
func badEntryName(name string) string {
	switch {
	case name == "" || name == "." || name == "..":
		return "is not a file name"
	case strings.EqualFold(name, ".git"):
		return "is a .git entry"
	case strings.ContainsAny(name, "/\\\x00"):
		return "holds a path separator or NUL"
	}
	return ""
}

func readBlob(gg interface {
	BlobObject(plumbing.Hash) (*object.Blob, error)
}, h plumbing.Hash, name string) ([]byte, error) {
	blob, err := gg.BlobObject(h)
	if err != nil {
		return nil, fmt.Errorf("reading blob %s (%s): %w", name, h, err)
	}
	if blob.Size > maxBlobBytes {
		return nil, fmt.Errorf("blob %s is %d bytes, over the %d-byte limit", name, blob.Size, maxBlobBytes)
	}
	rd, err := blob.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// writeBlob writes the blob to abs as writeFrom does.
func writeBlob(blob *object.Blob, abs string, mode os.FileMode) error {
	rd, err := blob.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	return writeFrom(rd, abs, mode)
}

// lsIgnoredArgs list the ignored files and directories of the work tree, one entry per ignored
// directory.
var lsIgnoredArgs = slices.Concat(globalArgs, untrackedGuardArgs, []string{
	"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", "--full-name", "--",
})

// WorktreeIs reports whether the work tree holds exactly the tree of commit, so that the gate
// against a base can audit in place instead of writing the tree out. The conditions are in
// gitscope.md §4.8; any doubt is false, and the first difference found cancels the other checks.
func (r *Repo) WorktreeIs(ctx context.Context, commit string) (bool, error) {
	if !IsFullOID(commit) || !r.gitUsable() {
		return false, nil
	}
	head, unborn, err := r.Head(ctx)
	if err != nil || unborn || head != commit {
		return false, err
	}
	// The three checks are independent: they run at once, and the first that finds a
	// difference stops the others.
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		hidden, err := r.indexHidesEntries(gctx)
		if err == nil && hidden {
			return errWorktreeDiffers
		}
		return err
	})
	g.Go(func() error {
		cs, err := r.ChangedSet(gctx, commit)
		if err == nil && (cs.Degraded || len(cs.Entries) > 0) {
			return errWorktreeDiffers
		}
		return err
	})
	g.Go(func() error {
		return r.run(gctx, r.root, "ls-files", lsIgnoredArgs, func(rd io.Reader) error {
			if b, err := io.ReadAll(io.LimitReader(rd, 1)); err != nil || len(b) > 0 {
				return cmp.Or(err, errWorktreeDiffers)
			}
			return nil
		})
	})
	switch err := g.Wait(); {
	case errors.Is(err, errWorktreeDiffers):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// errWorktreeDiffers stops WorktreeIs's other checks once one has found a difference.
var errWorktreeDiffers = errors.New("the work tree differs from the commit")

// indexHidesEntries reports whether any index entry is marked assume-unchanged or skip-worktree:
// git trusts such an entry without looking at the file, so the live index's changed set would
// not see an edit to it.
func (r *Repo) indexHidesEntries(ctx context.Context) (bool, error) {
	return r.indexHasTag(ctx, func(tag byte) bool { return tag == 'S' || tag >= 'a' && tag <= 'z' })
}

// CommitFiles lists the files (blobs, symbolic links, gitlinks) of commit's tree, sorted:
// `git ls-tree -r -z --name-only --full-tree`.
func (r *Repo) CommitFiles(ctx context.Context, commit string) ([]string, error) {
	if !IsFullOID(commit) {
		return nil, ErrBaselineUnavailable
	}
	var out []string
	var total int64
	args := slices.Concat(globalArgs, []string{"ls-tree", "-r", "-z", "--name-only", "--full-tree", commit})
	err := r.run(ctx, r.root, "ls-tree", args, func(rd io.Reader) error {
		return eachRecord(rd, &total, func(p []byte) error {
			out = append(out, string(p))
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}
