package postflight

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/store"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// verifyInputs are the verification step's inputs for run-task's post-flight of st
// (verification-receipts.md §2): the run flags, the task's receipts folder, and the changed set
// computed again after the runs.
//
// With the task's store record, the recomputation uses the pre-flight snapshots like the audit,
// and the runs' inputs and writes are handled as §2.1 and §2.2 say.
func (c *controller) verifyInputs(st *State) *audit.VerifyInputs {
	baseline := st.BaselineRef
	v := &audit.VerifyInputs{All: c.opts.RunVerify, Rerun: c.opts.RerunVerify,
		Store:    lazyReceipts{task: c.task, dir: c.opts.ReceiptsDir, files: c.files},
		Progress: c.opts.VerifyProgress, Context: c.opts.VerifyContext,
		Recompute: func(ctx context.Context) (*gitscope.ChangedSet, error) {
			return c.git.ChangedSet(ctx, baseline)
		}}
	if c.files == nil || c.files.st == nil {
		return v
	}
	snap := c.files.st
	v.Recompute = func(ctx context.Context) (*gitscope.ChangedSet, error) {
		// The pre-flight rules with the tool-cache rule (gitscope.md §4.7): a cache the run
		// creates (.pytest_cache) is left out here as in the audit.
		view, err := c.git.SnapshotView(ctx, baseline, snap)
		if err != nil {
			return nil, err
		}
		defer view.Close()
		return view.ChangedSet(ctx)
	}
	v.Ignored = func(ctx context.Context, caches []gitscope.IgnoredDir, since int64) ([]string, error) {
		return c.git.IgnoredSince(ctx, baseline, snap, caches, since)
	}
	v.Clock = c.git.FileSystemNow
	v.CacheDir = filepath.Join(snap.Path(), "tool-caches")
	v.Writes = c.files.controllerWrites(baseline)
	v.SaveWrites = func(w map[string]string) error {
		return snap.SaveWrites(&store.ControllerWrites{Baseline: baseline, Paths: w})
	}
	return v
}

// controllerWrites are the paths the controller's runs created for baseline (the store's
// record of them), nil when there are none or they belong to another baseline. A damaged record
// counts as none: its paths are then the executor's to explain.
func (f *taskFiles) controllerWrites(baseline string) map[string]string {
	if f == nil {
		return nil
	}
	return recordedWrites(f.st, baseline)
}

// recordedWrites are the controller's writes for baseline in the store record st (nil: none);
// every door reads them through it.
func recordedWrites(st *store.Task, baseline string) map[string]string {
	if st == nil {
		return nil
	}
	w, err := st.LoadWrites()
	if err != nil || w == nil || w.Baseline != baseline {
		return nil
	}
	return w.Paths
}

// lazyReceipts resolves the receipts folder only when a receipt is read or written, so a
// post-flight with nothing to run never looks for the controller store.
type lazyReceipts struct {
	task Task
	dir  string
	// files, when it holds the task's controller-store record, owns the receipts folder.
	files *taskFiles
}

func (l lazyReceipts) store() (verifyrun.DirStore, error) {
	if l.dir != "" {
		return verifyrun.DirStore{Dir: l.dir}, nil
	}
	if l.files != nil && l.files.st != nil {
		d, err := l.files.st.Receipts()
		if err != nil {
			return verifyrun.DirStore{}, err
		}
		defer d.Close()
		return verifyrun.DirStore{Dir: d.Path()}, nil
	}
	d, err := ReceiptsDir(l.task)
	return verifyrun.DirStore{Dir: d}, err
}

func (l lazyReceipts) Load(fp string) ([]*verifyrun.Receipt, bool, error) {
	s, err := l.store()
	if err != nil {
		return nil, false, err
	}
	return s.Load(fp)
}

func (l lazyReceipts) Output(n int) (io.WriteCloser, error) {
	s, err := l.store()
	if err != nil {
		return nil, err
	}
	return s.Output(n)
}

func (l lazyReceipts) Save(fp string, rs []*verifyrun.Receipt) error {
	s, err := l.store()
	if err != nil {
		return err
	}
	return s.Save(fp, rs)
}

// ReceiptsDir is the task's receipts folder in the controller store of trust-model.md §3, outside
// the work tree and so out of the executor's reach where a sandbox confines it there.
func ReceiptsDir(t Task) (string, error) {
	base, err := stateDir()
	if err != nil {
		return "", err
	}
	gitDir, err := ownGitDir(t.Root)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(gitDir))
	return filepath.Join(base, "repos", hex.EncodeToString(sum[:]), "tasks", t.Name, "receipts"), nil
}

func stateDir() (string, error) {
	if d := os.Getenv("MASTERMIND_STATE_DIR"); d != "" {
		return filepath.Abs(d)
	}
	if runtime.GOOS == "windows" {
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "mastermind"), nil
		}
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "mastermind"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("no place for verification receipts: set MASTERMIND_STATE_DIR or HOME")
	}
	return filepath.Join(home, ".local", "state", "mastermind"), nil
}

// ownGitDir is the real path of the work tree's own git directory: root/.git, or the directory
// a .git file ("gitdir: <path>") of a linked worktree names.
func ownGitDir(root string) (string, error) {
	p := filepath.Join(root, ".git")
	fi, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	if fi.Mode().IsRegular() {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		line, _, _ := strings.Cut(string(b), "\n")
		target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return "", errors.New(p + " is not a gitdir file")
		}
		target = strings.TrimSpace(target)
		if !filepath.IsAbs(target) {
			target = filepath.Join(root, target)
		}
		p = target
	}
	return filepath.EvalSymlinks(p)
}
