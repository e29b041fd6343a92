package gitscope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/sync/errgroup"
)

// leaf is one baseline tree entry: its mode and object id.
type leaf struct {
	mode filemode.FileMode
	hash plumbing.Hash
}

// degradedChangedSet is the §6 fallback: the go-git index compared with the working tree, the
// baseline tree flattened and the ignore-aware untracked walk, merged by the §1 rules and marked
// Degraded with reason.
func (r *Repo) degradedChangedSet(ctx context.Context, baseline, reason string) (*ChangedSet, error) {
	gg, release, err := r.goGit()
	defer release()
	if err != nil {
		return nil, r.layoutError(err)
	}
	var (
		base    map[string]leaf
		baseErr error
		idx     *index.Index
		idxErr  error
		wg      sync.WaitGroup
	)
	wg.Add(2)
	go func() { defer wg.Done(); base, baseErr = flattenBaseline(gg, baseline) }()
	go func() { defer wg.Done(); idx, idxErr = gg.Storer.Index() }()
	wg.Wait()
	if idxErr != nil {
		return nil, r.layoutError(fmt.Errorf("%w (reading the index: %v)", ErrUnsupportedRepository, idxErr))
	}
	if baseErr != nil {
		return nil, baseErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	fileMode := true
	if cfg := readRepoConfig(r.root); cfg != nil && strings.EqualFold(cfg.Section("core").Option("filemode"), "false") {
		fileMode = false
	}
	var indexMtime time.Time
	if gd, _, ok := gitDirOf(r.root); ok {
		if fi, err := os.Stat(filepath.Join(gd, "index")); err == nil {
			indexMtime = fi.ModTime()
		}
	}
	entries, err := r.degradedCompare(ctx, base, idx, fileMode, indexMtime, nil)
	if err != nil {
		return nil, err
	}
	entries, caches, hiding, err := degradedToolCaches(r.root, gg, base, nil).apply(entries)
	if err != nil {
		return nil, err
	}
	return &ChangedSet{Source: SourceGoGit, Degraded: true, DegradedReason: reason, Entries: entries, ToolCaches: caches, SelfIgnoring: hiding}, nil
}

// degradedCompare is §6 steps 3–6 for a decoded index: stage-0 entries against the work tree,
// the baseline leaves and the untracked walk, under the live ignore rules when patterns is nil
// and otherwise under patterns alone.
func (r *Repo) degradedCompare(ctx context.Context, base map[string]leaf, idx *index.Index, fileMode bool, indexMtime time.Time, patterns []gitignore.Pattern) ([]Entry, error) {
	// Stage-0 entries against the working tree, 4 workers.
	stage0 := make([]*index.Entry, 0, len(idx.Entries))
	inIndex := make(map[string]bool, len(idx.Entries)) // path -> is a gitlink
	conflicted := map[string]bool{}
	for _, e := range idx.Entries {
		inIndex[e.Name] = e.Mode == filemode.Submodule
		if e.Stage == 0 { // go-git's index.Merged constant is 1, not the merged stage
			stage0 = append(stage0, e)
		} else {
			conflicted[e.Name] = true
		}
	}
	states := make([]wtState, len(stage0))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i := range stage0 {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			st, err := r.worktreeState(stage0[i], fileMode, indexMtime)
			states[i] = st
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	var tracked []Entry
	add := func(name string, s Status) {
		p := []byte(name)
		tracked = append(tracked, Entry{Path: p, Status: s, UTF8: utf8.Valid(p)})
	}
	for i, e := range stage0 {
		st := states[i]
		b, inBase := base[e.Name]
		switch {
		case !st.present && inBase:
			add(e.Name, StatusDeleted)
		case !st.present:
			// added to the index, then removed from disk: git's diff against the baseline
			// shows nothing for it
		case !inBase:
			add(e.Name, StatusAdded)
		case normMode(b.mode) != normMode(st.mode) || b.hash != st.hash:
			add(e.Name, StatusModified)
		}
	}
	for name := range conflicted {
		add(name, StatusModified)
	}
	for name := range base {
		if _, ok := inIndex[name]; !ok {
			add(name, StatusDeleted)
		}
	}
	untracked, err := walkUntrackedWith(ctx, r.root, inIndex, patterns, patterns == nil)
	if err != nil {
		return nil, err
	}
	return mergeEntries(tracked, untracked), nil
}

// normMode folds the deprecated group-writable blob mode into the regular one.
func normMode(m filemode.FileMode) filemode.FileMode {
	if m == filemode.Deprecated {
		return filemode.Regular
	}
	return m
}

// flattenBaseline reads the baseline tree into path -> leaf (blobs, symlinks, gitlinks).
func flattenBaseline(gg *git.Repository, baseline string) (map[string]leaf, error) {
	t, err := baselineTree(gg, baseline)
	if err != nil || t == nil {
		return map[string]leaf{}, err
	}
	out := map[string]leaf{}
	var walk func(t *object.Tree, prefix string, depth int) error
	walk = func(t *object.Tree, prefix string, depth int) error {
		if depth > 1024 {
			return fmt.Errorf("baseline tree deeper than 1024 levels")
		}
		for _, e := range t.Entries {
			name := prefix + e.Name
			if e.Mode == filemode.Dir {
				sub, err := object.GetTree(gg.Storer, e.Hash)
				if err != nil {
					return fmt.Errorf("reading baseline tree %s (%s): %w", name, e.Hash, err)
				}
				if err := walk(sub, name+"/", depth+1); err != nil {
					return err
				}
				continue
			}
			out[name] = leaf{mode: e.Mode, hash: e.Hash}
		}
		return nil
	}
	return out, walk(t, "", 0)
}

// wtState is a tracked path as found in the working tree.
type wtState struct {
	present bool
	mode    filemode.FileMode
	hash    plumbing.Hash
}

// worktreeState is §6 step 3 for one stage-0 index entry: lstat, take the index OID when the
// stat data matches and the entry is not racy, otherwise re-hash the content.
func (r *Repo) worktreeState(e *index.Entry, fileMode bool, indexMtime time.Time) (wtState, error) {
	abs := filepath.Join(r.root, filepath.FromSlash(e.Name))
	fi, err := os.Lstat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			if e.SkipWorktree {
				// Outside the sparse checkout: as the index says (git's rule).
				return wtState{present: true, mode: e.Mode, hash: e.Hash}, nil
			}
			return wtState{}, nil
		}
		return wtState{}, fmt.Errorf("lstat %s: %w", e.Name, err)
	}
	if e.Mode == filemode.Submodule {
		if !fi.IsDir() {
			return wtState{}, nil
		}
		h := e.Hash
		if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
			// A FIFO at the submodule's HEAD (or config, packed-refs...) blocked go-git's open
			// forever: such a submodule is an error (ErrUnsafeRepository), not an unchanged one.
			if err := checkGitFiles(abs); err != nil {
				return wtState{}, err
			}
			if sub, err := openGoGit(abs); err == nil {
				if ref, err := sub.Head(); err == nil {
					h = ref.Hash()
				}
			}
		}
		return wtState{present: true, mode: filemode.Submodule, hash: h}, nil
	}
	var mode filemode.FileMode
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		mode = filemode.Symlink
	case fi.Mode().IsRegular():
		mode = filemode.Regular
		if fi.Mode()&0o100 != 0 {
			mode = filemode.Executable
		}
		if !fileMode && (e.Mode == filemode.Regular || e.Mode == filemode.Executable) {
			mode = e.Mode
		}
	default:
		return wtState{}, nil // a directory (or other) where a file was: the file is gone
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	clean := st != nil && !e.IntentToAdd && mode == e.Mode &&
		uint32(fi.Size()) == e.Size &&
		fi.ModTime().Equal(e.ModifiedAt) &&
		time.Unix(st.Ctim.Sec, st.Ctim.Nsec).Equal(e.CreatedAt) &&
		uint32(st.Ino) == e.Inode &&
		(indexMtime.IsZero() || fi.ModTime().Before(indexMtime))
	if clean {
		return wtState{present: true, mode: mode, hash: e.Hash}, nil
	}
	var data []byte
	if mode == filemode.Symlink {
		target, err := os.Readlink(abs)
		if err != nil {
			return wtState{}, fmt.Errorf("readlink %s: %w", e.Name, err)
		}
		data = []byte(target)
	} else {
		f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return wtState{}, nil
			}
			return wtState{}, fmt.Errorf("open %s: %w", e.Name, err)
		}
		var buf bytes.Buffer
		_, err = buf.ReadFrom(f)
		f.Close()
		if err != nil {
			return wtState{}, fmt.Errorf("read %s: %w", e.Name, err)
		}
		data = buf.Bytes()
	}
	return wtState{present: true, mode: mode, hash: plumbing.ComputeHash(plumbing.BlobObject, data)}, nil
}

// walkUntracked is §6 step 6: every non-ignored file not in the index, found by walking the work
// tree in sorted order without descending into .git, ignored directories or nested
// repositories, each of which is one entry.
func walkUntracked(ctx context.Context, root string, inIndex map[string]bool) ([]Entry, error) {
	return walkUntrackedWith(ctx, root, inIndex, nil, false)
}

// walkUntrackedWith is walkUntracked under fixed ignore patterns when patterns is non-nil; no
// ignore file is then read. With showIgnoreFiles a .gitignore is never ignored, as the live
// changed set's --exclude=!.gitignore has it (§4.7).
func walkUntrackedWith(ctx context.Context, root string, inIndex map[string]bool, patterns []gitignore.Pattern, showIgnoreFiles bool) ([]Entry, error) {
	w := &walker{ctx: ctx, root: root, inIndex: inIndex, trackedDirs: map[string]struct{}{}, fixed: patterns != nil, showIgnoreFiles: showIgnoreFiles}
	for name := range inIndex {
		for d := name; ; {
			i := strings.LastIndexByte(d, '/')
			if i < 0 {
				break
			}
			d = d[:i]
			if _, ok := w.trackedDirs[d]; ok {
				break
			}
			w.trackedDirs[d] = struct{}{}
		}
	}
	ps := patterns
	if ps == nil {
		ps = basePatterns(root)
	}
	err := w.walk("", nil, ps)
	return w.out, err
}

type walker struct {
	ctx         context.Context
	root        string
	inIndex     map[string]bool // tracked path -> is a gitlink
	trackedDirs map[string]struct{}
	fixed       bool // patterns fixed at the start: no .gitignore of the work tree is read
	// showIgnoreFiles lists every untracked .gitignore, ignored or not.
	showIgnoreFiles bool
	out             []Entry
}

func (w *walker) emit(rel string, nested bool) {
	p := []byte(rel)
	w.out = append(w.out, Entry{Path: p, Status: StatusUntracked, NestedRepository: nested, UTF8: utf8.Valid(p)})
}

func (w *walker) walk(rel string, comps []string, ps []gitignore.Pattern) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	if !w.fixed {
		ps = append(slices.Clip(ps), readIgnoreFile(filepath.Join(abs, ".gitignore"), comps)...)
	}
	m := gitignore.NewMatcher(ps)
	ents, err := os.ReadDir(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		return fmt.Errorf("reading directory %s: %w", rel, err)
	}
	for _, de := range ents {
		name := de.Name()
		if name == ".git" {
			continue
		}
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		childComps := append(slices.Clip(comps), name)
		ignored := func(dir bool) bool {
			return m.Match(childComps, dir) && (!w.showIgnoreFiles || name != ".gitignore")
		}
		switch t := de.Type(); {
		case t.IsDir():
			if w.inIndex[childRel] {
				continue // a submodule: its gitlink entry is compared, its files never listed
			}
			if ignored(true) {
				continue
			}
			if _, err := os.Lstat(filepath.Join(abs, name, ".git")); err == nil {
				if _, tracked := w.trackedDirs[childRel]; !tracked {
					w.emit(childRel, true)
					continue
				}
			}
			if err := w.walk(childRel, childComps, ps); err != nil {
				return err
			}
		case t.IsRegular() || t&fs.ModeSymlink != 0:
			if _, ok := w.inIndex[childRel]; ok {
				continue
			}
			if ignored(false) {
				continue
			}
			w.emit(childRel, false)
		}
	}
	return nil
}

// degradedListFiles is ListFiles without git: index paths plus the untracked walk.
func (r *Repo) degradedListFiles(ctx context.Context) ([]string, error) {
	gg, release, err := r.goGit()
	defer release()
	if err != nil {
		return nil, r.layoutError(err)
	}
	idx, err := gg.Storer.Index()
	if err != nil {
		return nil, r.layoutError(fmt.Errorf("%w (reading the index: %v)", ErrUnsupportedRepository, err))
	}
	inIndex := make(map[string]bool, len(idx.Entries))
	out := make([]string, 0, len(idx.Entries))
	for _, e := range idx.Entries {
		if _, ok := inIndex[e.Name]; !ok {
			inIndex[e.Name] = e.Mode == filemode.Submodule
			out = append(out, e.Name)
		}
	}
	untracked, err := walkUntracked(ctx, r.root, inIndex)
	if err != nil {
		return nil, err
	}
	for _, e := range untracked {
		if !e.NestedRepository {
			out = append(out, string(e.Path))
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
