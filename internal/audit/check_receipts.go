package audit

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
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
	// Store keeps the task's receipts (the controller store's receipts folder).
	Store verifyrun.Store
	// Env is the base environment of the runs (nil: the process's); Progress reports a running
	// command for a terminal.
	Env      []string
	Progress func(verifyrun.Progress)
	// Recompute computes the changed set since the baseline again, after the runs.
	Recompute func(ctx context.Context) (*gitscope.ChangedSet, error)
	// Context, when set, is the context of the runs instead of Compute's: the caller's without
	// the post-flight deadline (trust-model.md I5 leaves verification commands outside it, each
	// bounded by its own timeout), still cancelled by Ctrl-C.
	Context context.Context
}

// checkReceipts runs the verification step after every other check has read the work tree:
// the planned commands run (or their receipts are reused), their §4 findings replace the report
// evidence they supersede (verification_requirement_unmet and vacuous_test_claim of a command
// that ran), and the verification evidence gets the receipts, each row's basis and audit.md's
// verification lines. The changed set the other checks used is kept; paths the runs changed are
// verification_modified_worktree. An error is operational (a run could not start, Ctrl-C, the
// store or git failed).
func (r *run) checkReceipts(v *VerifyInputs, fs []finding.Finding) ([]finding.Finding, *verifyrun.StepResult, error) {
	rows := reportRows(r.rep)
	env, err := r.runEnv(v.Env)
	if err != nil {
		return nil, nil, err
	}
	in := verifyrun.StepInputs{Root: r.in.Root, Spec: r.in.Spec, Baseline: r.in.Baseline,
		Rows: rows, All: v.All, Rerun: v.Rerun, Store: v.Store, Env: env, Progress: v.Progress}
	stood := r.witnessedRuns(v.All)
	if len(stood) > 0 {
		in.Skip = func(cmd string) bool { return stood[verification.MatchKey(cmd)] != nil }
	}
	// The content ids read every changed file; nothing needs them when no command is planned
	// (gitscope.md §8.1 scenario B: 100,000 reads saved).
	if len(verifyrun.Plan(r.in.Spec, v.All)) > 0 {
		in.Before = pathStates(r.in.Root, r.d)
	}
	if v.Recompute != nil {
		in.After = func(ctx context.Context) ([]verifyrun.PathState, error) {
			cs, err := v.Recompute(ctx)
			if err != nil {
				return nil, err
			}
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

// runEnv returns the runs' base environment: base (nil: the process's), with GOWORK=off when the
// root holds a go.work that nothing audits — absent from the baseline and from the changed set,
// so ignored (.gitignore often lists go.work). Such a file could replace a dependency of the
// tested module with the executor's copy from another ignored directory while the changed set
// shows none of it (docs/hardening.md H5). A GOWORK the caller set is kept. Errors are those of
// reading the baseline.
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
