package audit

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/verification"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// VerifyInputs turn on the controller-run verification step (verification-receipts.md §2) of
// one audit. Only run-task's post-flight sets them; the gate audits without running anything.
type VerifyInputs struct {
	// All runs every declared command (--run-verify); otherwise only those with run: true.
	All bool
	// Rerun runs again even when Store holds receipts for the same inputs (--rerun-verify).
	Rerun bool
	// Store keeps the task's receipts.
	Store verifyrun.Store
	// Env is the base environment of the runs, nil for the process's; Progress reports a running
	// command for a terminal.
	Env      []string
	Progress func(verifyrun.Progress)
	// Recompute computes the changed set since the baseline again, after the runs.
	Recompute func(ctx context.Context) (*gitscope.ChangedSet, error)
	// Context, when set, is the context of the runs instead of Compute's: the caller's without
	// the post-flight deadline, which trust-model.md I5 does not apply to verification commands.
	Context context.Context
	// Ignored lists the files the audit does not see (ignored under the pre-flight rules, or in
	// one of caches, the left-out tool caches) whose change time is at or after since (0: the
	// pre-flight time); Clock is the repository file system's time in ns. Nil Ignored skips
	// verification_ignored_input (verification-receipts.md §2.1).
	Ignored func(ctx context.Context, caches []gitscope.IgnoredDir, since int64) ([]string, error)
	Clock   func() (int64, error)
	// CacheDir, when set, is the controller's directory the runs' tool caches are pointed at
	// (verifyrun.WithCachePins).
	CacheDir string
	// Writes are the paths the controller's earlier runs created, with content ids; SaveWrites,
	// when set, records the set after new runs (verification-receipts.md §2.2).
	Writes     map[string]string
	SaveWrites func(map[string]string) error
}

// checkReceipts runs or reuses the planned commands after every other check has read the work
// tree, replaces the report findings their receipts supersede and fills the verification
// evidence (verification-receipts.md §4). Paths the runs changed are
// verification_modified_worktree; an error is operational.
func (r *run) checkReceipts(v *VerifyInputs, fs []finding.Finding) ([]finding.Finding, *verifyrun.StepResult, error) {
	rows := reportRows(r.rep)
	env, err := r.runEnv(v.Env)
	if err != nil {
		return nil, nil, err
	}
	env, pinned := verifyrun.WithCachePins(env, v.CacheDir)
	in := verifyrun.StepInputs{Root: r.in.Root, Spec: r.in.Spec, Baseline: r.in.Baseline,
		Rows: rows, All: v.All, Rerun: v.Rerun, Store: v.Store, Env: env, Progress: v.Progress}
	stood := r.witnessedRuns(v.All)
	if len(stood) > 0 {
		in.Skip = func(cmd string) bool { return stood[verification.MatchKey(cmd)] != nil }
	}
	// The content ids read every changed file; nothing needs them when no command is planned.
	planned := len(verifyrun.Plan(r.in.Spec, v.All)) > 0
	var start int64
	if planned {
		in.Before = pathStates(r.in.Root, r.d)
		if v.Ignored != nil {
			paths, err := v.Ignored(r.ctx, r.caches, 0)
			if err != nil {
				return nil, nil, err
			}
			for _, p := range paths {
				c := verifyrun.WorktreeContent(r.in.Root, p)
				if v.Writes[p] == c || verifyrun.PinnedAway(r.in.Root, p, pinned) {
					continue
				}
				in.Ignored = append(in.Ignored, verifyrun.PathState{Path: p, Status: "ignored", Content: c})
			}
		}
		if v.Clock != nil {
			if start, err = v.Clock(); err != nil {
				return nil, nil, err
			}
		}
	}
	var afterCS *gitscope.ChangedSet
	if v.Recompute != nil {
		in.After = func(ctx context.Context) ([]verifyrun.PathState, error) {
			cs, err := v.Recompute(ctx)
			if err != nil {
				return nil, err
			}
			afterCS = cs
			var d []gitscope.Entry
			for _, e := range cs.WithoutControl(r.in.Control) {
				if _, bad := unrepresentable(e); !bad {
					d = append(d, e)
				}
			}
			return pathStates(r.in.Root, d), nil
		}
	}
	ctx := r.ctx
	if v.Context != nil {
		ctx = v.Context
	}
	step, err := verifyrun.Step(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	if planned && !step.Reused && v.SaveWrites != nil {
		created, err := r.saveWrites(ctx, v, step, start, afterCS)
		if err != nil {
			return nil, nil, err
		}
		defer func() {
			if ev := r.ev.Verification; ev != nil && len(created) > 0 {
				ev.Lines = append(ev.Lines, createdLine(created))
			}
		}()
	}
	out := fs
	if len(step.Plan) > 0 {
		out = fs[:0:0]
		for _, f := range fs {
			if !step.Supersedes(f) {
				out = append(out, f)
			}
		}
		out = append(out, step.Findings...)
	}
	if ev := r.ev.Verification; ev != nil {
		ev.Receipts = step.Evidence()
		for i := range ev.Rows {
			row := &ev.Rows[i]
			if step.ReceiptFor(row.Cmd) != nil {
				raw := verificationClassOf(row.Classification)
				row.Basis, row.Classification = step.RowBasis(row.Cmd, raw)
			}
		}
		ev.Lines = step.Lines(r.in.Spec.VerifyCommands, rows)
		witnessedLines(ev, stood)
	}
	return out, step, nil
}

// runEnv returns base, nil for the process's environment, with GOWORK=off when the root holds
// an ignored go.work that is in neither the baseline nor the changed set: such a file could
// swap a tested dependency unseen (docs/hardening.md H5). A GOWORK the caller set is kept.
func (r *run) runEnv(base []string) ([]string, error) {
	if base == nil {
		base = os.Environ()
	}
	for _, kv := range base {
		if strings.HasPrefix(kv, "GOWORK=") {
			return base, nil
		}
	}
	if _, err := os.Lstat(filepath.Join(r.in.Root, "go.work")); err != nil {
		return base, nil
	}
	if _, changed := r.status("go.work"); changed {
		return base, nil
	}
	if r.in.Claims != nil {
		_, tracked, err := r.in.Claims.BaselineBlob(r.ctx, r.in.Baseline, "go.work")
		if err != nil {
			return nil, err
		}
		if tracked {
			return base, nil
		}
	}
	return append(slices.Clip(base), "GOWORK=off"), nil
}

// verificationClassOf undoes ClaimBasis's renaming, so RowBasis sees the §10.5.2 class.
func verificationClassOf(class string) string {
	if class == verifyrun.ClassClaimed {
		return verifyrun.ClassPassed
	}
	return class
}

// pathStates are the entries of d with their work-tree content ids, for the receipts'
// fingerprint and the after-run comparison.
func pathStates(root string, d []gitscope.Entry) []verifyrun.PathState {
	out := make([]verifyrun.PathState, 0, len(d))
	for _, e := range d {
		p := string(e.Path)
		out = append(out, verifyrun.PathState{Path: p, Status: string(e.Status), Content: verifyrun.WorktreeContent(root, p)})
	}
	return out
}

// saveWrites records what the runs of step created (verification-receipts.md §2.2): the new
// untracked paths of D, and the ignored or tool-cache files written since start, each with its
// content id; earlier writes that still hold their content are kept. At most
// store.MaxControllerWrites paths are kept, in path order.
func (r *run) saveWrites(ctx context.Context, v *VerifyInputs, step *verifyrun.StepResult, start int64, after *gitscope.ChangedSet) ([]string, error) {
	w := map[string]string{}
	var created []string
	for p, c := range v.Writes {
		if verifyrun.WorktreeContent(r.in.Root, p) == c {
			w[p] = c
		}
	}
	for _, c := range step.Created {
		w[c.Path] = c.Content
		created = append(created, c.Path)
	}
	if v.Ignored != nil && start > 0 {
		var caches []gitscope.IgnoredDir
		if after != nil {
			caches = after.ToolCaches
		}
		paths, err := v.Ignored(ctx, caches, start)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			if c := verifyrun.WorktreeContent(r.in.Root, p); fsx.ContentStable(c) && c != fsx.ContentAbsent {
				w[p] = c
				created = append(created, p)
			}
		}
	}
	if len(w) > maxControllerWrites {
		keys := slices.Sorted(maps.Keys(w))
		for _, k := range keys[maxControllerWrites:] {
			delete(w, k)
		}
	}
	slices.Sort(created)
	return slices.Compact(created), v.SaveWrites(w)
}

// createdLine is audit.md's line for the paths the runs created (the controller's from now on).
func createdLine(created []string) string {
	shown := make([]string, 0, 5)
	for _, p := range created[:min(len(created), 5)] {
		shown = append(shown, textsafe.Escape(p))
	}
	more := ""
	if len(created) > len(shown) {
		more = fmt.Sprintf(", and %d more", len(created)-len(shown))
	}
	return fmt.Sprintf("created by mastermind's verification runs, recorded as the controller's (left out while unchanged): %d files (%s%s)",
		len(created), strings.Join(shown, ", "), more)
}

// maxControllerWrites is store.MaxControllerWrites (the audit does not import the store).
const maxControllerWrites = 20000

// TaskD is the changed set D a task's audit charges to the executor, the one rule of every
// door: cs without the controller's paths below .mastermind/ (rule) and without the files its
// verification runs created that still hold their recorded content (writes), with those files'
// paths (escaped, sorted).
func TaskD(root string, cs *gitscope.ChangedSet, rule repopath.ControlRule, writes map[string]string) ([]gitscope.Entry, []string) {
	d := cs.WithoutControl(rule)
	if len(writes) == 0 {
		return d, nil
	}
	return WithoutControllerWrites(root, d, writes)
}

// WithoutControllerWrites returns d without the untracked entries that writes records with
// their present content id, and those paths (escaped, sorted as d is). d is copied only when
// an entry is left out.
func WithoutControllerWrites(root string, d []gitscope.Entry, writes map[string]string) ([]gitscope.Entry, []string) {
	var out []gitscope.Entry
	var left []string
	for i, e := range d {
		c, ok := writes[string(e.Path)]
		mine := ok && e.Status == gitscope.StatusUntracked && verifyrun.WorktreeContent(root, string(e.Path)) == c
		if mine && out == nil {
			out = slices.Clone(d[:i])
		}
		switch {
		case mine:
			left = append(left, textsafe.Escape(string(e.Path)))
		case out != nil:
			out = append(out, e)
		}
	}
	if out == nil && left == nil {
		return d, nil
	}
	if out == nil {
		out = []gitscope.Entry{}
	}
	return out, left
}
