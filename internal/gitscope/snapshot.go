package gitscope

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/sync/errgroup"
)

// Limits of the snapshot inputs.
const (
	maxInputFileBytes = 4 << 20  // one snapshotted file, such as info/exclude or one .gitignore
	maxInputsBytes    = 64 << 20 // the whole SnapshotInputs document
	maxSubmoduleDepth = 8        // nested submodules snapshotted and audited
	inputsVersion     = 1
)

// Roles of the snapshotted files (inputsSnapshot.Files), named as the planner sees them.
const (
	roleInfoExclude    = "info/exclude"
	roleInfoAttributes = "info/attributes"
	roleInfoGrafts     = "info/grafts"
	roleAlternates     = "objects/info/alternates"
	roleExcludesFile   = "core.excludesFile"
	roleAttributesFile = "core.attributesFile"
	roleConfig         = "config"
	roleConfigWorktree = "config.worktree"
)

// inputsSnapshot is the SnapshotInputs document: every input of the changed set besides the
// index, as it was at pre-flight (trust-model.md §4).
type inputsSnapshot struct {
	Version  int    `json:"version"`
	Baseline string `json:"baseline"`
	// PreflightNs is the pre-flight time: the change time (ns since the epoch) of a file written
	// in the git directory, so that it is on the repository's file system's clock.
	PreflightNs int64 `json:"preflight_ctime_ns"`
	GitCLI      bool  `json:"git_cli"` // taken with the git CLI (Config is set)
	// GitDir and CommonDir are where the work tree's .git led at pre-flight (resolved paths).
	GitDir       string `json:"git_dir"`
	CommonDir    string `json:"common_dir"`
	IndexPresent bool   `json:"index_present"`
	// IndexWhole: the index snapshot is neither sparse nor split (expandSnapshotIndex).
	IndexWhole bool `json:"index_whole,omitempty"`
	// SkipWorktree: the pre-flight index has skip-worktree entries (sparseArgs then apply).
	SkipWorktree bool  `json:"skip_worktree,omitempty"`
	IndexMtimeNs int64 `json:"index_mtime_ns"`
	// Config is `git config --list -z` (every scope, includes followed).
	Config []byte `json:"config,omitempty"`
	// Files are the snapshotted files by role.
	Files []fileSnap `json:"files"`
	// Ignores are the baseline's .gitignore blobs, by directory ("" is the root).
	Ignores []dirFile `json:"gitignores,omitempty"`
	// Dirs are the baseline's directories without a .gitattributes blob; AttrDirs those with one.
	Dirs     []string  `json:"dirs"`
	AttrDirs []string  `json:"attr_dirs,omitempty"`
	Subs     []subSnap `json:"submodules,omitempty"`
	// ObjectDirs are the object directories at pre-flight (objectDirSnap); nil in a snapshot
	// taken before they were recorded, which then trusts file change times alone.
	ObjectDirs []objectDirSnap `json:"object_dirs"`
	// IndexDiff: the SnapshotIndexDiff blob holds the index snapshot against the baseline.
	IndexDiff bool `json:"index_diff,omitempty"`
}

type fileSnap struct {
	Role    string `json:"role"`
	Path    string `json:"path"`
	Present bool   `json:"present"`
	Data    []byte `json:"data,omitempty"`
}

type dirFile struct {
	Dir  string `json:"dir"`
	Data []byte `json:"data"`
}

// subSnap is one baseline gitlink at pre-flight, populated or not; a populated one has its own
// snapshots under the store prefix "sub/<Key>/".
type subSnap struct {
	Path      string `json:"path"`
	Populated bool   `json:"populated"`
	Head      string `json:"head,omitempty"`
	Key       string `json:"key,omitempty"`
}

// hasDir reports whether d is a directory of the baseline tree, with or without a
// .gitattributes blob.
func (s *inputsSnapshot) hasDir(d string) bool {
	_, a := slices.BinarySearch(s.Dirs, d)
	_, b := slices.BinarySearch(s.AttrDirs, d)
	return a || b
}

func (s *inputsSnapshot) file(role string) fileSnap {
	for _, f := range s.Files {
		if f.Role == role {
			return f
		}
	}
	return fileSnap{Role: role}
}

// TakeSnapshot records in store the pre-flight snapshots that gitscope.md §4.6 lists, for
// baseline and recursively for each populated submodule. It writes nothing in the repository
// but a short-lived time stamp file; a FIFO, socket or device where a snapshotted file should be
// is ErrUnsafeRepository.
func (r *Repo) TakeSnapshot(ctx context.Context, baseline string, store SnapshotStore) error {
	if !IsFullOID(baseline) {
		return fmt.Errorf("baseline %q is not a full 40-hex object id: %w", baseline, ErrBaselineUnavailable)
	}
	return r.takeSnapshot(ctx, baseline, store, 0)
}

func (r *Repo) takeSnapshot(ctx context.Context, baseline string, store SnapshotStore, depth int) error {
	gitDir, commonDir, ok := gitDirOf(r.root)
	if !ok {
		return fmt.Errorf("%s: cannot find the git directory: %w", r.root, ErrNotRepository)
	}
	if err := checkGitDirFiles(gitDir, commonDir); err != nil {
		return err
	}
	stamp, err := fsTime(gitDir)
	if err != nil {
		return err
	}
	s := &inputsSnapshot{Version: inputsVersion, Baseline: baseline, PreflightNs: stamp, GitCLI: r.gitUsable(),
		GitDir: gitDir, CommonDir: commonDir}

	// The index first: the executor has not started, but nothing should widen the window.
	idx := filepath.Join(gitDir, "index")
	if p, err := r.indexPath(ctx); err == nil {
		idx = p
	}
	if f, err := openRegular(idx); err == nil {
		fi, err := f.Stat()
		if err == nil && fi.Size() > maxIndexBytes {
			err = fmt.Errorf("the index %s is larger than %d bytes", idx, int64(maxIndexBytes))
		}
		if err == nil {
			err = store.Put(SnapshotIndex, io.LimitReader(f, maxIndexBytes))
		}
		f.Close()
		if err != nil {
			return err
		}
		s.IndexPresent, s.IndexMtimeNs = true, fi.ModTime().UnixNano()
		if ls, ok := store.(LocalSnapshotStore); ok {
			if p, err := ls.SnapshotPath(SnapshotIndex); err == nil {
				_ = os.Chtimes(p, fi.ModTime(), fi.ModTime())
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}

	// The configuration, the skip-worktree scan and the baseline tree are independent git
	// reads, so they run at once.
	var bt *baselineLayout
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if s.GitCLI {
			var err error
			if s.Config, err = r.configList(gctx); err != nil {
				return err
			}
		}
		excludes, attributes := r.globalInputPaths(s.Config, s.GitCLI)
		for _, f := range []struct{ role, path string }{
			{roleInfoExclude, filepath.Join(commonDir, "info", "exclude")},
			{roleInfoAttributes, filepath.Join(commonDir, "info", "attributes")},
			{roleInfoGrafts, filepath.Join(commonDir, "info", "grafts")},
			{roleAlternates, filepath.Join(commonDir, "objects", "info", "alternates")},
			{roleExcludesFile, excludes},
			{roleAttributesFile, attributes},
			{roleConfig, filepath.Join(commonDir, "config")},
			{roleConfigWorktree, filepath.Join(gitDir, "config.worktree")},
		} {
			fsn, err := snapFile(f.role, f.path)
			if err != nil {
				return err
			}
			s.Files = append(s.Files, fsn)
		}
		return nil
	})
	if s.IndexPresent {
		g.Go(func() error {
			var err error
			s.SkipWorktree, err = r.hasSkipWorktree(gctx)
			return err
		})
	}
	g.Go(func() error {
		var err error
		bt, err = r.baselineLayout(gctx, baseline)
		return err
	})
	if err := g.Wait(); err != nil {
		return err
	}
	s.Ignores, s.Dirs, s.AttrDirs = bt.ignores, bt.dirs, bt.attrDirs
	if s.ObjectDirs, err = snapObjectDirs(commonDir); err != nil {
		return err
	}
	if s.GitCLI {
		// The index snapshot expanded if sparse, and against the baseline, while the objects
		// are the approved ones: post-flight then reads no baseline object for the paths nobody
		// touched.
		if s.IndexPresent {
			if err := r.expandSnapshotIndex(ctx, store, s); err != nil {
				return err
			}
			s.IndexWhole = true
		}
		if err := r.snapIndexDiff(ctx, store, s); err != nil {
			return err
		}
		s.IndexDiff = true
	}
	for _, p := range bt.gitlinks {
		sub := subSnap{Path: p}
		subRoot := filepath.Join(r.root, filepath.FromSlash(p))
		if _, err := os.Lstat(filepath.Join(subRoot, ".git")); err == nil {
			if depth >= maxSubmoduleDepth {
				return fmt.Errorf("submodule %s: more than %d levels of nested submodules", p, maxSubmoduleDepth)
			}
			sr, err := OpenWith(subRoot, r.opts)
			if err != nil {
				return fmt.Errorf("submodule %s: %w", p, err)
			}
			head, unborn, err := sr.Head(ctx)
			if err != nil {
				return fmt.Errorf("submodule %s: %w", p, err)
			}
			if unborn {
				head = EmptyTreeOID
			}
			sum := sha256.Sum256([]byte(p))
			sub.Populated, sub.Head, sub.Key = true, head, hex.EncodeToString(sum[:8])
			if err := sr.takeSnapshot(ctx, head, prefixStore{store, "sub/" + sub.Key + "/"}, depth+1); err != nil {
				return fmt.Errorf("submodule %s: %w", p, err)
			}
		}
		s.Subs = append(s.Subs, sub)
	}
	doc, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if len(doc) > maxInputsBytes {
		return fmt.Errorf("the repository's snapshot inputs exceed %d MiB", maxInputsBytes>>20)
	}
	// Written last: a snapshot without its inputs document is no snapshot (ErrNoSnapshot).
	return store.Put(SnapshotInputs, bytes.NewReader(doc))
}

// HasSnapshot reports whether store holds a readable pre-flight snapshot for baseline.
func HasSnapshot(store SnapshotStore, baseline string) bool {
	s, err := loadSnapshot(store)
	return err == nil && s.Baseline == baseline
}

// loadSnapshot reads the SnapshotInputs document from store; ErrNoSnapshot when there is none.
func loadSnapshot(store SnapshotStore) (*inputsSnapshot, error) {
	rc, err := store.Open(SnapshotInputs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNoSnapshot
		}
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxInputsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("snapshot store: %w", err)
	}
	if len(b) > maxInputsBytes {
		return nil, fmt.Errorf("snapshot store: %s is larger than %d MiB", SnapshotInputs, maxInputsBytes>>20)
	}
	var s inputsSnapshot
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("snapshot store: %s is not a snapshot document (%v); run pre-flight again", SnapshotInputs, err)
	}
	if s.Version != inputsVersion || !IsFullOID(s.Baseline) {
		return nil, fmt.Errorf("snapshot store: %s has version %d (want %d) or no baseline; run pre-flight again", SnapshotInputs, s.Version, inputsVersion)
	}
	return &s, nil
}

// fsTime returns the file system's current time as seen in dir: the change time of a file
// created there (and removed at once).
func fsTime(dir string) (int64, error) {
	f, err := os.CreateTemp(dir, "mastermind-preflight-*")
	if err != nil {
		return 0, fmt.Errorf("pre-flight time stamp: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return ctimeOf(fi), nil
}

// ctimeOf is fi's change time in ns, or its mtime where the platform has none.
func ctimeOf(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec).UnixNano()
	}
	return fi.ModTime().UnixNano()
}

// snapFile reads one snapshotted file: absent is Present false; a FIFO, socket or device is
// ErrUnsafeRepository; more than maxInputFileBytes is an error.
func snapFile(role, p string) (fileSnap, error) {
	fsn := fileSnap{Role: role, Path: p}
	if p == "" {
		return fsn, nil
	}
	b, err := readRegular(p, maxInputFileBytes)
	switch {
	case err == nil:
		fsn.Present, fsn.Data = true, b
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
	default:
		return fsn, fmt.Errorf("%s (%s): %w", role, p, err)
	}
	return fsn, nil
}

// configListArgs lists every configuration value git sees (all scopes, includes followed).
// Reading configuration runs nothing.
var configListArgs = []string{"config", "--list", "-z"}

// configList runs configListArgs once the configuration files are checked; no configuration at
// all (exit 1, no output) is empty.
func (r *Repo) configList(ctx context.Context) ([]byte, error) {
	if err := r.checkConfigIncludes(); err != nil {
		return nil, err
	}
	return r.listConfig(ctx)
}

// listConfig is configList for a caller that has checked the configuration files already.
func (r *Repo) listConfig(ctx context.Context) ([]byte, error) {
	out, err := r.runSimple(ctx, r.root, configListArgs...)
	if err != nil {
		var gf *ErrGitFailed
		if errors.As(err, &gf) && gf.Exit == 1 && len(out) == 0 {
			return nil, nil
		}
		return nil, err
	}
	return out, nil
}

// configEntry is one `git config --list -z` record: "key\nvalue\0" or "key\0" (no value).
type configEntry struct{ key, value string }

// parseConfigList splits `git config --list -z` output; keys keep git's spelling.
func parseConfigList(b []byte) ([]configEntry, error) {
	var out []configEntry
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil, fmt.Errorf("unexpected output: missing trailing NUL")
		}
		rec := string(b[:i])
		b = b[i+1:]
		k, v, _ := strings.Cut(rec, "\n")
		out = append(out, configEntry{k, v})
	}
	return out, nil
}

// lastValue is the last value of key, git's rule for single-valued keys; "" when unset.
func lastValue(es []configEntry, key string) (string, bool) {
	v, ok := "", false
	for _, e := range es {
		if strings.EqualFold(e.key, key) {
			v, ok = e.value, true
		}
	}
	return v, ok
}

// globalInputPaths resolves core.excludesFile and core.attributesFile as git does, defaulting
// to $XDG_CONFIG_HOME/git/ignore and .../attributes. Without the CLI listing, go-git reads the
// config files and follows no include.
func (r *Repo) globalInputPaths(list []byte, cli bool) (excludes, attributes string) {
	var ex, at string
	var exOK, atOK bool
	if cli {
		es, _ := parseConfigList(list)
		ex, exOK = lastValue(es, "core.excludesfile")
		at, atOK = lastValue(es, "core.attributesfile")
	} else {
		configs := []string{}
		if x := xdgConfigHome(); x != "" {
			configs = append(configs, filepath.Join(x, "git", "config"))
		}
		if h, err := os.UserHomeDir(); err == nil {
			configs = append(configs, filepath.Join(h, ".gitconfig"))
		}
		if _, common, ok := gitDirOf(r.root); ok {
			configs = append(configs, filepath.Join(common, "config"))
		}
		for _, c := range configs {
			if cfg := readConfigFile(c); cfg != nil {
				if sec := cfg.Section("core"); sec.HasOption("excludesfile") {
					ex, exOK = sec.Option("excludesfile"), true
				}
				if sec := cfg.Section("core"); sec.HasOption("attributesfile") {
					at, atOK = sec.Option("attributesfile"), true
				}
			}
		}
	}
	resolve := func(v string, ok bool, dflt string) string {
		if !ok || v == "" {
			if x := xdgConfigHome(); x != "" {
				return filepath.Join(x, "git", dflt)
			}
			return ""
		}
		v = expandTilde(v)
		if !filepath.IsAbs(v) {
			v = filepath.Join(r.root, v)
		}
		return v
	}
	return resolve(ex, exOK, "ignore"), resolve(at, atOK, "attributes")
}

// baselineLayout is what the snapshot keeps of the baseline tree.
type baselineLayout struct {
	ignores  []dirFile
	dirs     []string // without .gitattributes
	attrDirs []string // with a .gitattributes blob
	gitlinks []string
}

// baselineLayout walks the baseline tree: `git ls-tree -r -t -z --full-tree` and one
// `git cat-file --batch` for the .gitignore blobs, or go-git without a usable git.
func (r *Repo) baselineLayout(ctx context.Context, baseline string) (*baselineLayout, error) {
	bl := &baselineLayout{}
	dirs := map[string]bool{"": false} // dir -> has .gitattributes
	var ignoreOIDs []string
	var ignoreDirs []string
	addEntry := func(mode filemode.FileMode, oid, p string) {
		dir, base := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		switch {
		case mode == filemode.Dir:
			if _, ok := dirs[p]; !ok {
				dirs[p] = false
			}
		case mode == filemode.Submodule:
			bl.gitlinks = append(bl.gitlinks, p)
		case base == ".gitattributes":
			dirs[dir] = true
		case base == ".gitignore" && (mode == filemode.Regular || mode == filemode.Executable || mode == filemode.Deprecated):
			// git reads no symlinked .gitignore (2.32+); a symlink blob is no rule.
			ignoreOIDs = append(ignoreOIDs, oid)
			ignoreDirs = append(ignoreDirs, dir)
		}
	}
	if baseline != EmptyTreeOID {
		if r.gitUsable() {
			if err := r.lsTreeAll(ctx, baseline, addEntry); err != nil {
				return nil, err
			}
		} else if err := r.goGitWalk(baseline, addEntry); err != nil {
			return nil, err
		}
	}
	if len(ignoreOIDs) > 0 {
		blobs, err := r.readBlobs(ctx, ignoreOIDs)
		if err != nil {
			return nil, err
		}
		for i, b := range blobs {
			bl.ignores = append(bl.ignores, dirFile{Dir: ignoreDirs[i], Data: b})
		}
	}
	for d, attr := range dirs {
		if attr {
			bl.attrDirs = append(bl.attrDirs, d)
		} else {
			bl.dirs = append(bl.dirs, d)
		}
	}
	slices.Sort(bl.dirs)
	slices.Sort(bl.attrDirs)
	slices.SortFunc(bl.ignores, func(a, b dirFile) int { return strings.Compare(a.Dir, b.Dir) })
	return bl, nil
}

// lsTreeAll streams `git ls-tree -r -t -z --full-tree <baseline>` into fn.
func (r *Repo) lsTreeAll(ctx context.Context, baseline string, fn func(filemode.FileMode, string, string)) error {
	args := slices.Concat(globalArgs, []string{"ls-tree", "-r", "-t", "-z", "--full-tree", "--end-of-options", baseline})
	var total int64
	return r.run(ctx, r.root, "ls-tree", args, func(rd io.Reader) error {
		return eachRecord(rd, &total, func(rec []byte) error {
			meta, name, ok := bytes.Cut(rec, []byte{'\t'})
			f := strings.Fields(string(meta))
			if !ok || len(f) != 3 || len(name) == 0 {
				return shapef("ls-tree record %q", truncateForMessage(rec))
			}
			m, err := filemode.New(f[0])
			if err != nil {
				return shapef("ls-tree mode %q", f[0])
			}
			fn(m, f[2], string(name))
			return nil
		})
	})
}

// goGitWalk walks the baseline tree with go-git (no git binary).
func (r *Repo) goGitWalk(baseline string, fn func(filemode.FileMode, string, string)) error {
	gg, release, err := r.goGit()
	defer release()
	if err != nil {
		return r.layoutError(err)
	}
	t, err := baselineTree(gg, baseline)
	if err != nil || t == nil {
		return err
	}
	var walk func(t *object.Tree, prefix string, depth int) error
	walk = func(t *object.Tree, prefix string, depth int) error {
		if depth > 1024 {
			return fmt.Errorf("baseline tree deeper than 1024 levels")
		}
		for _, e := range t.Entries {
			name := prefix + e.Name
			fn(e.Mode, e.Hash.String(), name)
			if e.Mode == filemode.Dir {
				sub, err := object.GetTree(gg.Storer, e.Hash)
				if err != nil {
					return fmt.Errorf("reading baseline tree %s (%s): %w", name, e.Hash, err)
				}
				if err := walk(sub, name+"/", depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(t, "", 0)
}

// readBlobs returns the contents of the blobs oids (each at most maxInputFileBytes): one
// `git cat-file --batch`, or go-git without git.
func (r *Repo) readBlobs(ctx context.Context, oids []string) ([][]byte, error) {
	out := make([][]byte, 0, len(oids))
	if !r.gitUsable() {
		gg, release, err := r.goGit()
		defer release()
		if err != nil {
			return nil, r.layoutError(err)
		}
		for _, o := range oids {
			b, err := goGitBlob(gg, o, maxInputFileBytes)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
		return out, nil
	}
	in := strings.Join(oids, "\n") + "\n"
	args := slices.Concat(globalArgs, []string{"cat-file", "--batch"})
	err := r.runIn(ctx, r.root, "cat-file", args, nil, strings.NewReader(in), func(rd io.Reader) error {
		br := bufio.NewReader(rd)
		for range oids {
			hdr, err := br.ReadString('\n')
			if err != nil {
				return shapef("cat-file header: %v", err)
			}
			f := strings.Fields(hdr)
			if len(f) != 3 || f[1] != "blob" {
				return shapef("cat-file header %q", truncateForMessage([]byte(hdr)))
			}
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || n < 0 || n > maxInputFileBytes {
				return shapef("cat-file size %q", f[2])
			}
			b := make([]byte, n+1)
			if _, err := io.ReadFull(br, b); err != nil || b[n] != '\n' {
				return shapef("cat-file body")
			}
			out = append(out, b[:n])
		}
		_, err := io.Copy(io.Discard, br)
		return err
	})
	return out, err
}

// hasSkipWorktree reports whether the index has a skip-worktree entry, from the tags of `git
// ls-files -v -z` or, without git, go-git's decoded index.
func (r *Repo) hasSkipWorktree(ctx context.Context) (bool, error) {
	if !r.gitUsable() {
		gg, release, err := r.goGit()
		defer release()
		if err != nil {
			return false, r.layoutError(err)
		}
		idx, err := gg.Storer.Index()
		if err != nil {
			return false, r.layoutError(fmt.Errorf("%w (reading the index: %v)", ErrUnsupportedRepository, err))
		}
		for _, e := range idx.Entries {
			if e.SkipWorktree {
				return true, nil
			}
		}
		return false, nil
	}
	return r.indexHasTag(ctx, func(tag byte) bool { return tag == 'S' || tag == 's' })
}

// lsTagArgs list the index entries with their status tags (ls-files -v): 'H' cached, 'S'
// skip-worktree, 'M' unmerged, each in lower case when the entry is also assume-unchanged.
var lsTagArgs = slices.Concat(globalArgs, []string{"ls-files", "-z", "-v", "--cached", "--full-name", "--"})

// indexHasTag reports whether match accepts the ls-files -v tag of any index entry; it needs a
// usable git.
func (r *Repo) indexHasTag(ctx context.Context, match func(tag byte) bool) (bool, error) {
	found := false
	var total int64
	err := r.run(ctx, r.root, "ls-files", lsTagArgs, func(rd io.Reader) error {
		return eachRecord(rd, &total, func(rec []byte) error {
			if len(rec) > 0 && match(rec[0]) {
				found = true
			}
			return nil
		})
	})
	return found, err
}
