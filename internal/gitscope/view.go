package gitscope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"golang.org/x/sync/errgroup"
)

// SnapshotView is the repository as a task's audit may read it (trust-model.md §4, §4.5): every
// answer comes from the baseline, the pre-flight snapshots, the work tree and verified objects.
// It is safe for concurrent use; Close stops the git processes it keeps.
type SnapshotView struct {
	r        *Repo
	baseline string
	store    SnapshotStore
	s        *inputsSnapshot
	objs     *auditObjects

	headOnce sync.Once
	head     string
	unborn   bool
	headErr  error

	csMu   sync.Mutex
	csDone bool
	cs     *ChangedSet
	csErr  error
	det    sinceDetail
	added  map[string]bool // paths the commits since the baseline add
}

// SnapshotView opens the view of the task whose pre-flight snapshot is in store, for baseline,
// reading nothing from the repository yet. It is ErrNoSnapshot when store holds none and an error
// when the snapshot is of another baseline.
func (r *Repo) SnapshotView(ctx context.Context, baseline string, store SnapshotStore) (*SnapshotView, error) {
	if !IsFullOID(baseline) {
		return nil, fmt.Errorf("baseline %q is not a full 40-hex object id: %w", baseline, ErrBaselineUnavailable)
	}
	s, err := loadSnapshot(store)
	if err != nil {
		return nil, err
	}
	if s.Baseline != baseline {
		return nil, fmt.Errorf("the pre-flight snapshot is of baseline %s, not %s; run pre-flight again", s.Baseline, baseline)
	}
	return &SnapshotView{r: r, baseline: baseline, store: store, s: s, objs: newAuditObjects(r, s)}, nil
}

// Baseline is the view's baseline.
func (v *SnapshotView) Baseline() string { return v.baseline }

// Close stops the view's git processes and removes its temporary files. The view must not be
// used afterwards.
func (v *SnapshotView) Close() error {
	v.objs.close()
	return nil
}

// ChangedSet is the task's complete changed set, computed once per view: the work tree against
// the pre-flight snapshots plus every path that differs between the baseline and HEAD, so that
// an edit committed and then reverted is still a changed path (hardening A1).
func (v *SnapshotView) ChangedSet(ctx context.Context) (*ChangedSet, error) {
	v.csMu.Lock()
	defer v.csMu.Unlock()
	if !v.csDone {
		v.cs, v.csErr = v.changedSet(ctx)
		v.csDone = v.csErr == nil || ctx.Err() == nil
	}
	return v.cs, v.csErr
}

func (v *SnapshotView) changedSet(ctx context.Context) (*ChangedSet, error) {
	var (
		cs        *ChangedSet
		committed []Entry
	)
	g, gctx := errgroup.WithContext(ctx)
	var sinceErr error
	// HEAD's lookup runs git too: it starts once the snapshot run's refusals have passed, or
	// once that run has succeeded without them (degraded); a failure cancels it instead.
	checked := make(chan struct{})
	release := sync.OnceFunc(func() { close(checked) })
	g.Go(func() error {
		cs, sinceErr = v.r.changedSince(gctx, v.s, v.store, 0, v.objs, &v.det, release)
		if sinceErr == nil {
			release()
		}
		return sinceErr
	})
	g.Go(func() error {
		select {
		case <-checked:
		case <-gctx.Done():
			return gctx.Err()
		}
		var err error
		committed, err = v.committed(gctx)
		return err
	})
	if err := g.Wait(); err != nil {
		if errors.Is(sinceErr, ErrUnsafeRepository) {
			return nil, sinceErr // a refusal wins over HEAD's lookup failing first
		}
		return nil, err
	}
	v.added = map[string]bool{}
	for _, e := range committed {
		if e.Status == StatusAdded {
			v.added[string(e.Path)] = true
		}
	}
	for i := range cs.Entries {
		if e := &cs.Entries[i]; e.Status == StatusUntracked && v.added[string(e.Path)] {
			e.Status = StatusAdded
		}
	}
	return withCommitted(cs, committed), nil
}

// committed is the baseline against HEAD, nothing when HEAD is unborn or the baseline.
func (v *SnapshotView) committed(ctx context.Context) ([]Entry, error) {
	head, unborn, err := v.Head(ctx)
	if err != nil || unborn || head == v.baseline {
		return nil, err
	}
	t, err := v.objs.reader(ctx)
	if err != nil {
		return nil, err
	}
	from, err := t.rootTree(ctx, v.baseline)
	if err != nil {
		return nil, err
	}
	to, err := t.rootTree(ctx, head)
	if err != nil {
		return nil, err
	}
	return t.diff(ctx, from, to)
}

// withCommitted adds to cs the committed entries whose paths it lacks, keeping Entries sorted
// by raw path bytes and unique.
func withCommitted(cs *ChangedSet, committed []Entry) *ChangedSet {
	have := make(map[string]bool, len(cs.Entries))
	for _, e := range cs.Entries {
		have[string(e.Path)] = true
	}
	added := false
	for _, e := range committed {
		if !have[string(e.Path)] {
			cs.Entries = append(cs.Entries, e)
			added = true
		}
	}
	if added {
		slices.SortFunc(cs.Entries, func(a, b Entry) int { return bytes.Compare(a.Path, b.Path) })
	}
	return cs
}

// Head is the commit HEAD names, or unborn: the reference as the repository holds it, which the
// executor may move, with the commit object read and hashed.
func (v *SnapshotView) Head(ctx context.Context) (oid string, unborn bool, err error) {
	v.headOnce.Do(func() {
		v.head, v.unborn, v.headErr = v.headRef(ctx)
		if v.headErr != nil || v.unborn {
			return
		}
		t, err := v.objs.reader(ctx)
		if err == nil {
			_, err = t.rootTree(ctx, v.head)
		}
		if err != nil {
			v.head, v.headErr = "", fmt.Errorf("reading HEAD commit: %w", err)
		}
	})
	return v.head, v.unborn, v.headErr
}

// headRef resolves HEAD without reading an object.
func (v *SnapshotView) headRef(ctx context.Context) (string, bool, error) {
	gg, release, gerr := v.r.goGit()
	if gerr == nil {
		ref, err := gg.Head()
		release()
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return "", true, nil
		}
		if err != nil {
			return "", false, fmt.Errorf("reading HEAD: %w", err)
		}
		return ref.Hash().String(), false, nil
	}
	release()
	if !v.r.gitUsable() {
		return "", false, v.r.layoutError(gerr)
	}
	out, err := v.r.runSimple(ctx, v.r.root, "rev-parse", "--verify", "--quiet", "--end-of-options", "HEAD")
	if err != nil {
		var gf *ErrGitFailed
		if errors.As(err, &gf) && gf.Exit == 1 {
			return "", true, nil
		}
		return "", false, err
	}
	oid := string(bytes.TrimSuffix(out, []byte("\n")))
	if !IsFullOID(oid) {
		return "", false, &ErrGitFailed{Cmd: "rev-parse", Exit: -1, Stderr: "unexpected output: " + oid}
	}
	return oid, false, nil
}

// BaselineEntries reports what the baseline tree has at each repository-relative path. The trees
// on the way are read and hashed once each; an unreadable one is an error, never an absent path.
func (v *SnapshotView) BaselineEntries(ctx context.Context, paths []string) (map[string]EntryType, error) {
	out := make(map[string]EntryType, len(paths))
	for _, p := range paths {
		out[p] = EntryAbsent
	}
	if v.baseline == EmptyTreeOID || len(paths) == 0 {
		return out, nil
	}
	t, err := v.objs.reader(ctx)
	if err != nil {
		return nil, err
	}
	root, err := t.rootTree(ctx, v.baseline)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		if p == "" || p == "." {
			out[p] = EntryTree
			continue
		}
		e, _, err := t.lookup(ctx, root, p)
		if err != nil {
			return nil, err
		}
		if e != nil {
			out[p] = entryTypeOfMode(e.mode)
		}
	}
	return out, nil
}

// entryTypeOfMode maps a canonical tree entry mode to an EntryType.
func entryTypeOfMode(m uint32) EntryType {
	switch m {
	case modeTree:
		return EntryTree
	case modeLink:
		return EntryLink
	case modeGitlink:
		return EntryGitlink
	}
	return EntryBlob
}

// BaselineBlob returns the bytes of path in the baseline tree, read and hashed. ok is false
// when the path is absent or is not a blob (a directory or gitlink); a symlink yields its
// target text. Blobs over 256 MiB are an error.
func (v *SnapshotView) BaselineBlob(ctx context.Context, path string) ([]byte, bool, error) {
	return v.objs.baselineBlob(ctx, v.baseline, path)
}

// baselineBlob reads one file of baseline's tree, each object verified as it is read; the view
// and the snapshot run's tool-cache table share it.
func (o *auditObjects) baselineBlob(ctx context.Context, baseline, path string) ([]byte, bool, error) {
	if baseline == EmptyTreeOID || path == "" {
		return nil, false, nil
	}
	t, err := o.reader(ctx)
	if err != nil {
		return nil, false, err
	}
	root, err := t.rootTree(ctx, baseline)
	if err != nil {
		return nil, false, err
	}
	e, _, err := t.lookup(ctx, root, path)
	if err != nil || e == nil || e.isTree() || e.mode == modeGitlink {
		return nil, false, err
	}
	data, err := t.src.object(ctx, e.oid, "blob")
	if err != nil {
		return nil, false, fmt.Errorf("reading baseline blob %s (%s): %w", path, e.oid, err)
	}
	return data, true, nil
}

// ListFiles is the claims' sorted file list: the paths of the index snapshot whose file is still
// in the work tree and every untracked file the pre-flight ignore rules do not ignore. The live
// index is never read.
func (v *SnapshotView) ListFiles(ctx context.Context) ([]string, error) {
	cs, err := v.ChangedSet(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	if cs.Degraded {
		out, err = v.degradedIndexPaths()
	} else {
		out, err = v.indexPaths(ctx)
	}
	if err != nil {
		return nil, err
	}
	for _, e := range v.det.others {
		if !e.NestedRepository {
			out = append(out, string(e.Path))
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// indexPaths lists the index snapshot's private copy with `git ls-files --cached`, without the
// entries whose file diff-files found gone.
func (v *SnapshotView) indexPaths(ctx context.Context) ([]string, error) {
	gone := map[string]bool{}
	for _, e := range v.det.dirty {
		if e.status == 'D' {
			gone[string(e.path)] = true
		}
	}
	pi, err := v.r.snapshotIndex(v.store, v.s)
	if err != nil {
		return nil, err
	}
	defer pi.cleanup()
	args := slices.Concat(globalArgs, fullIndexArgs, []string{"ls-files", "-z", "--cached", "--full-name", "--"})
	var out []string
	var total int64
	err = v.r.runEnv(ctx, v.r.root, "ls-files", args, pi.env(), func(rd io.Reader) error {
		return eachRecord(rd, &total, func(p []byte) error {
			if len(p) == 0 {
				return shapef("empty path in ls-files output")
			}
			if !gone[string(p)] {
				out = append(out, string(p))
			}
			return nil
		})
	})
	return out, err
}

// degradedIndexPaths is indexPaths without git: the decoded index snapshot, each path kept
// when something is there in the work tree.
func (v *SnapshotView) degradedIndexPaths() ([]string, error) {
	if !v.s.IndexPresent {
		return nil, nil
	}
	rc, err := v.store.Open(SnapshotIndex)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	idx := &index.Index{}
	if err := index.NewDecoder(io.LimitReader(rc, maxIndexBytes)).Decode(idx); err != nil {
		return nil, v.r.layoutError(fmt.Errorf("%w (reading the index snapshot: %v)", ErrUnsupportedRepository, err))
	}
	var out []string
	for _, e := range idx.Entries {
		if _, err := os.Lstat(filepath.Join(v.r.root, filepath.FromSlash(e.Name))); err == nil {
			out = append(out, e.Name)
		}
	}
	return out, nil
}

// DiffStat is the release-notes diff stat of gitscope.md §4.5 for the changed set's paths, run
// on the private index snapshot after every object it reads is verified. Degraded, it is
// DiffStatUnavailable.
func (v *SnapshotView) DiffStat(ctx context.Context) (string, error) {
	cs, err := v.ChangedSet(ctx)
	if err != nil {
		return "", err
	}
	if cs.Degraded {
		return DiffStatUnavailable, nil
	}
	return v.diffStat(ctx)
}
