package gitscope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
)

// InputChange kinds: an input of the changed set that differs from pre-flight and is neither
// baseline content, a snapshot, a command-line pin nor a changed path (trust-model.md I1). The
// audit turns each into an error finding of the same name.
const (
	InputAttributes = "git_attributes_changed" // an attribute source (.gitattributes, info/attributes, core.attributesFile)
	InputConfig     = "git_config_changed"     // a security-relevant configuration key
	InputMetadata   = "git_metadata_changed"   // info/grafts, objects/info/alternates, a submodule's repository
)

// InputChange is one such input. Input names it as a planner sees it (".git/info/attributes",
// "core.attributesFile (/home/u/.config/git/attributes)", "filter.x.clean", "src/.gitattributes",
// "submodule lib/dep"); Detail says what happened. A change inside a submodule carries the
// submodule path as a prefix of Input ("lib/dep: .git/info/attributes").
type InputChange struct {
	Kind   string
	Input  string
	Detail string
}

// configKeyPrefixes are the configuration keys whose change since pre-flight is
// git_config_changed (trust-model.md §4), compared in lower case.
var configKeyPrefixes = []string{
	"core.", "extensions.", "filter.", "diff.", "index.", "include.", "includeif.", "sparse.",
	"submodule.", "status.", "feature.",
}

// sparseArgs make git compare every skip-worktree file that is present in the work tree. They
// cost about a fifth of the diff's CPU, so they are given only where skip-worktree bits can
// decide anything (gitscope.md §4.6).
var sparseArgs = []string{
	"-c", "core.sparseCheckout=true", "-c", "sparse.expectFilesOutsideOfPatterns=false",
}

// ChangedSetSince is ChangedSet under trust-model.md I1 for a task whose pre-flight snapshot is
// in store, plus the paths committed since the baseline: every input is baseline content, the
// snapshot, a pin or a changed path, by the rules of gitscope.md §4.6. It returns
// ErrNoSnapshot when store holds none, and otherwise the errors of ChangedSet.
func (r *Repo) ChangedSetSince(ctx context.Context, baseline string, store SnapshotStore) (*ChangedSet, error) {
	v, err := r.SnapshotView(ctx, baseline, store)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	return v.ChangedSet(ctx)
}

func (r *Repo) changedSince(ctx context.Context, s *inputsSnapshot, store SnapshotStore, depth int, objs *auditObjects, det *sinceDetail, checked func()) (*ChangedSet, error) {
	if det == nil {
		det = &sinceDetail{}
	}
	if objs == nil {
		objs = newAuditObjects(r, s)
		defer objs.close()
	}
	gitDir, commonDir, ok := gitDirOf(r.root)
	if !ok {
		return nil, fmt.Errorf("%s: cannot find the git directory: %w", r.root, ErrNotRepository)
	}
	if _, err := r.gitBinary(); err != nil {
		changes, err := r.sinceInputs(s, gitDir, commonDir)
		if err != nil {
			return nil, err
		}
		return det.degraded(r.degradedSince(ctx, s, store, depth, changes, ReasonGitUnavailable, objs))
	}
	if !s.GitCLI {
		return nil, fmt.Errorf("the pre-flight snapshot was taken without git; run pre-flight again now that git is available")
	}

	// Stage 1, concurrently: the checks that must precede the diff, the configuration, the
	// private index and git's version. The object check and the baseline validation run beside
	// both stages, and either one's failure cancels and discards everything.
	cctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	vg, vctx := errgroup.WithContext(cctx)
	vg.Go(func() error {
		_, err := objs.locations(vctx)
		return err
	})
	// Nothing that opens a file or runs git in the repository starts before checkReadInputs has
	// passed, so a FIFO is refused before anyone opens it and the refusal is the run's answer.
	readChecked := make(chan struct{})
	afterCheck := func(ctx context.Context) error {
		select {
		case <-readChecked:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	vg.Go(func() error {
		if err := afterCheck(vctx); err != nil {
			return err
		}
		return r.validateCLI(vctx, s.Baseline)
	})
	g, gctx := errgroup.WithContext(vctx)
	var (
		changes, cfgChanges []InputChange
		filterArgs          []string
		pi                  *privateIndex
		lsEntries           []Entry
		lt                  int64
		lsErr               = errNotListed
	)
	defer func() { pi.cleanup() }()
	listOthers := func(ctx context.Context) error {
		args := slices.Concat(globalArgs, fullIndexArgs, untrackedGuardArgs, []string{
			"ls-files", "-z", "--others", "--exclude-from=" + pi.excludes, "--full-name", "--"})
		return r.runEnv(ctx, r.root, "ls-files", args, pi.env(), func(rd io.Reader) error {
			var err error
			lsEntries, err = parseOthers(newNulReader(rd, &lt))
			return err
		})
	}
	// The listing, the longest command on a large tree, needs only the refusals, the private
	// index and git's version, so it starts before the rest of stage 1 ends (gitscope.md §4.6);
	// a legacy snapshot's index is checked first.
	early := !s.IndexPresent || (s.IndexDiff && s.IndexWhole)
	lctx, cancelList := context.WithCancel(vctx)
	listed := make(chan struct{})             // closed when lsErr is final
	defer func() { cancelList(); <-listed }() // before pi.cleanup: git reads the private index
	g.Go(func() error {
		var err error
		changes, err = r.sinceChanges(gctx, s, gitDir, commonDir, readChecked)
		return err
	})
	g.Go(func() error {
		if err := afterCheck(gctx); err != nil {
			return err
		}
		list, err := r.listConfig(gctx)
		if err != nil {
			return err
		}
		if filterArgs, err = filterArgsFromList(list); err != nil {
			return err
		}
		cfgChanges, err = r.compareConfig(s, list)
		return err
	})
	g.Go(func() error { // started last, so Go runs it first
		started := false
		defer func() {
			if !started {
				close(listed)
			}
		}()
		if err := r.checkReadInputs(gitDir, commonDir, s); err != nil {
			return err
		}
		close(readChecked)
		if checked != nil {
			checked()
		}
		var err error
		if pi, err = r.snapshotIndex(store, s); err != nil {
			return err
		}
		if ok, _, err := r.gitVersion(gctx); !early || err != nil || !ok {
			return nil
		}
		started = true
		go func() {
			defer close(listed)
			lsErr = listOthers(lctx)
		}()
		return nil
	})
	err := g.Wait()
	verOK, _, verErr := r.gitVersion(cctx)
	if err != nil {
		cancelAll() // a git command blocked on what stage 1 refused must not be waited for
		verr := vg.Wait()
		switch {
		case errors.Is(err, ErrUnsafeRepository):
			return nil, err
		case verErr != nil || !verOK:
			// A git too old or unusable: what its commands said decides nothing, the built-in
			// reader takes over below (a 2.20 fails the validation's --end-of-options).
		case verr != nil && !errors.Is(verr, context.Canceled) && errors.Is(err, context.Canceled):
			return nil, verr // the object check or the validation failed first
		default:
			return nil, err
		}
	}
	if verErr != nil || !verOK {
		cancelAll()
		_ = vg.Wait()
		reason := ReasonGitTooOld
		if verErr != nil {
			reason = ReasonGitUnavailable
		}
		changes, err := r.sinceInputs(s, gitDir, commonDir)
		if err != nil {
			return nil, err
		}
		return det.degraded(r.degradedSince(ctx, s, store, depth, changes, reason, objs))
	}
	changes = append(changes, cfgChanges...)
	if !early {
		// A snapshot from before the index diff was recorded: a sparse one would make git expand
		// it, reading (and rewriting) trees nobody verified. One from before split indexes were
		// stored whole: git would read its shared part from the git directory (hardening.md A-O1).
		sparse, split, err := indexKinds(pi.path)
		if err != nil {
			return nil, fmt.Errorf("the pre-flight snapshot of this task: %w; run pre-flight again with --reset", err)
		}
		if sparse && !s.IndexDiff {
			return nil, fmt.Errorf("the pre-flight snapshot of this task (taken by an older mastermind) holds a sparse index, which post-flight cannot read without git reading unverified trees; run pre-flight again with --reset")
		}
		if split && !s.IndexWhole {
			return nil, fmt.Errorf("the pre-flight snapshot of this task (taken by an older mastermind) holds a split index, whose shared part post-flight would read from the git directory unverified; run pre-flight again with --reset")
		}
	}

	// Stage 2: the work-tree diff, the untracked listing and the index diff. Stage 3 follows the
	// diff in its goroutine, beside the listing: the touched files hashed as git diff would, each
	// index blob git may read for them verified first if written since pre-flight.
	var (
		dirty []rawEntry
		d0    indexDiff
		dt    int64
	)
	var sparse []string
	if s.SkipWorktree {
		sparse = sparseArgs
	}
	d0Ready := make(chan struct{})
	g, gctx = errgroup.WithContext(vctx)
	g.Go(func() error {
		args := slices.Concat(diffGlobalArgs, fullIndexArgs, sparse, filterArgs, diffFilesArgs, []string{"--"})
		err := r.runEnv(gctx, r.root, "diff-files", args, pi.env(), func(rd io.Reader) error {
			return parseRaw(newNulReader(rd, &dt), func(e rawEntry) error {
				dirty = append(dirty, e)
				return nil
			})
		})
		if err != nil {
			return err
		}
		if dt > maxPathBytes {
			return errPathBytes()
		}
		select {
		case <-d0Ready:
		case <-gctx.Done():
			return gctx.Err()
		}
		hashes := toHash(d0, dirty)
		if len(hashes) == 0 {
			return nil
		}
		if err := objs.verifyIndexBlobs(gctx, s, d0, dirty); err != nil {
			return err
		}
		return r.hashWorktree(gctx, pi, filterArgs, dirty, hashes)
	})
	g.Go(func() error {
		if !early {
			return listOthers(gctx)
		}
		select {
		case <-listed:
			return lsErr
		case <-gctx.Done():
			return gctx.Err() // the deferred cancel stops the listing
		}
	})
	g.Go(func() error {
		// A legacy snapshot's index diff reads baseline trees: the object scan must be done.
		if !s.IndexDiff {
			if _, err := objs.locations(gctx); err != nil {
				return err
			}
		}
		var err error
		d0, err = r.loadIndexDiff(gctx, store, s, pi, objs)
		if err == nil {
			close(d0Ready)
		}
		return err
	})
	gerr := g.Wait()
	if gerr != nil {
		cancelAll()
	}
	// The object check's or the validation's own failure comes first; a cancellation of theirs
	// is stage 3's failure (a forged index blob, say) showing through.
	if err := vg.Wait(); err != nil && (gerr == nil || !errors.Is(err, context.Canceled)) {
		return nil, err
	}
	if gerr != nil {
		return nil, gerr
	}
	if dt+lt > maxPathBytes {
		return nil, errPathBytes()
	}
	det.dirty, det.d0, det.filterArgs = dirty, d0, filterArgs
	entries, caches, hiding, err := r.snapshotToolCaches(ctx, s, objs).apply(mergeEntries(worktreeEntries(d0, dirty), lsEntries))
	if err != nil {
		return nil, err
	}
	det.others = untrackedOf(entries)
	changes = append(changes, attributeFilesIn(entries)...)
	entries, subChanges, err := r.auditSubmodules(ctx, s, store, depth, entries)
	if err != nil {
		return nil, err
	}
	changes = append(changes, subChanges...)
	return &ChangedSet{Source: SourceGit, Entries: entries, InputChanges: changes, ToolCaches: caches, SelfIgnoring: hiding}, nil
}

// errNotListed is the listing's result until it has run; a run that never starts it has failed
// or degraded in stage 1 already.
var errNotListed = errors.New("the untracked listing did not start")

// errPathBytes is the refusal of a snapshot run whose git output names more path bytes than it
// holds in memory.
func errPathBytes() error {
	return &ErrGitFailed{Cmd: "diff-files", Exit: -1, Stderr: fmt.Sprintf("output exceeds %d MiB of path bytes", maxPathBytes>>20)}
}

// sinceDetail is what a snapshot run found besides its changed set, for the view's file list
// and diff stat: the diff-files records (hashed where it mattered), the pre-flight index diff,
// the untracked entries, the filter-guard arguments.
type sinceDetail struct {
	dirty      []rawEntry
	d0         indexDiff
	others     []Entry
	filterArgs []string
}

// degraded records a degraded run's untracked entries.
func (d *sinceDetail) degraded(cs *ChangedSet, err error) (*ChangedSet, error) {
	if err == nil {
		d.others = untrackedOf(cs.Entries)
	}
	return cs, err
}

// untrackedOf are the untracked entries of entries (tool caches already left out), for the
// view's file list.
func untrackedOf(entries []Entry) []Entry {
	var out []Entry
	for _, e := range entries {
		if e.Status == StatusUntracked {
			out = append(out, e)
		}
	}
	return out
}

// snapshotIndex makes the private index of a snapshot run, a copy of the index snapshot with the
// pre-flight index's modification time, and the pre-flight exclude file beside it, in a fresh
// temporary directory outside the work tree.
func (r *Repo) snapshotIndex(store SnapshotStore, s *inputsSnapshot) (*privateIndex, error) {
	gitDir, _, _ := gitDirOf(r.root)
	dir, err := os.MkdirTemp(r.privateIndexParent(filepath.Join(gitDir, "index")), "mastermind-index-")
	if err != nil {
		return nil, fmt.Errorf("private index: %w", err)
	}
	pi := &privateIndex{dir: dir, path: filepath.Join(dir, "index"), excludes: filepath.Join(dir, "exclude")}
	fail := func(err error) (*privateIndex, error) { pi.cleanup(); return nil, err }
	if err := os.WriteFile(pi.excludes, preflightExcludes(s), 0o600); err != nil {
		return fail(fmt.Errorf("private index: %w", err))
	}
	if !s.IndexPresent {
		return pi, nil
	}
	if ls, ok := store.(LocalSnapshotStore); ok {
		// A hard link copies nothing, and git never writes an index in place, so the stored
		// snapshot keeps its bytes and the mtime TakeSnapshot set.
		if p, err := ls.SnapshotPath(SnapshotIndex); err == nil && linkOrCopyIndex(p, pi.path) == nil {
			if fi, err := os.Lstat(pi.path); err == nil && fi.ModTime().UnixNano() == s.IndexMtimeNs {
				return pi, nil
			}
			_ = os.Remove(pi.path)
		}
	}
	rc, err := store.Open(SnapshotIndex)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fail(ErrNoSnapshot)
		}
		return fail(err)
	}
	defer rc.Close()
	out, err := os.OpenFile(pi.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return fail(fmt.Errorf("private index: %w", err))
	}
	n, err := io.Copy(out, io.LimitReader(rc, maxIndexBytes+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > maxIndexBytes {
		err = fmt.Errorf("the index snapshot is larger than %d bytes", int64(maxIndexBytes))
	}
	if err != nil {
		return fail(fmt.Errorf("private index: %w", err))
	}
	mt := time.Unix(0, s.IndexMtimeNs)
	if err := os.Chtimes(pi.path, mt, mt); err != nil {
		return fail(fmt.Errorf("private index: %w", err))
	}
	return pi, nil
}

// checkReadInputs refuses, before git starts, a FIFO, socket or device anywhere a snapshot
// run's git would read: the git directory's files (checkGitDirFiles), info/attributes,
// info/grafts, info/sparse-checkout, the work tree's .gitmodules, the configuration files and
// their includes, the global attributes file, and each populated submodule's git files.
func (r *Repo) checkReadInputs(gitDir, commonDir string, s *inputsSnapshot) error {
	if err := checkGitDirFiles(gitDir, commonDir); err != nil {
		return err
	}
	for _, p := range []string{
		filepath.Join(commonDir, "info", "attributes"),
		filepath.Join(commonDir, "info", "grafts"),
		filepath.Join(gitDir, "info", "sparse-checkout"),
		filepath.Join(commonDir, "info", "sparse-checkout"),
		filepath.Join(r.root, ".gitmodules"),
	} {
		if err := checkRegularIfPresent(p); err != nil {
			return err
		}
	}
	if err := r.checkConfigIncludes(); err != nil {
		return err
	}
	for _, sub := range s.Subs {
		subRoot := filepath.Join(r.root, filepath.FromSlash(sub.Path))
		if _, err := os.Lstat(filepath.Join(subRoot, ".git")); err == nil {
			if err := checkGitFiles(subRoot); err != nil {
				return fmt.Errorf("submodule %s: %w", sub.Path, err)
			}
		}
	}
	return nil
}

// compareFiles compares the snapshotted files that git would read with their pre-flight bytes:
// info/attributes (InputAttributes), info/grafts and objects/info/alternates (InputMetadata).
// The ignore sources need no comparison: the snapshot run never reads the live ones.
func (r *Repo) compareFiles(s *inputsSnapshot, gitDir, commonDir string) ([]InputChange, error) {
	var out []InputChange
	for _, c := range []struct{ role, kind, path string }{
		{roleInfoAttributes, InputAttributes, filepath.Join(commonDir, "info", "attributes")},
		{roleInfoGrafts, InputMetadata, filepath.Join(commonDir, "info", "grafts")},
		{roleAlternates, InputMetadata, filepath.Join(commonDir, "objects", "info", "alternates")},
	} {
		ch, err := compareFile(s.file(c.role), c.kind, ".git/"+c.role, c.path)
		if err != nil {
			return nil, err
		}
		if ch != nil {
			out = append(out, *ch)
		}
	}
	return out, nil
}

// compareFile compares the file at p with its snapshot; nil when equal.
func compareFile(snap fileSnap, kind, name, p string) (*InputChange, error) {
	now, err := snapFile(snap.Role, p)
	if err != nil {
		return nil, err
	}
	var detail string
	switch {
	case now.Present == snap.Present && bytes.Equal(now.Data, snap.Data):
		return nil, nil
	case !snap.Present:
		detail = "created since pre-flight"
	case !now.Present:
		detail = "removed since pre-flight"
	default:
		detail = "rewritten since pre-flight"
	}
	return &InputChange{Kind: kind, Input: name, Detail: detail}, nil
}

// checkAttributeFiles reports as InputAttributes a .gitattributes in any baseline directory that
// had none, ignored or not. A baseline .gitattributes that is no longer a regular file is
// ErrUnsafeRepository, since git would block reading it.
func (r *Repo) checkAttributeFiles(s *inputsSnapshot) ([]InputChange, error) {
	// One lstat per baseline directory is the longest part of stage 1 on a large tree, so the
	// directories are split into a few chunks checked at once, and their changes joined in
	// directory order.
	chunks := slices.Collect(slices.Chunk(s.Dirs, max(256, (len(s.Dirs)+3)/4)))
	found := make([][]InputChange, len(chunks))
	var g errgroup.Group
	for i, dirs := range chunks {
		g.Go(func() error {
			for _, d := range dirs {
				p := filepath.Join(r.root, filepath.FromSlash(d), ".gitattributes")
				fi, err := os.Lstat(p)
				if err != nil {
					continue // absent (or its directory is): nothing for git to read
				}
				if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 && !fi.IsDir() {
					return fmt.Errorf("%s: %w (%s)", p, ErrUnsafeRepository, describeType(fi.Mode()))
				}
				found[i] = append(found[i], InputChange{Kind: InputAttributes, Input: path.Join(d, ".gitattributes"), Detail: "created since pre-flight"})
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := slices.Concat(found...)
	for _, d := range s.AttrDirs {
		p := filepath.Join(r.root, filepath.FromSlash(d), ".gitattributes")
		if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 && !fi.IsDir() {
			return nil, fmt.Errorf("%s: %w (%s)", p, ErrUnsafeRepository, describeType(fi.Mode()))
		}
	}
	return out, nil
}

// attributeFilesIn is InputAttributes for every changed path named .gitattributes, tracked or
// untracked.
func attributeFilesIn(entries []Entry) []InputChange {
	var out []InputChange
	for _, e := range entries {
		if bytes.Equal(e.Path, []byte(".gitattributes")) || bytes.HasSuffix(e.Path, []byte("/.gitattributes")) {
			out = append(out, InputChange{Kind: InputAttributes, Input: string(e.Path), Detail: string(e.Status) + " since the baseline"})
		}
	}
	return out
}

// compareConfig compares the configuration keys of configKeyPrefixes in the snapshot with list,
// now's `git config --list -z`, and the resolved core.attributesFile with its snapshot. Each key
// whose values differ in any way is one InputConfig change, without its values, which may hold
// secrets.
func (r *Repo) compareConfig(s *inputsSnapshot, list []byte) ([]InputChange, error) {
	before, err := parseConfigList(s.Config)
	if err != nil {
		return nil, fmt.Errorf("snapshot store: config: %w", err)
	}
	after, err := parseConfigList(list)
	if err != nil {
		return nil, &ErrGitFailed{Cmd: "config", Exit: -1, Stderr: err.Error()}
	}
	values := func(es []configEntry) map[string][]string {
		m := map[string][]string{}
		for _, e := range es {
			k := strings.ToLower(e.key)
			for _, p := range configKeyPrefixes {
				if strings.HasPrefix(k, p) {
					m[e.key] = append(m[e.key], e.value)
					break
				}
			}
		}
		return m
	}
	b, a := values(before), values(after)
	var keys []string
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			keys = append(keys, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []InputChange
	for _, k := range keys {
		detail := "changed since pre-flight"
		switch {
		case b[k] == nil:
			detail = "set since pre-flight"
		case a[k] == nil:
			detail = "removed since pre-flight"
		}
		out = append(out, InputChange{Kind: InputConfig, Input: k, Detail: detail})
	}
	_, attributes := r.globalInputPaths(list, true)
	if err := checkRegularIfPresent(attributes); err != nil {
		return nil, err
	}
	snap := s.file(roleAttributesFile)
	if attributes != snap.Path {
		out = append(out, InputChange{Kind: InputAttributes, Input: "core.attributesFile",
			Detail: fmt.Sprintf("now names %s, at pre-flight %s", attributes, snap.Path)})
	} else if attributes != "" {
		ch, err := compareFile(snap, InputAttributes, "core.attributesFile ("+attributes+")", attributes)
		if err != nil {
			return nil, err
		}
		if ch != nil {
			out = append(out, *ch)
		}
	}
	return out, nil
}

// checkConfigIncludes refuses a FIFO, socket or device among the configuration files git reads
// besides the system one, and the files they include to 10 levels: `git config` would block
// reading it.
func (r *Repo) checkConfigIncludes() error {
	var files []string
	if x := xdgConfigHome(); x != "" {
		files = append(files, filepath.Join(x, "git", "config"))
	}
	if h, err := os.UserHomeDir(); err == nil {
		files = append(files, filepath.Join(h, ".gitconfig"))
	}
	if gitDir, common, ok := gitDirOf(r.root); ok {
		files = append(files, filepath.Join(common, "config"), filepath.Join(common, "config.worktree"), filepath.Join(gitDir, "config.worktree"))
	}
	seen := map[string]bool{}
	var visit func(p string, depth int) error
	visit = func(p string, depth int) error {
		if depth > 10 || seen[p] {
			return nil
		}
		seen[p] = true
		if err := checkRegularIfPresent(p); err != nil {
			return err
		}
		cfg := readConfigFile(p)
		if cfg == nil {
			return nil
		}
		for _, sec := range cfg.Sections {
			name := strings.ToLower(sec.Name)
			if name != "include" && name != "includeif" {
				continue
			}
			var vals []string
			if name == "include" {
				vals = sec.Options.GetAll("path")
			}
			for _, ss := range sec.Subsections {
				vals = append(vals, ss.Options.GetAll("path")...)
			}
			for _, v := range vals {
				v = expandTilde(v)
				if !filepath.IsAbs(v) {
					v = filepath.Join(filepath.Dir(p), v)
				}
				if err := visit(v, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, f := range files {
		if err := visit(f, 0); err != nil {
			return err
		}
	}
	return nil
}

// auditSubmodules applies the snapshot rules to each baseline gitlink (see ChangedSetSince)
// and returns entries with the submodules that changed added as modified.
func (r *Repo) auditSubmodules(ctx context.Context, s *inputsSnapshot, store SnapshotStore, depth int, entries []Entry) ([]Entry, []InputChange, error) {
	if len(s.Subs) == 0 {
		return entries, nil, nil
	}
	var changes []InputChange
	var dirty []Entry
	for _, sub := range s.Subs {
		subRoot := filepath.Join(r.root, filepath.FromSlash(sub.Path))
		if !sub.Populated {
			if ents, err := os.ReadDir(subRoot); err == nil && len(ents) > 0 {
				// git treats an unpopulated gitlink's directory as clean whatever it holds.
				dirty = append(dirty, Entry{Path: []byte(sub.Path), Status: StatusModified, UTF8: true})
			}
			continue
		}
		if fi, err := os.Lstat(subRoot); err != nil || !fi.IsDir() {
			// Gone, or a symbolic link to somewhere else: git reports the gitlink's path.
			dirty = append(dirty, Entry{Path: []byte(sub.Path), Status: StatusModified, UTF8: true})
			continue
		}
		if _, err := os.Lstat(filepath.Join(subRoot, ".git")); err != nil {
			changes = append(changes, InputChange{Kind: InputMetadata, Input: "submodule " + sub.Path,
				Detail: "its repository (.git) is gone since pre-flight, so its files cannot be audited"})
			dirty = append(dirty, Entry{Path: []byte(sub.Path), Status: StatusModified, UTF8: true})
			continue
		}
		sr, err := OpenWith(subRoot, r.opts)
		if err != nil {
			return nil, nil, fmt.Errorf("submodule %s: %w", sub.Path, err)
		}
		st := prefixStore{store, "sub/" + sub.Key + "/"}
		ss, err := loadSnapshot(st)
		if err != nil {
			return nil, nil, fmt.Errorf("submodule %s: %w", sub.Path, err)
		}
		cs, err := sr.changedSince(ctx, ss, st, depth+1, nil, nil, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("submodule %s: %w", sub.Path, err)
		}
		for _, c := range cs.InputChanges {
			c.Input = sub.Path + ": " + c.Input
			changes = append(changes, c)
		}
		if len(cs.Entries) > 0 || len(cs.InputChanges) > 0 {
			dirty = append(dirty, Entry{Path: []byte(sub.Path), Status: StatusModified, UTF8: true})
		}
	}
	if len(dirty) == 0 {
		return entries, changes, nil
	}
	return mergeEntries(entries, dirty), changes, nil
}

// sinceInputs is the part of a snapshot run that reads no git: the FIFO refusals of
// checkReadInputs, then sinceChanges.
func (r *Repo) sinceInputs(s *inputsSnapshot, gitDir, commonDir string) ([]InputChange, error) {
	if err := r.checkReadInputs(gitDir, commonDir, s); err != nil {
		return nil, err
	}
	checked := make(chan struct{})
	close(checked)
	return r.sinceChanges(context.Background(), s, gitDir, commonDir, checked)
}

// sinceChanges compares the git directory, the snapshotted files and the attribute files with
// pre-flight's. The attribute walk, which only lstats, starts at once; the files are opened
// only once checked is closed (checkReadInputs passed), so a FIFO there is never opened.
func (r *Repo) sinceChanges(ctx context.Context, s *inputsSnapshot, gitDir, commonDir string, checked <-chan struct{}) ([]InputChange, error) {
	// The .gitattributes walk needs nothing from the others: it runs beside them.
	var attrChanges []InputChange
	var attrErr error
	attrDone := make(chan struct{})
	go func() {
		defer close(attrDone)
		attrChanges, attrErr = r.checkAttributeFiles(s)
	}()
	select {
	case <-checked:
	case <-ctx.Done():
		<-attrDone
		return nil, ctx.Err()
	}
	changes, err := r.compareFiles(s, gitDir, commonDir)
	<-attrDone
	if err != nil {
		return nil, err
	}
	if gitDir != s.GitDir || commonDir != s.CommonDir {
		// .git now leads elsewhere, so another index, object store and configuration would
		// decide.
		changes = append(changes, InputChange{Kind: InputMetadata, Input: ".git",
			Detail: fmt.Sprintf("now leads to %s (common %s), at pre-flight %s (common %s)", gitDir, commonDir, s.GitDir, s.CommonDir)})
	}
	if attrErr != nil {
		return nil, attrErr
	}
	return append(changes, attrChanges...), nil
}
