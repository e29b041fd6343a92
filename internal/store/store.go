package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// File and folder names inside the store.
const (
	reposDir = "repos"
	// worktreesDir maps SHA-256(real work-tree path) to the repo id last used for it (checkKey).
	worktreesDir = "worktrees"
	tasksDir     = "tasks"
	repoFile     = "repo.json"
	recordFile   = "state.json"
	lockFile     = "lock"
	mirrorsDir   = "mirrors"
	receiptsDir  = "receipts"
	// snapshotsDir holds the pre-flight snapshot blobs (Put).
	snapshotsDir = "snapshots"
)

// Limits on what the store reads back, in bytes.
const (
	MaxCopyBytes     = 256 << 20 // a mirror copy, such as audit.md of a very large changed set
	maxRepoFileBytes = 64 << 10
)

// validEntryName reports whether name is one plain file name the store may create: not empty,
// without a separator, and not starting with a dot as the store's temporary names do.
func validEntryName(name string) bool {
	return name != "" && name[0] != '.' && !strings.ContainsAny(name, "/\\\x00") && len(name) <= 255
}

// Store is an open controller store.
type Store struct {
	root string
	dir  *fsx.Dir
}

// Open opens the store at the absolute root, creating it with mode 0700 when it is missing. root
// itself may be reached through symbolic links, the user's choice; nothing below it is followed.
func Open(root string) (*Store, error) {
	if !filepath.IsAbs(root) {
		return nil, &Error{Kind: KindNoLocation, Err: fmt.Errorf("store root %q is not absolute", root)}
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, wrap("create", root, err)
	}
	d, err := fsx.OpenDir(root, "")
	if err != nil {
		return nil, wrap("open", root, err)
	}
	return &Store{root: root, dir: d}, nil
}

// OpenExisting opens the store at root for readers that must not create it (status, the gate):
// a root that does not exist is (nil, nil).
func OpenExisting(root string) (*Store, error) {
	if _, err := os.Stat(root); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	d, err := fsx.OpenDir(root, "")
	if err != nil {
		return nil, wrap("open", root, err)
	}
	return &Store{root: root, dir: d}, nil
}

// Root returns the store root.
func (s *Store) Root() string { return s.root }

// Close releases the store's directory handle.
func (s *Store) Close() error { return s.dir.Close() }

// RepoRef names one work tree for the store by its own git directory, whose real path gives the
// RepoID, and its top-level directory, both absolute. They are written to repo.json so that GC
// can tell whether the repository still exists.
type RepoRef struct {
	GitDir   string `json:"git_dir"`
	WorkTree string `json:"work_tree"`
}

// RepoPath returns the store folder of a work tree, whether or not it exists.
func (s *Store) RepoPath(gitDir string) (string, error) {
	id, err := RepoID(gitDir)
	if err != nil {
		return "", wrap("resolve", gitDir, err)
	}
	return filepath.Join(s.root, reposDir, id), nil
}

// TaskPath returns the store folder of a task, whether or not it exists.
func (s *Store) TaskPath(gitDir, task string) (string, error) {
	rp, err := s.RepoPath(gitDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, tasksDir, task), nil
}

// OpenTask opens the store folder of task in the work tree repo, creating it with mode 0700 when
// missing. task must be a plain folder name, and the returned Task holds a directory handle to
// Close.
func (s *Store) OpenTask(repo RepoRef, task string) (*Task, error) {
	if !validEntryName(task) {
		return nil, &Error{Kind: KindUnsafe, Op: "open task", Path: task, Err: errors.New("not a task folder name")}
	}
	repo, id, err := s.resolveRepo(repo)
	if err != nil {
		return nil, err
	}
	if err := s.checkKey(repo, id, task); err != nil {
		return nil, err
	}
	rd, err := s.makeRepoDir(repo, id)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	td, err := rd.MkdirSub(tasksDir, 0o700)
	if err != nil {
		return nil, wrap("create", rd.Path(), err)
	}
	defer td.Close()
	d, err := td.MkdirSub(task, 0o700)
	if err != nil {
		return nil, wrap("create", td.Path(), err)
	}
	return &Task{dir: d, name: task, repoID: id}, nil
}

// FindTask opens the store folder of task in the work tree whose git directory is gitDir
// without creating anything, for readers that must not write (status, the gate). A task the store
// has no folder for is (nil, nil).
func (s *Store) FindTask(gitDir, task string) (*Task, error) {
	id, err := RepoID(gitDir)
	if err != nil {
		return nil, wrap("resolve", gitDir, err)
	}
	return s.FindTaskIn(id, task)
}

// FindTaskIn is FindTask in the store folder repos/<id>, one of RepoIDs.
func (s *Store) FindTaskIn(id, task string) (*Task, error) {
	if !validEntryName(task) {
		return nil, &Error{Kind: KindUnsafe, Op: "open task", Path: task, Err: errors.New("not a task folder name")}
	}
	d, err := s.findRepoDirIn(id, tasksDir+"/"+task)
	if d == nil {
		return nil, err
	}
	return &Task{dir: d, name: task, repoID: id}, nil
}

// RepoIDs lists the ids of the store folders that hold records of the work tree workTree whose
// git directory is gitDir: gitDir's own first, then every other id its records were written
// under (checkKey), so that moving the git directory hides none of them from the gate.
func (s *Store) RepoIDs(gitDir, workTree string) ([]string, error) {
	id, err := RepoID(gitDir)
	if err != nil {
		return nil, wrap("resolve", gitDir, err)
	}
	ids := []string{id}
	wt, err := filepath.EvalSymlinks(workTree)
	if err != nil {
		return nil, wrap("resolve", workTree, err)
	}
	name := fsx.SHA256Hex([]byte(wt))
	data, err := fsx.ReadInRoot(s.root, worktreesDir+"/"+name, maxRepoFileBytes)
	switch {
	case fsx.ReasonOf(err) == fsx.ReasonMissing:
		return ids, nil
	case err != nil:
		return nil, wrap("read", filepath.Join(s.root, worktreesDir, name), err)
	}
	var keys []worktreeKey
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, &Error{Kind: KindCorrupt, Op: "read", Path: filepath.Join(s.root, worktreesDir, name), Err: err}
	}
	for _, k := range keys {
		if hex64.MatchString(k.RepoID) && !slices.Contains(ids, k.RepoID) {
			ids = append(ids, k.RepoID)
		}
	}
	return ids, nil
}

// TaskNames lists, sorted, the task records in the store folder repos/<id> (one of RepoIDs)
// without creating anything, for the gate's check that every recorded task still has its folder.
// A folder the store does not have holds none.
func (s *Store) TaskNames(id string) ([]string, error) {
	d, err := s.findRepoDirIn(id, tasksDir)
	if d == nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Names()
	if err != nil {
		return nil, wrap("list", d.Path(), err)
	}
	out := names[:0]
	for _, n := range names {
		if validEntryName(n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// findRepoDirIn opens sub, a slash-separated path below the store folder repos/<id>, without
// creating anything. A missing folder is a nil handle and a nil error.
func (s *Store) findRepoDirIn(id, sub string) (*fsx.Dir, error) {
	if !hex64.MatchString(id) {
		return nil, &Error{Kind: KindUnsafe, Op: "open", Path: id, Err: errors.New("not a repo id")}
	}
	rel := reposDir + "/" + id
	if sub != "" {
		rel += "/" + sub
	}
	d, err := fsx.OpenDir(s.root, rel)
	if fsx.ReasonOf(err) == fsx.ReasonMissing {
		return nil, nil
	}
	if err != nil {
		return nil, wrap("open", filepath.Join(s.root, filepath.FromSlash(rel)), err)
	}
	return d, nil
}

// resolveRepo returns repo with its git directory's real path, and its RepoID, after refusing a
// store inside its work tree.
func (s *Store) resolveRepo(repo RepoRef) (RepoRef, string, error) {
	real, err := filepath.EvalSymlinks(repo.GitDir)
	if err != nil {
		return repo, "", wrap("resolve", repo.GitDir, err)
	}
	repo.GitDir = real
	id, err := RepoID(real)
	if err != nil {
		return repo, "", wrap("resolve", repo.GitDir, err)
	}
	if err := s.checkOutside(repo.WorkTree); err != nil {
		return repo, "", err
	}
	return repo, id, nil
}

// makeRepoDir opens the store folder repos/<id>, creating it with mode 0700 when missing, and
// writes repo.json there. Close the returned handle.
func (s *Store) makeRepoDir(repo RepoRef, id string) (*fsx.Dir, error) {
	repos, err := s.dir.MkdirSub(reposDir, 0o700)
	if err != nil {
		return nil, wrap("create", filepath.Join(s.root, reposDir), err)
	}
	defer repos.Close()
	rd, err := repos.MkdirSub(id, 0o700)
	if err != nil {
		return nil, wrap("create", repos.Path(), err)
	}
	if err := writeRepoFile(rd, repo); err != nil {
		rd.Close()
		return nil, err
	}
	return rd, nil
}

// writeRepoFile writes repo.json unless it already says the same.
func writeRepoFile(rd *fsx.Dir, repo RepoRef) error {
	data, err := json.MarshalIndent(repo, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	old, err := rd.ReadFile(repoFile, maxRepoFileBytes)
	if err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err != nil && fsx.ReasonOf(err) != fsx.ReasonMissing {
		return wrap("read", filepath.Join(rd.Path(), repoFile), err)
	}
	return wrap("write", filepath.Join(rd.Path(), repoFile), rd.WriteFileAtomic(repoFile, data, 0o600))
}

// Task is one task's store folder, open.
type Task struct {
	dir    *fsx.Dir
	name   string
	repoID string
}

// Path returns the task's store folder.
func (t *Task) Path() string { return t.dir.Path() }

// RepoID returns the id of the task's work tree.
func (t *Task) RepoID() string { return t.repoID }

// Close releases the folder handle, not a lock taken with Lock.
func (t *Task) Close() error { return t.dir.Close() }

// Lock takes the task's store lock without waiting. A busy lock is an *Error of KindBusy. The
// store lock, not the task folder's, is what excludes a second controller: the executor can
// delete the task folder's lock file.
func (t *Task) Lock() (*fsx.Lock, error) {
	l, err := t.dir.TryLock(lockFile)
	if err != nil {
		return nil, wrap("lock", filepath.Join(t.Path(), lockFile), err)
	}
	return l, nil
}

// Load reads the task's record. No record is (nil, nil). A record that is not a regular file,
// too large, not strict JSON or fails its checks is an *Error of KindCorrupt (or KindUnsafe), and
// the file is left as it is.
func (t *Task) Load() (*Record, error) {
	p := filepath.Join(t.Path(), recordFile)
	data, err := t.dir.ReadFile(recordFile, MaxRecordBytes)
	if err != nil {
		if fsx.ReasonOf(err) == fsx.ReasonMissing {
			return nil, nil
		}
		if r := fsx.ReasonOf(err); r == fsx.ReasonTooLarge || r == fsx.ReasonUnstable {
			return nil, &Error{Kind: KindCorrupt, Op: "read", Path: p, Err: err}
		}
		return nil, wrap("read", p, err)
	}
	r, err := parseRecord(data, t.name)
	if err != nil {
		return nil, &Error{Kind: KindCorrupt, Op: "read", Path: p, Err: err}
	}
	return r, nil
}

// Save writes r as the task's record atomically, then removes mirror copies that r no longer
// names. It sets RecordVersion, Task and UpdatedAt.
func (t *Task) Save(r *Record, now time.Time) error {
	r.RecordVersion, r.Task, r.UpdatedAt = RecordVersion, t.name, now.Unix()
	p := filepath.Join(t.Path(), recordFile)
	if err := r.validate(t.name); err != nil {
		return &Error{Kind: KindCorrupt, Op: "write", Path: p, Err: fmt.Errorf("internal error: refusing to write an invalid record: %w", err)}
	}
	data, err := marshalRecord(r)
	if err != nil {
		return &Error{Kind: KindIO, Op: "write", Path: p, Err: err}
	}
	if err := t.dir.WriteFileAtomic(recordFile, data, 0o600); err != nil {
		return wrap("write", p, err)
	}
	t.pruneCopies(r)
	return nil
}

// KeepCopy stores a copy of data, a mirror the controller is about to write, under its SHA-256,
// and returns that hash. Copy reads it back, so a tampered mirror can be rewritten from the store.
func (t *Task) KeepCopy(data []byte) (string, error) {
	h := fsx.SHA256Hex(data)
	md, err := t.dir.MkdirSub(mirrorsDir, 0o700)
	if err != nil {
		return "", wrap("create", filepath.Join(t.Path(), mirrorsDir), err)
	}
	defer md.Close()
	if old, err := md.ReadFile(h, MaxCopyBytes); err == nil && fsx.SHA256Hex(old) == h {
		return h, nil
	}
	return h, wrap("write", filepath.Join(md.Path(), h), md.WriteFileAtomic(h, data, 0o600))
}

// CopyWriter is a mirror copy being written by streaming (NewCopy): the content is hashed as it is
// written to a temporary file in the mirrors folder, and Commit stores it under its SHA-256.
type CopyWriter struct {
	md *fsx.Dir
	af *fsx.AtomicFile
	h  hash.Hash
}

// NewCopy starts a mirror copy, the streaming form of KeepCopy for a mirror too large to hold in
// memory. Write the content, then Commit or Abort; nothing is visible to Copy before Commit.
func (t *Task) NewCopy() (*CopyWriter, error) {
	md, err := t.dir.MkdirSub(mirrorsDir, 0o700)
	if err != nil {
		return nil, wrap("create", filepath.Join(t.Path(), mirrorsDir), err)
	}
	af, err := md.CreateAtomicUnnamed("copy", 0o600)
	if err != nil {
		md.Close()
		return nil, wrap("write", md.Path(), err)
	}
	return &CopyWriter{md: md, af: af, h: sha256.New()}, nil
}

// Write writes p to the copy.
func (c *CopyWriter) Write(p []byte) (int, error) {
	c.h.Write(p)
	n, err := c.af.Write(p)
	if err != nil {
		err = wrap("write", c.md.Path(), err)
	}
	return n, err
}

// Sum is the lowercase hex SHA-256 of what was written so far.
func (c *CopyWriter) Sum() string { return hex.EncodeToString(c.h.Sum(nil)) }

// Commit stores the copy, fsynced, under its SHA-256 and returns that hash. A failure removes
// the temporary file.
func (c *CopyWriter) Commit() (string, error) {
	defer c.md.Close()
	h := c.Sum()
	if err := c.af.CommitAs(h); err != nil {
		return h, wrap("write", filepath.Join(c.md.Path(), h), err)
	}
	return h, nil
}

// Abort discards the copy.
func (c *CopyWriter) Abort() {
	c.af.Abort()
	c.md.Close()
}

// CopyTo writes the mirror copy whose SHA-256 is h to w by streaming (OpenCopy). w may have
// received content that the caller must discard when an error is returned.
func (t *Task) CopyTo(h string, w io.Writer) error {
	r, err := t.OpenCopy(h)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = io.Copy(w, r)
	return err
}

// CopyReader reads a mirror copy by streaming (OpenCopy) and verifies it at its end.
type CopyReader struct {
	f    io.ReadCloser
	r    io.Reader
	sum  hash.Hash
	n    int64
	h    string
	path string
}

// OpenCopy opens the mirror copy whose SHA-256 is h for reading by streaming, at most
// MaxCopyBytes. The copy is verified only once it is read whole: a missing copy, one larger than
// MaxCopyBytes or one whose content does not hash to h is an *Error of KindCorrupt, returned
// instead of io.EOF, and what was read before must then be discarded.
func (t *Task) OpenCopy(h string) (*CopyReader, error) {
	p := filepath.Join(t.Path(), mirrorsDir, h)
	if !hex64.MatchString(h) {
		return nil, &Error{Kind: KindCorrupt, Op: "read", Path: p, Err: errors.New("not a SHA-256")}
	}
	md, err := t.dir.Sub(mirrorsDir)
	if err != nil {
		if fsx.ReasonOf(err) == fsx.ReasonMissing {
			return nil, &Error{Kind: KindCorrupt, Op: "read", Path: p, Err: errors.New("no mirror copy")}
		}
		return nil, wrap("open", filepath.Join(t.Path(), mirrorsDir), err)
	}
	defer md.Close()
	f, err := md.OpenFile(h)
	if err != nil {
		if fsx.ReasonOf(err) == fsx.ReasonMissing {
			return nil, &Error{Kind: KindCorrupt, Op: "read", Path: p, Err: errors.New("no mirror copy")}
		}
		return nil, wrap("read", p, err)
	}
	return &CopyReader{f: f, r: io.LimitReader(f, MaxCopyBytes+1), sum: sha256.New(), h: h, path: p}, nil
}

// Read reads the copy; at its end it returns io.EOF only when the copy is the one named.
func (c *CopyReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.sum.Write(p[:n])
	c.n += int64(n)
	if c.n > MaxCopyBytes {
		return 0, &Error{Kind: KindCorrupt, Op: "read", Path: c.path, Err: fmt.Errorf("more than %d bytes", MaxCopyBytes)}
	}
	switch {
	case err == io.EOF && hex.EncodeToString(c.sum.Sum(nil)) != c.h:
		return n, &Error{Kind: KindCorrupt, Op: "read", Path: c.path, Err: errors.New("the copy does not match its hash")}
	case err != nil && err != io.EOF:
		return n, wrap("read", c.path, err)
	}
	return n, err
}

// Close closes the copy.
func (c *CopyReader) Close() error { return c.f.Close() }

// Copy returns the mirror copy whose SHA-256 is h, read whole through CopyTo: a missing copy, one
// larger than MaxCopyBytes or one whose content does not hash to h is an *Error of KindCorrupt.
func (t *Task) Copy(h string) ([]byte, error) {
	var b bytes.Buffer
	if err := t.CopyTo(h, &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// pruneCopies removes mirror copies other than the current versions and the result r names, the
// only ones ever read. Failures are ignored: a stray copy costs space, never correctness.
func (t *Task) pruneCopies(r *Record) {
	md, err := t.dir.Sub(mirrorsDir)
	if err != nil {
		return
	}
	defer md.Close()
	keep := map[string]bool{}
	for _, m := range r.Mirrors {
		keep[m.SHA256] = true
	}
	if r.Result != nil {
		keep[r.Result.SHA256] = true
	}
	names, err := md.Names()
	if err != nil {
		return
	}
	for _, n := range names {
		if !keep[n] {
			_ = md.Remove(n, false)
		}
	}
}

// Put stores a pre-flight snapshot blob under name, replacing any previous one atomically. With
// Open and SnapshotPath it implements gitscope.SnapshotStore and gitscope.LocalSnapshotStore;
// name is '/'-separated, each component a plain name not starting with a dot.
func (t *Task) Put(name string, r io.Reader) error {
	parts, err := snapshotParts(name)
	if err != nil {
		return err
	}
	d, err := t.snapshotDir(parts[:len(parts)-1], true)
	if err != nil {
		return err
	}
	defer d.Close()
	last := parts[len(parts)-1]
	return wrap("write", filepath.Join(d.Path(), last), d.WriteAtomicFrom(last, r, 0o600))
}

// Open returns the snapshot blob name for reading. A blob never stored is an error for which
// errors.Is(err, fs.ErrNotExist) holds; a symlink or special file there is KindUnsafe.
func (t *Task) Open(name string) (io.ReadCloser, error) {
	parts, err := snapshotParts(name)
	if err != nil {
		return nil, err
	}
	d, err := t.snapshotDir(parts[:len(parts)-1], false)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	f, err := d.OpenFile(parts[len(parts)-1])
	if err != nil {
		if fsx.ReasonOf(err) == fsx.ReasonMissing {
			return nil, fmt.Errorf("snapshot %s in %s: %w", name, t.Path(), fs.ErrNotExist)
		}
		return nil, wrap("read", filepath.Join(d.Path(), parts[len(parts)-1]), err)
	}
	return f, nil
}

// SnapshotPath returns the file of a stored snapshot blob (fs.ErrNotExist when none), for a
// caller that hard-links it rather than copying it (gitscope.LocalSnapshotStore).
func (t *Task) SnapshotPath(name string) (string, error) {
	parts, err := snapshotParts(name)
	if err != nil {
		return "", err
	}
	d, err := t.snapshotDir(parts[:len(parts)-1], false)
	if err != nil {
		return "", err
	}
	defer d.Close()
	fi, err := d.Lstat(parts[len(parts)-1])
	if err != nil {
		if fsx.ReasonOf(err) == fsx.ReasonMissing {
			return "", fmt.Errorf("snapshot %s in %s: %w", name, t.Path(), fs.ErrNotExist)
		}
		return "", wrap("stat", d.Path(), err)
	}
	if !fi.Mode().IsRegular() {
		return "", &Error{Kind: KindUnsafe, Op: "stat", Path: filepath.Join(d.Path(), parts[len(parts)-1]), Err: errors.New("not a regular file")}
	}
	return filepath.Join(d.Path(), parts[len(parts)-1]), nil
}

// snapshotParts splits and checks a snapshot name.
func snapshotParts(name string) ([]string, error) {
	parts := strings.Split(name, "/")
	for _, p := range parts {
		if !validEntryName(p) {
			return nil, &Error{Kind: KindUnsafe, Op: "snapshot", Path: name, Err: errors.New("snapshot names are '/'-separated plain names, none starting with a dot")}
		}
	}
	return parts, nil
}

// snapshotDir opens snapshots/<dirs...> below the task folder, creating it (0700) when create is
// set; a folder that does not exist without create is fs.ErrNotExist.
func (t *Task) snapshotDir(dirs []string, create bool) (*fsx.Dir, error) {
	d := t.dir // borrowed: never closed here
	for i, name := range append([]string{snapshotsDir}, dirs...) {
		var sub *fsx.Dir
		var err error
		if create {
			sub, err = d.MkdirSub(name, 0o700)
		} else {
			sub, err = d.Sub(name)
		}
		if i > 0 {
			d.Close()
		}
		if err != nil {
			if fsx.ReasonOf(err) == fsx.ReasonMissing {
				return nil, fmt.Errorf("snapshot folder %s in %s: %w", name, t.Path(), fs.ErrNotExist)
			}
			return nil, wrap("open", filepath.Join(t.Path(), name), err)
		}
		d = sub
	}
	return d, nil
}

// Receipts opens (creating with mode 0700) the task's receipts/ folder for verification receipts
// (verification-receipts.md). Close the returned handle.
func (t *Task) Receipts() (*fsx.Dir, error) {
	d, err := t.dir.MkdirSub(receiptsDir, 0o700)
	if err != nil {
		return nil, wrap("create", filepath.Join(t.Path(), receiptsDir), err)
	}
	return d, nil
}

// checkOutside refuses a store inside the work tree it keeps records of.
func (s *Store) checkOutside(workTree string) error { return CheckOutside(s.root, workTree) }

// CheckOutside refuses a store root inside workTree, out of the executor's reach as
// trust-model.md §3 requires, with an *Error of KindInWorkTree. Call it before Open creates the
// root; a missing root is judged by its deepest existing ancestor, and an empty workTree or an
// unresolvable path passes.
func CheckOutside(root, workTree string) error {
	if workTree == "" {
		return nil
	}
	wt, err := filepath.EvalSymlinks(workTree)
	if err != nil {
		return nil
	}
	real, rest := filepath.Clean(root), ""
	for {
		if r, err := filepath.EvalSymlinks(real); err == nil {
			real = filepath.Join(r, rest)
			break
		}
		parent := filepath.Dir(real)
		if parent == real {
			return nil
		}
		rest = filepath.Join(filepath.Base(real), rest)
		real = parent
	}
	if rel, err := filepath.Rel(wt, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return &Error{Kind: KindInWorkTree, Op: "open", Path: root, Err: fmt.Errorf("the controller store is inside the work tree %s", wt)}
	}
	return nil
}

// worktreeKey is one entry of worktrees/<sha256 of the real work-tree path>: a repo id the work
// tree's records were written under.
type worktreeKey struct {
	RepoID string `json:"repo_id"`
	GitDir string `json:"git_dir"`
}

// checkKey keeps, per work tree, every repo id its records were written under. A new id while
// another still holds a record of task would let a fresh record replace it and so reset the
// baseline; that is refused with KindRekeyed.
func (s *Store) checkKey(repo RepoRef, id, task string) error {
	if repo.WorkTree == "" {
		return nil
	}
	wt, err := filepath.EvalSymlinks(repo.WorkTree)
	if err != nil {
		return wrap("resolve", repo.WorkTree, err)
	}
	name := fsx.SHA256Hex([]byte(wt))
	wd, err := s.dir.MkdirSub(worktreesDir, 0o700)
	if err != nil {
		return wrap("create", filepath.Join(s.root, worktreesDir), err)
	}
	defer wd.Close()
	var keys []worktreeKey
	if data, err := wd.ReadFile(name, maxRepoFileBytes); err == nil {
		_ = json.Unmarshal(data, &keys)
	}
	known := false
	for _, k := range keys {
		if k.RepoID == id {
			known = true
			continue
		}
		if !hex64.MatchString(k.RepoID) {
			continue
		}
		if d, err := fsx.OpenDir(s.root, reposDir+"/"+k.RepoID+"/"+tasksDir+"/"+task); err == nil {
			_, serr := d.Lstat(recordFile)
			d.Close()
			if serr == nil {
				return &Error{Kind: KindRekeyed, Op: "open task", Path: filepath.Join(s.root, reposDir, k.RepoID, tasksDir, task),
					Err: fmt.Errorf("work tree %s had the git directory %s when task %s was recorded and has %s now", wt, k.GitDir, task, repo.GitDir)}
			}
		}
	}
	if known {
		return nil
	}
	data, err := json.MarshalIndent(append(keys, worktreeKey{RepoID: id, GitDir: repo.GitDir}), "", "  ")
	if err != nil {
		return err
	}
	return wrap("write", filepath.Join(wd.Path(), name), wd.WriteFileAtomic(name, append(data, '\n'), 0o600))
}

// hookRecordFile is the stop hook's loop-guard record in a task's store folder.
const hookRecordFile = "hook-block.json"

// maxHookRecordBytes bounds the loop-guard record read.
const maxHookRecordBytes = 64 << 10

// HookRecord is a task's loop-guard record file in its store folder (harness.RecordFile): the
// stop hook keeps it here rather than in the task folder, so it writes nothing in the work tree
// (trust-model.md I4) and leaves no name below .mastermind/ to fill (I3).
type HookRecord struct{ t *Task }

// HookRecord returns the task's loop-guard record file.
func (t *Task) HookRecord() HookRecord { return HookRecord{t} }

// ReadRecord returns the record's bytes, (nil, nil) when there is none.
func (h HookRecord) ReadRecord() ([]byte, error) {
	data, err := h.t.dir.ReadFile(hookRecordFile, maxHookRecordBytes)
	if fsx.ReasonOf(err) == fsx.ReasonMissing {
		return nil, nil
	}
	if err != nil {
		return nil, wrap("read", filepath.Join(h.t.Path(), hookRecordFile), err)
	}
	return data, nil
}

// WriteRecord replaces the record atomically (0600).
func (h HookRecord) WriteRecord(data []byte) error {
	return wrap("write", filepath.Join(h.t.Path(), hookRecordFile), h.t.dir.WriteFileAtomic(hookRecordFile, data, 0o600))
}
