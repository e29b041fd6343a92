package gitscope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// maxRevisionBytes is the longest user-given REV accepted (§4.3).
const maxRevisionBytes = 1024

// maxBlobBytes bounds BaselineBlob; larger blobs are an error rather than an allocation.
const maxBlobBytes = 256 << 20

// Head returns HEAD's commit OID, or unborn=true (and oid "") when HEAD names a branch with no
// commit yet — callers then use EmptyTreeOID as the baseline. go-git reads it; the git CLI when
// go-git cannot open the layout.
func (r *Repo) Head(ctx context.Context) (oid string, unborn bool, err error) {
	gg, release, gerr := r.goGit()
	defer release()
	if gerr == nil {
		ref, err := gg.Head()
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return "", true, nil
		}
		if err != nil {
			return "", false, fmt.Errorf("reading HEAD: %w", err)
		}
		c, err := gg.CommitObject(ref.Hash())
		if err != nil {
			return "", false, fmt.Errorf("reading HEAD commit %s: %w", ref.Hash(), err)
		}
		return c.Hash.String(), false, nil
	}
	if !r.gitUsable() {
		return "", false, r.layoutError(gerr)
	}
	out, err := r.runSimple(ctx, r.root, "rev-parse", "--verify", "--quiet", "--end-of-options", "HEAD^{commit}")
	if err != nil {
		var gf *ErrGitFailed
		if errors.As(err, &gf) && gf.Exit == 1 {
			return "", true, nil
		}
		return "", false, err
	}
	oid = strings.TrimSuffix(string(out), "\n")
	if !IsFullOID(oid) {
		return "", false, &ErrGitFailed{Cmd: "rev-parse", Exit: -1, Stderr: "unexpected output: " + oid}
	}
	return oid, false, nil
}

// layoutError is the §6 step 1 error: no usable git and go-git cannot read this layout.
func (r *Repo) layoutError(gerr error) error {
	if errors.Is(gerr, ErrSHA256Repository) || errors.Is(gerr, ErrNotRepository) {
		return gerr
	}
	return fmt.Errorf("no usable git binary, and this repository layout is not supported by the built-in reader (%v)", gerr)
}

// ValidateBaseline checks that oid (40 lowercase hex) is a commit in the object database, or is
// EmptyTreeOID (checked as a tree). With git >= 2.24 it runs `git rev-parse --verify --quiet
// --end-of-options <oid>^{commit}` and requires exactly oid back; without, go-git looks the
// commit up. Failure is ErrBaselineUnavailable (or *ErrDubiousOwnership).
func (r *Repo) ValidateBaseline(ctx context.Context, oid string) error {
	if !IsFullOID(oid) {
		return fmt.Errorf("baseline %q is not a full 40-hex object id: %w", oid, ErrBaselineUnavailable)
	}
	if r.gitUsable() {
		return r.validateCLI(ctx, oid)
	}
	gg, release, err := r.goGit()
	defer release()
	if err != nil {
		return r.layoutError(err)
	}
	if oid == EmptyTreeOID {
		return nil // git knows the empty tree without storing it
	}
	if _, err := gg.CommitObject(plumbing.NewHash(oid)); err != nil {
		return ErrBaselineUnavailable
	}
	return nil
}

// validateCLI is the §4.3 rev-parse check.
func (r *Repo) validateCLI(ctx context.Context, oid string) error {
	peel := "^{commit}"
	if oid == EmptyTreeOID {
		peel = "^{tree}"
	}
	out, err := r.runSimple(ctx, r.root, "rev-parse", "--verify", "--quiet", "--end-of-options", oid+peel)
	if err != nil {
		var dub *ErrDubiousOwnership
		if errors.As(err, &dub) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// --verify --quiet exits 1 silently when the object is missing; anything else, such as a
		// fatal configuration error with exit 128, is git failing, not a lost baseline.
		var gf *ErrGitFailed
		if errors.As(err, &gf) && strings.Contains(gf.Stderr, "hash mismatch") {
			// git hashes the commit it peels: its object file holds another object.
			return fmt.Errorf("%w: object %s (the baseline commit) does not hash to its id", ErrObjectStoreModified, oid)
		}
		if errors.As(err, &gf) && gf.Exit != 1 && strings.TrimSpace(gf.Stderr) != "" {
			return err
		}
		return ErrBaselineUnavailable
	}
	if string(out) != oid+"\n" {
		return ErrBaselineUnavailable
	}
	return nil
}

// checkRevision applies the §4.3 form rules to a user-given REV.
func checkRevision(rev string) error {
	switch {
	case rev == "":
		return fmt.Errorf("%w: empty revision", ErrInvalidRevision)
	case len(rev) > maxRevisionBytes:
		return fmt.Errorf("%w: revision longer than %d bytes", ErrInvalidRevision, maxRevisionBytes)
	case strings.IndexByte(rev, 0) >= 0:
		return fmt.Errorf("%w: revision contains a NUL byte", ErrInvalidRevision)
	case rev[0] == '-':
		return fmt.Errorf("%w: revision %q starts with '-'", ErrInvalidRevision, rev)
	}
	return nil
}

// ResolveRevision resolves a user-given REV such as a ref, a SHA or HEAD~2 to the full OID of the
// commit it names, after checking the form rules of gitscope.md §4.3. A REV naming no commit is
// ErrRevisionNotFound; EmptyTreeOID resolves to itself.
func (r *Repo) ResolveRevision(ctx context.Context, rev string) (string, error) {
	if err := checkRevision(rev); err != nil {
		return "", err
	}
	if rev == EmptyTreeOID {
		return rev, r.ValidateBaseline(ctx, rev)
	}
	if r.gitUsable() {
		out, err := r.runSimple(ctx, r.root, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
		if err != nil {
			// Exit 1 without a message is "no such commit"; exit 128 with one is a broken
			// configuration or repository, reported as git failing.
			var gf *ErrGitFailed
			if errors.As(err, &gf) && gf.Exit >= 0 && (gf.Exit == 1 || strings.TrimSpace(gf.Stderr) == "") {
				return "", fmt.Errorf("%q %w", rev, ErrRevisionNotFound)
			}
			return "", err
		}
		oid := strings.TrimSuffix(string(out), "\n")
		if !IsFullOID(oid) {
			return "", &ErrGitFailed{Cmd: "rev-parse", Exit: -1, Stderr: "unexpected output: " + oid}
		}
		return oid, nil
	}
	gg, release, err := r.goGit()
	defer release()
	if err != nil {
		return "", r.layoutError(err)
	}
	h, err := gg.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return "", fmt.Errorf("%q %w", rev, ErrRevisionNotFound)
	}
	c, err := peelToCommit(gg, *h)
	if err != nil {
		return "", fmt.Errorf("%q %w", rev, ErrRevisionNotFound)
	}
	return c.Hash.String(), nil
}

// peelToCommit follows annotated tags to a commit.
func peelToCommit(gg *git.Repository, h plumbing.Hash) (*object.Commit, error) {
	for range 16 {
		obj, err := gg.Object(plumbing.AnyObject, h)
		if err != nil {
			return nil, err
		}
		switch o := obj.(type) {
		case *object.Commit:
			return o, nil
		case *object.Tag:
			h = o.Target
		default:
			return nil, ErrCommitNotFound
		}
	}
	return nil, ErrCommitNotFound
}

// ResolveCommit resolves a commit SHA prefix of 4–40 hex digits to the full OID and the subject
// line. Errors are ErrCommitNotFound and *AmbiguousError.
func (r *Repo) ResolveCommit(ctx context.Context, prefix string) (oid, subject string, err error) {
	if err := checkRevision(prefix); err != nil {
		return "", "", ErrCommitNotFound
	}
	p := strings.ToLower(prefix)
	if len(p) < 4 || len(p) > 40 || strings.Trim(p, "0123456789abcdef") != "" {
		return "", "", ErrCommitNotFound
	}
	if r.gitUsable() {
		return r.resolveCommitCLI(ctx, p)
	}
	gg, release, gerr := r.goGit()
	defer release()
	if gerr != nil {
		return "", "", r.layoutError(gerr)
	}
	return resolveCommitGoGit(gg, p)
}

func (r *Repo) resolveCommitCLI(ctx context.Context, p string) (string, string, error) {
	out, err := r.runSimple(ctx, r.root, "rev-parse", "--verify", "--end-of-options", p+"^{commit}")
	if err != nil {
		var gf *ErrGitFailed
		if !errors.As(err, &gf) || gf.Exit < 0 {
			return "", "", err
		}
		if strings.Contains(gf.Stderr, "is ambiguous") {
			n := 0
			for _, l := range strings.Split(gf.Stderr, "\n") {
				f := strings.Fields(strings.TrimPrefix(l, "hint:"))
				if strings.HasPrefix(l, "hint:") && len(f) >= 2 && len(f[0]) >= len(p) && strings.HasPrefix(f[0], p) {
					n++
				}
			}
			return "", "", &AmbiguousError{Prefix: p, Matches: n}
		}
		return "", "", ErrCommitNotFound
	}
	oid := strings.TrimSuffix(string(out), "\n")
	if !IsFullOID(oid) {
		return "", "", &ErrGitFailed{Cmd: "rev-parse", Exit: -1, Stderr: "unexpected output: " + oid}
	}
	subj, err := r.runSimple(ctx, r.root, "log", "-1", "--no-show-signature", "--no-color", "--format=%s", "--end-of-options", oid, "--")
	if err != nil {
		return "", "", err
	}
	return oid, strings.TrimSuffix(string(subj), "\n"), nil
}

func resolveCommitGoGit(gg *git.Repository, p string) (string, string, error) {
	if len(p) == 40 {
		c, err := gg.CommitObject(plumbing.NewHash(p))
		if err != nil {
			return "", "", ErrCommitNotFound
		}
		return c.Hash.String(), subjectOf(c.Message), nil
	}
	iter, err := gg.Storer.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		return "", "", err
	}
	defer iter.Close()
	var matches []plumbing.Hash
	seen := map[plumbing.Hash]bool{}
	err = iter.ForEach(func(o plumbing.EncodedObject) error {
		h := o.Hash()
		if strings.HasPrefix(h.String(), p) && !seen[h] {
			seen[h] = true
			matches = append(matches, h)
		}
		return nil
	})
	if err != nil {
		return "", "", err
	}
	var commits []*object.Commit
	for _, h := range matches {
		if c, err := gg.CommitObject(h); err == nil {
			commits = append(commits, c)
		}
	}
	switch {
	case len(commits) == 1:
		return commits[0].Hash.String(), subjectOf(commits[0].Message), nil
	case len(commits) > 1:
		return "", "", &AmbiguousError{Prefix: p, Matches: len(matches)}
	}
	return "", "", ErrCommitNotFound
}

// subjectOf is the first line of a commit message.
func subjectOf(msg string) string {
	line, _, _ := strings.Cut(msg, "\n")
	return strings.TrimSuffix(line, "\r")
}

// baselineTree returns the tree of baseline (nil for EmptyTreeOID).
func baselineTree(gg *git.Repository, baseline string) (*object.Tree, error) {
	if baseline == EmptyTreeOID {
		return nil, nil
	}
	c, err := gg.CommitObject(plumbing.NewHash(baseline))
	if err != nil {
		return nil, ErrBaselineUnavailable
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("reading baseline tree %s: %w", c.TreeHash, err)
	}
	return t, nil
}

// entryTypeOf maps a tree entry mode to an EntryType.
func entryTypeOf(m filemode.FileMode) EntryType {
	switch m {
	case filemode.Dir:
		return EntryTree
	case filemode.Symlink:
		return EntryLink
	case filemode.Submodule:
		return EntryGitlink
	}
	return EntryBlob
}

// BaselineEntries reports, for each repository-relative path ('/'-separated, no trailing slash),
// whether the baseline tree has it and as what: EntryAbsent, EntryBlob, EntryLink, EntryGitlink or
// EntryTree. With a usable git one batched `git ls-tree` answers; without, go-git reads the
// trees (each directory's once). A tree object that cannot be read is an error, never an absent
// path.
func (r *Repo) BaselineEntries(ctx context.Context, baseline string, paths []string) (map[string]EntryType, error) {
	if !IsFullOID(baseline) {
		return nil, ErrBaselineUnavailable
	}
	out := make(map[string]EntryType, len(paths))
	for _, p := range paths {
		out[p] = EntryAbsent
	}
	if baseline == EmptyTreeOID || len(paths) == 0 {
		return out, nil
	}
	if r.gitUsable() {
		// One git process reads the pack index through mmap, while go-git's first object read
		// decodes the whole index, about 35 ms of CPU at 100,000 objects.
		return out, r.lsTreeEntries(ctx, baseline, paths, out)
	}
	gg, release, gerr := r.goGit()
	defer release()
	if gerr != nil {
		return nil, r.layoutError(gerr)
	}
	root, err := baselineTree(gg, baseline)
	if err != nil {
		return nil, err
	}
	w := newTreeWalker(gg, root)
	for _, p := range paths {
		if p == "" || p == "." {
			out[p] = EntryTree
			continue
		}
		e, err := w.entry(p)
		if err != nil {
			return nil, err
		}
		if e != nil {
			out[p] = entryTypeOf(e.Mode)
		}
	}
	return out, nil
}

// treeWalker looks paths up in one baseline tree, reading each directory's tree object once.
// Unlike go-git's Tree.FindEntry, it reports a missing or corrupt tree object as an error, so an
// executor that deletes one cannot make a baseline file look absent.
type treeWalker struct {
	gg   *git.Repository
	dirs map[string]*object.Tree // "" is the root
}

func newTreeWalker(gg *git.Repository, root *object.Tree) *treeWalker {
	return &treeWalker{gg: gg, dirs: map[string]*object.Tree{"": root}}
}

// entry returns the tree entry at the repository-relative path p, nil when the baseline has no
// such path, or an error when a tree object on the way cannot be read.
func (w *treeWalker) entry(p string) (*object.TreeEntry, error) {
	dir, base := path.Split(p)
	t, err := w.tree(strings.TrimSuffix(dir, "/"))
	if t == nil || err != nil {
		return nil, err
	}
	return findTreeEntry(t, base), nil
}

// tree returns the tree object of directory d ("" for the root), nil when the baseline has no
// such directory.
func (w *treeWalker) tree(d string) (*object.Tree, error) {
	if t, ok := w.dirs[d]; ok {
		return t, nil
	}
	parent, base := "", d
	if i := strings.LastIndexByte(d, '/'); i >= 0 {
		parent, base = d[:i], d[i+1:]
	}
	pt, err := w.tree(parent)
	if err != nil {
		return nil, err // not cached: every later lookup below d fails the same way
	}
	if pt == nil {
		w.dirs[d] = nil
		return nil, nil
	}
	e := findTreeEntry(pt, base)
	if e == nil || e.Mode != filemode.Dir {
		w.dirs[d] = nil
		return nil, nil
	}
	t, err := w.gg.TreeObject(e.Hash)
	if err != nil {
		return nil, fmt.Errorf("reading baseline tree %s (%s): %w", d, e.Hash, err)
	}
	w.dirs[d] = t
	return t, nil
}

// findTreeEntry returns t's entry named name, or nil.
func findTreeEntry(t *object.Tree, name string) *object.TreeEntry {
	for i := range t.Entries {
		if t.Entries[i].Name == name {
			return &t.Entries[i]
		}
	}
	return nil
}

// lsTreeEntries is BaselineEntries through `git ls-tree -z -t --full-tree <oid> -- <paths>` in
// chunks of lsTreeChunk literal paths. A path the baseline does not have is not listed, and a
// tree object git cannot read fails the command, never an absent path.
func (r *Repo) lsTreeEntries(ctx context.Context, baseline string, paths []string, out map[string]EntryType) error {
	var want []string
	for _, p := range paths {
		if p == "" || p == "." {
			out[p] = EntryTree
			continue
		}
		want = append(want, p)
	}
	for chunk := range slices.Chunk(want, lsTreeChunk) {
		args := append([]string{"ls-tree", "-z", "-t", "--full-tree", "--end-of-options", baseline, "--"}, chunk...)
		b, err := r.runSimple(ctx, r.root, args...)
		if err != nil {
			return err
		}
		for _, rec := range bytes.Split(b, []byte{0}) {
			if len(rec) == 0 {
				continue
			}
			meta, name, ok := bytes.Cut(rec, []byte{'\t'})
			f := strings.Fields(string(meta))
			if !ok || len(f) != 3 {
				return &ErrGitFailed{Cmd: "ls-tree", Exit: -1, Stderr: "unexpected output: " + truncateForMessage(rec)}
			}
			m, err := filemode.New(f[0])
			if err != nil {
				return &ErrGitFailed{Cmd: "ls-tree", Exit: -1, Stderr: "unexpected mode " + f[0]}
			}
			if _, asked := out[string(name)]; asked {
				out[string(name)] = entryTypeOf(m)
			}
		}
	}
	return nil
}

// lsTreeChunk bounds the paths of one ls-tree command line, far below ARG_MAX for any path
// length git allows.
const lsTreeChunk = 1000

// BaselineBlob returns the bytes of path in the baseline tree. ok is false when the path is
// absent or is not a blob (a directory or gitlink); a symlink yields its target text. Blobs over
// 256 MiB are an error. go-git reads it; `git ls-tree` + `git cat-file blob` do when go-git cannot
// open the layout.
func (r *Repo) BaselineBlob(ctx context.Context, baseline, p string) (data []byte, ok bool, err error) {
	if !IsFullOID(baseline) {
		return nil, false, ErrBaselineUnavailable
	}
	if baseline == EmptyTreeOID || p == "" {
		return nil, false, nil
	}
	gg, release, gerr := r.goGit()
	defer release()
	if gerr != nil {
		if !r.gitUsable() {
			return nil, false, r.layoutError(gerr)
		}
		return r.catFileBlob(ctx, baseline, p)
	}
	root, err := baselineTree(gg, baseline)
	if err != nil {
		return nil, false, err
	}
	e, err := newTreeWalker(gg, root).entry(p)
	if err != nil {
		return nil, false, err
	}
	if e == nil {
		return nil, false, nil
	}
	if et := entryTypeOf(e.Mode); et != EntryBlob && et != EntryLink {
		return nil, false, nil
	}
	blob, err := gg.BlobObject(e.Hash)
	if err != nil {
		return nil, false, fmt.Errorf("reading baseline blob %s (%s): %w", p, e.Hash, err)
	}
	if blob.Size > maxBlobBytes {
		return nil, false, fmt.Errorf("baseline blob %s is %d bytes, over the %d-byte limit", p, blob.Size, maxBlobBytes)
	}
	rd, err := blob.Reader()
	if err != nil {
		return nil, false, err
	}
	defer rd.Close()
	data, err = io.ReadAll(rd)
	if err != nil {
		return nil, false, fmt.Errorf("reading baseline blob %s: %w", p, err)
	}
	return data, true, nil
}

func (r *Repo) catFileBlob(ctx context.Context, baseline, p string) ([]byte, bool, error) {
	b, err := r.runSimple(ctx, r.root, "ls-tree", "-z", "--full-tree", baseline, "--", p)
	if err != nil {
		return nil, false, err
	}
	rec, _, _ := bytes.Cut(b, []byte{0})
	meta, name, found := bytes.Cut(rec, []byte{'\t'})
	f := strings.Fields(string(meta))
	if !found || len(f) != 3 || string(name) != p || f[1] != "blob" || !IsFullOID(f[2]) {
		return nil, false, nil
	}
	var data []byte
	err = r.run(ctx, r.root, "cat-file", append(slices.Clone(globalArgs), "cat-file", "blob", f[2]), func(rd io.Reader) error {
		d, err := io.ReadAll(io.LimitReader(rd, maxBlobBytes+1))
		if len(d) > maxBlobBytes {
			return shapef("blob over %d bytes", maxBlobBytes)
		}
		data = d
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}
