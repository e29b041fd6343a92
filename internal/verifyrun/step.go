package verifyrun

import (
	"context"
	"slices"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/verification"
)

// StepInputs are the inputs of post-flight's verification step (verification-receipts.md §2).
type StepInputs struct {
	// Root is the absolute repository root; the commands run there.
	Root string
	// Spec is the hash-bound spec; its VerifyDeclared entries are the only commands run.
	Spec *spec.Spec
	// Baseline is the baseline OID (part of the fingerprint).
	Baseline string
	// Before is D before the runs: every changed path with its status and WorktreeContent.
	Before []PathState
	// Rows are the report's verification rows, for the §4 rules.
	Rows []verification.Row
	// All runs every declared command; otherwise only run: true ones run.
	All bool
	// Rerun runs again even when Store holds this fingerprint's receipts (--rerun-verify).
	Rerun bool
	// Store keeps the receipts; nil stores nothing and reuses nothing.
	Store Store
	// Env is the base environment (nil: os.Environ()); Progress as in Options.
	Env      []string
	Progress func(Progress)
	// Skip, when set, reports the run: witnessed commands whose witnessed run stands in for
	// mastermind's (docs/design/transcripts.md §6): they are left out of the plan.
	Skip func(cmd string) bool
	// After recomputes D once the commands ran, with content ids; nil skips the comparison.
	// It is not called when the receipts were reused.
	After func(ctx context.Context) ([]PathState, error)
	// Ignored are the files written since pre-flight that the audit does not see, with content
	// ids, less the controller's own earlier writes and PinnedAway files (verification-receipts.md
	// §2.1). They are named by verification_ignored_input and are part of the fingerprint.
	Ignored []PathState
}

// StepResult is the outcome of Step.
type StepResult struct {
	// Plan are the commands that were run or whose receipts were reused, in order.
	Plan []spec.DeclaredCommand
	// Receipts[i] is Plan[i]'s receipt.
	Receipts []*Receipt
	// Reused is true when the receipts came from Store and nothing ran.
	Reused bool
	// Fingerprint is the receipts' inputs fingerprint.
	Fingerprint string
	// Findings are the §4 findings of every planned command in plan order, then
	// verification_modified_worktree. The caller sorts them with the rest of the audit.
	Findings []finding.Finding
	// Modified are the paths the runs changed that existed before them (sorted); the audit keeps
	// the changed set from before the runs. Created are the untracked paths of D the runs
	// created, with their content ids: the controller's writes (verification-receipts.md §2.2).
	Modified []string
	Created  []PathState
}

// Step runs post-flight's verification step: the plan (Plan(in.Spec, in.All)), reused from
// in.Store when the fingerprint matches, in.Rerun is false and every in.Before content id is
// fsx.ContentStable; the §4 rules for every receipt;
// then, when something ran, D again and verification_modified_worktree for the paths that
// differ. With nothing planned it returns an empty result and runs nothing. Errors are those of
// RunAll and in.After.
func Step(ctx context.Context, in StepInputs) (*StepResult, error) {
	plan := Plan(in.Spec, in.All)
	if in.Skip != nil {
		plan = slices.DeleteFunc(slices.Clone(plan), func(d spec.DeclaredCommand) bool { return d.Witnessed && in.Skip(d.Cmd) })
	}
	res := &StepResult{Plan: plan}
	if len(plan) == 0 {
		return res, nil
	}
	fpInputs := in.Before
	if len(in.Ignored) > 0 {
		fpInputs = append(append(make([]PathState, 0, len(in.Before)+len(in.Ignored)), in.Before...), in.Ignored...)
	}
	res.Fingerprint = Fingerprint(in.Spec.Hash, in.Baseline, fpInputs, plan)
	// Receipts are reused only when the fingerprint pins every changed path's content. A changed
	// directory such as a submodule keeps the id "dir" whatever it holds, so equal fingerprints
	// would not mean equal work trees.
	rerun := in.Rerun
	for _, p := range fpInputs {
		if !fsx.ContentStable(p.Content) {
			rerun = true
			break
		}
	}
	rs, reused, err := RunAll(ctx, plan, res.Fingerprint, rerun, in.Store,
		Options{Dir: in.Root, Env: in.Env, Progress: in.Progress})
	if err != nil {
		return nil, err
	}
	res.Receipts, res.Reused = rs, reused
	for i, d := range plan {
		res.Findings = append(res.Findings, Rules(d, rs[i], in.Rows)...)
	}
	var ignored []string
	for _, p := range in.Ignored {
		ignored = append(ignored, p.Path)
	}
	if f := IgnoredInput(ignored); f != nil {
		res.Findings = append(res.Findings, *f)
	}
	if !reused && in.After != nil {
		after, err := in.After(ctx)
		if err != nil {
			return nil, err
		}
		before := StateMap(in.Before)
		created := map[string]bool{}
		for _, a := range after {
			if _, had := before[a.Path]; !had && a.Status == "untracked" && fsx.ContentStable(a.Content) && a.Content != fsx.ContentAbsent {
				res.Created = append(res.Created, a)
				created[a.Path] = true
			}
		}
		for _, p := range ModifiedPaths(before, StateMap(after)) {
			if !created[p] {
				res.Modified = append(res.Modified, p)
			}
		}
		if f := ModifiedWorktree(res.Modified); f != nil {
			res.Findings = append(res.Findings, *f)
		}
	}
	return res, nil
}

// ReceiptFor returns the receipt of the declared command cmd (compared by
// verification.MatchKey), or nil.
func (r *StepResult) ReceiptFor(cmd string) *Receipt {
	if r == nil {
		return nil
	}
	key := verification.MatchKey(cmd)
	for i, d := range r.Plan {
		if verification.MatchKey(d.Cmd) == key {
			return r.Receipts[i]
		}
	}
	return nil
}

// Supersedes reports whether the report-evidence finding f (spec-and-lifecycle.md §10.5) gives
// way to a receipt: verification_requirement_unmet and vacuous_test_claim for a command
// mastermind ran are replaced by the §4 rules, since the receipt is the evidence. The per-row
// contradictions of §10.5.1 stay: they are about what the report says of itself.
func (r *StepResult) Supersedes(f finding.Finding) bool {
	switch f.Rule {
	case verification.KindRequirementUnmet, verification.KindVacuous:
		return r.ReceiptFor(f.FieldString("cmd")) != nil
	}
	return false
}
