package postflight

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// Pre-flight rule ids owned by this package (§3.2).
const (
	RuleBudgetExhausted        = "preflight.budget_exhausted"
	RuleBaselineUnavailable    = "preflight.baseline_unavailable"
	RulePreexistingChanges     = "preflight.preexisting_changes"
	RuleToolCachesInvalid      = "preflight.tool_caches_invalid"
	RuleOtherOpenTask          = "preflight.other_open_task"
	RuleChangedDuringPreflight = "spec.changed_during_preflight"
	RuleCreationExists         = "spec.creation_exists_in_baseline"
	RuleDeletesNotInBaseline   = "spec.deletes_not_in_baseline"
)

// Blocking reasons of pre-flight (§3.1).
const (
	reasonRevalidation = "pre-flight validation is required"
)

// preRun is one pre-flight: its inputs and what the steps of §3.1 found so far.
type preRun struct {
	c    *controller
	prev *State // nil on the first pre-flight
	st   State  // the state being built, a copy of prev on a re-pre-flight
	iter int
	sp   *spec.Spec
	// baseline is the commit the audit will compare against; "" when the saved one is unavailable.
	baseline string
	// fs are validation's rule findings; warnings are the advisory ones of step 5.
	fs       []finding.Finding
	warnings []finding.Finding
	// snapped is true when step 5 took this baseline's snapshots already, which approve keeps.
	snapped bool
	// notes are told with the approval: what step 5 found that is no change, such as tool caches.
	notes []string
}

func (r *preRun) first() bool { return r.prev == nil }

// preflight runs §3.1 as named steps: budget, revoke, validate, baseline, creations and
// deletions, pre-existing changes, re-read, then refuse or approve. prev is nil on the first pre-flight.
func (c *controller) preflight(ctx context.Context, prev *State) (*Outcome, error) {
	c.res.Phase = PhasePreflight
	r := &preRun{c: c, prev: prev, iter: 1}
	if prev != nil {
		r.iter = prev.Iteration + 1
	}
	if refused, err := r.checkBudget(); refused || err != nil {
		return c.res, err
	}
	steps := []func(context.Context) error{r.revokeApproval, r.validateSpec, r.resolveBaseline, r.checkCreations,
		r.preexistingChanges, r.otherOpenTasks, r.rereadSpec}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return c.res, err
		}
	}
	errs := errorsOnly(r.fs)
	finding.SortByPosition(errs)
	c.res.Findings = append(errs, r.warnings...)
	if len(errs) > 0 {
		return r.refuse(errs)
	}
	return r.approve(ctx)
}

// checkBudget is step 1: beyond --max-iterations the pre-flight is refused (held /
// run_preflight) unless --force-iteration; the lessons file records the exhaustion either way.
func (r *preRun) checkBudget() (refused bool, err error) {
	c, limit := r.c, r.c.opts.MaxIterations
	if limit <= 0 || r.iter <= limit {
		return false, nil
	}
	c.upsertLesson(lessonEvent{Kind: LessonIterationBudget,
		Observed: fmt.Sprintf("pre-flight refused: iteration budget exhausted (limit %d) at iteration %d", limit, r.iter-1)})
	if c.opts.ForceIteration {
		return false, nil
	}
	reason := fmt.Sprintf("iteration budget exhausted (limit %d); revise the task or rerun with --force-iteration", limit)
	f := finding.Finding{Rule: RuleBudgetExhausted, Class: finding.ClassError, File: c.task.Spec, Message: reason,
		Fields: []finding.Field{{Key: "limit", Value: limit}, {Key: "iteration", Value: r.iter - 1}}}
	if r.prev != nil {
		st := *r.prev
		st.Status, st.NextStep, st.BlockingReason, st.LastArtifact = StatusBlocked, NextRunPreflight, reason, ArtifactSpec
		st.ClearVerdict()
		if err := c.writeState(&st); err != nil {
			return true, err
		}
	}
	c.res.Findings = []finding.Finding{f}
	c.preRefused(reason)
	return true, nil
}

// revokeApproval is step 2: a re-pre-flight first writes held / run_preflight, so a failure
// later never leaves the old approval standing.
func (r *preRun) revokeApproval(context.Context) error {
	if r.first() {
		return nil
	}
	r.st = *r.prev
	r.st.Status, r.st.NextStep, r.st.BlockingReason, r.st.LastArtifact = StatusBlocked, NextRunPreflight, reasonRevalidation, ArtifactSpec
	r.st.Iteration = r.iter
	r.st.ClearVerdict()
	return r.c.writeState(&r.st)
}

// validateSpec is step 3: the spec's own rules and, with a frontmatter scope, the declared files.
func (r *preRun) validateSpec(context.Context) error {
	c := r.c
	sp, fs, err := spec.ReadDir(c.files.dir, "spec.md", c.task.Spec)
	if err != nil {
		return err
	}
	r.sp = sp
	r.fs = setFile(fs, c.task.Spec)
	if sp != nil && sp.Scope.Source == spec.SourceFrontmatter {
		r.fs = append(r.fs, setFile(spec.CheckDeclaredFiles(c.task.Root, sp), c.task.Spec)...)
		r.fs = append(r.fs, setFile(spec.CheckCreates(c.task.Root, sp), c.task.Spec)...)
		r.warnCreatesGlobs()
	}
	return nil
}

// warnCreatesGlobs warns about every creates path with a glob character: declared paths are
// exact (§1.4), so only a file literally named so can be added and the approval can only end
// broken. A warning, not a refusal: such a file name is legal.
func (r *preRun) warnCreatesGlobs() {
	c, sp := r.c, r.sp
	for _, p := range sp.Scope.Creates {
		if !strings.ContainsAny(p, "*?[") {
			continue
		}
		f := finding.Finding{Rule: finding.KindPreflightCreatesGlob, Class: finding.ClassWarning, File: c.task.Spec,
			Message: fmt.Sprintf("creates path %s contains a glob character, but declared paths are exact and never expanded: the executor can add only a file literally named %s, so this approval can only end broken; list each file the task creates, then run: mastermind run-task %s --pre-only",
				textsafe.Escape(p), textsafe.Escape(p), c.task.Spec),
			Fields: []finding.Field{{Key: "file", Value: p}}}
		f.Line, f.Column, f.Pointer, _ = sp.DeclarationPos("creates", p)
		r.warnings = append(r.warnings, f)
	}
}

// resolveBaseline is step 4: HEAD or the empty tree on the first pre-flight, then the saved
// baseline, which must still be available.
func (r *preRun) resolveBaseline(ctx context.Context) error {
	c := r.c
	if r.first() {
		oid, unborn, err := c.git.Head(ctx)
		if err != nil {
			return err
		}
		r.baseline = oid
		if unborn {
			r.baseline = gitscope.EmptyTreeOID
		}
		if c.adoptBaseline != "" {
			r.baseline = c.adoptBaseline
		}
		return nil
	}
	r.baseline = r.prev.BaselineRef
	if err := c.git.ValidateBaseline(ctx, r.baseline); err != nil {
		if !errors.Is(err, gitscope.ErrBaselineUnavailable) {
			return err
		}
		r.fs = append(r.fs, finding.Finding{Rule: RuleBaselineUnavailable, Class: finding.ClassError, File: c.task.Spec,
			Message: fmt.Sprintf("saved baseline commit %s is unavailable; restore its git history", r.baseline)})
		r.baseline = ""
	}
	return nil
}

// checkCreations refuses a declared creation that already exists in the baseline tree, and a
// declared deletion the baseline tree does not have as a file (lifecycle-v2.md §1): one baseline
// lookup answers both. Each finding is placed at the path's declaration in the frontmatter.
func (r *preRun) checkCreations(ctx context.Context) error {
	c, sp := r.c, r.sp
	if sp == nil || r.baseline == "" || len(sp.Scope.Creates)+len(sp.Scope.Deletes) == 0 {
		return nil
	}
	paths := append(append([]string(nil), sp.Scope.Creates...), sp.Scope.Deletes...)
	types, err := c.git.BaselineEntries(ctx, r.baseline, paths)
	if err != nil {
		return err
	}
	for _, p := range sp.Scope.Creates {
		if t, ok := types[p]; ok && t != gitscope.EntryAbsent {
			f := finding.Finding{Rule: RuleCreationExists, Class: finding.ClassError, File: c.task.Spec,
				Message: fmt.Sprintf("creates path %s already exists in the baseline tree (as a %s); list it under touches instead", p, t),
				Fields:  []finding.Field{{Key: "file", Value: p}, {Key: "reason", Value: audit.ReasonCreationExistsInBaseline}}}
			f.Line, f.Column, f.Pointer, _ = sp.DeclarationPos("creates", p)
			r.fs = append(r.fs, f)
		}
	}
	for _, p := range sp.Scope.Deletes {
		var msg string
		switch types[p] {
		case gitscope.EntryBlob, gitscope.EntryLink, gitscope.EntryGitlink:
			continue
		case gitscope.EntryTree:
			msg = fmt.Sprintf("deletes path %s is a directory in the baseline tree; list each file under it that the task deletes", p)
		default:
			msg = fmt.Sprintf("deletes path %s is not in the baseline tree, so the task cannot delete it; fix the path, or remove it from deletes", p)
		}
		f := finding.Finding{Rule: RuleDeletesNotInBaseline, Class: finding.ClassError, File: c.task.Spec,
			Message: msg, Fields: []finding.Field{{Key: "file", Value: p}, {Key: "found", Value: string(types[p])}}}
		f.Line, f.Column, f.Pointer, _ = sp.DeclarationPos("deletes", p)
		r.fs = append(r.fs, f)
	}
	return nil
}

// preexistingChanges is step 5 of a first pre-flight: paths that already differ from the
// baseline will be attributed to the executor, which the planner is warned about. They are
// computed by post-flight's own rule (trust-model.md I1, gitscope.md §4.7): the snapshots are
// taken here and the changed set computed against them, so the warning names exactly what
// post-flight would count, the tool caches it leaves out, and the self-ignoring directories it
// reports. A broken tool-cache table at the baseline refuses.
func (r *preRun) preexistingChanges(ctx context.Context) error {
	c := r.c
	if r.baseline == "" {
		return nil
	}
	if err := c.git.CheckToolCaches(ctx, r.baseline); err != nil {
		var tce *gitscope.ToolCacheError
		if !errors.As(err, &tce) {
			return err
		}
		r.fs = append(r.fs, finding.Finding{Rule: RuleToolCachesInvalid, Class: finding.ClassError, File: gitscope.ToolCachesConfig,
			Line: tce.Line, Message: err.Error(), Fields: []finding.Field{{Key: "field", Value: tce.Field}}})
		return nil
	}
	if !r.first() {
		return nil
	}
	snap := c.files.st
	if err := c.git.TakeSnapshot(ctx, r.baseline, snap); err != nil {
		return fmt.Errorf("pre-flight snapshot: %w", err)
	}
	r.snapped = true
	view, err := c.git.SnapshotView(ctx, r.baseline, snap)
	if err != nil {
		return err
	}
	defer view.Close()
	cs, err := view.ChangedSet(ctx)
	if err != nil {
		return err
	}
	rule, err := c.files.controlRule(r.baseline)
	if err != nil {
		return err
	}
	if d, _ := audit.TaskD(c.task.Root, cs, rule, c.files.controllerWrites(r.baseline)); len(d) > 0 {
		paths := make([]string, len(d))
		for i, e := range d {
			paths[i] = textsafe.Escape(string(e.Path))
			if e.SelfIgnoring {
				paths[i] += "/ (ignores itself: one self_ignoring_directory error at post-flight; remove its .gitignore or commit it before pre-flight)"
			}
		}
		r.warnings = append(r.warnings, finding.Finding{Rule: RulePreexistingChanges, Class: finding.ClassWarning, File: c.task.Spec,
			Message: fmt.Sprintf("%d path(s) already differ from HEAD and will be attributed to the executor at post-flight: %s",
				len(paths), strings.Join(paths, ", ")),
			Fields: []finding.Field{{Key: "paths", Value: paths}}})
	}
	if len(cs.ToolCaches) > 0 {
		var names []string
		for _, tc := range cs.ToolCaches {
			names = append(names, fmt.Sprintf("%s/ (%s, %d files)", textsafe.Escape(tc.Dir), tc.Tool, tc.Files))
		}
		r.notes = append(r.notes, "ignored tool cache present at pre-flight, left out of the changed set: "+strings.Join(names, ", "))
	}
	return nil
}

// otherOpenTasks warns (lifecycle-v2.md §9) when another task of this work tree is open — it has
// a state that is not learned, or a corrupt one — since every task is audited against the one work
// tree, the tasks' changes are attributed to each other. The warning names them and the
// `git worktree add` command that gives this task a work tree of its own.
func (r *preRun) otherOpenTasks(context.Context) error {
	c := r.c
	infos, err := ScanTasks(c.task.Root)
	if err != nil {
		return nil // the scan is advisory; the task's own folder was already checked
	}
	var open []string
	for _, in := range infos {
		if in.Task.Name == c.task.Name || (in.Err == nil && (in.State == nil || in.State.Status == StatusLearned)) {
			continue
		}
		open = append(open, in.Task.Name)
	}
	if len(open) == 0 {
		return nil
	}
	wt := "../" + filepath.Base(c.task.Root) + "-" + c.task.Name
	cmd := fmt.Sprintf("git worktree add -b %s %s HEAD && mkdir -p %s/%s && cp %s %s/%s", c.task.Name, wt, wt, c.task.Dir, c.task.Spec, wt, c.task.Spec)
	r.warnings = append(r.warnings, finding.Finding{Rule: RuleOtherOpenTask, Class: finding.ClassWarning, File: c.task.Spec,
		Message: fmt.Sprintf("%d other task(s) are open in this work tree (%s): every task is audited against the same changed set, so their changes and this task's are attributed to each other; to isolate this task, give it its own work tree: %s, then run its pre-flight and the executor there",
			len(open), strings.Join(open, ", "), cmd),
		Fields: []finding.Field{{Key: "tasks", Value: open}, {Key: "command", Value: cmd}}})
	return nil
}

// rereadSpec is step 6: the spec must not have changed while it was validated.
func (r *preRun) rereadSpec(context.Context) error {
	c := r.c
	if r.sp == nil {
		return nil
	}
	again, err := c.readTaskFile("spec.md", c.task.Spec, spec.MaxBytes)
	if err != nil || !bytes.Equal(again, r.sp.Raw) {
		r.fs = append(r.fs, finding.Finding{Rule: RuleChangedDuringPreflight, Class: finding.ClassError, File: c.task.Spec,
			Message: fmt.Sprintf("spec %s changed while pre-flight was validating it; rerun pre-flight when the planner has finished writing", c.task.Spec)})
	}
	return nil
}

// refuse is step 7: the first error findings become the blocking reason, which the revoked state
// of a re-pre-flight keeps.
func (r *preRun) refuse(errs []finding.Finding) (*Outcome, error) {
	msgs := make([]string, len(errs))
	for i, f := range errs {
		msgs[i] = f.Text()
	}
	reason := "pre-flight refused: " + audit.FirstPlus(msgs)
	if !r.first() {
		r.st.BlockingReason = reason
		if err := r.c.writeState(&r.st); err != nil {
			return r.c.res, err
		}
	}
	return r.c.preRefused(reason), nil
}

// approve is step 8: approved / run_executor with the spec hash, the baseline and the iteration;
// a changed spec resets the three-cycle streak.
func (r *preRun) approve(ctx context.Context) (*Outcome, error) {
	c, sp := r.c, r.sp
	st := &r.st
	if r.first() {
		*st = State{SchemaVersion: StateSchemaVersion, SpecPath: c.task.Spec, StartedAt: c.now().Unix()}
	}
	// The snapshots of trust-model.md §4 are taken before approval, once per baseline: a new one
	// would take in what the executor wrote into .git since. A task pre-flighted without one
	// gets one now, in its controller-store folder.
	snap := c.files.st
	if (r.first() && !r.snapped) || !gitscope.HasSnapshot(snap, r.baseline) {
		if err := c.git.TakeSnapshot(ctx, r.baseline, snap); err != nil {
			return c.res, fmt.Errorf("pre-flight snapshot: %w", err)
		}
	}
	// The other tasks' records as they are now are not this executor's doing (I3): snapshot
	// them once per baseline, like the git inputs.
	if rec := c.files.rec; rec == nil || rec.Foreign == nil || rec.Foreign.Baseline != r.baseline {
		c.files.foreign = takeForeign(c.task.Root, c.task.Name, r.baseline)
	} else if rec.Foreign.Files == nil {
		c.files.foreign = withPreflightFiles(rec.Foreign, c.task.Root) // a record from before #26
	}
	if !r.first() && r.prev.SpecHash != sp.Hash {
		st.BlockingStreak, st.BlockingFingerprint = 0, ""
	}
	st.Status, st.NextStep, st.BlockingReason, st.LastArtifact = StatusApproved, NextRunExecutor, "", ArtifactSpec
	st.SpecHash, st.BaselineRef, st.Iteration = sp.Hash, r.baseline, r.iter
	st.Risk, st.OutcomeRisk = sp.Frontmatter.Risk, ""
	if st.Risk == "" {
		st.Risk = RiskLow
	}
	st.ClearVerdict()
	// The transcript cutoff (docs/design/transcripts.md §2): every approval, to the millisecond.
	c.files.preflightAt = c.now().UnixMilli()
	if err := c.writeState(st); err != nil {
		return c.res, err
	}
	res := c.res
	res.Outcome, res.Budget = OutcomePreReady, c.opts.MaxIterations
	res.Message = "pre-flight approved — " + c.task.Spec
	for _, n := range r.notes {
		res.Message += "; " + n
	}
	res.Notes = r.notes
	res.Next = Next{Step: NextRunExecutor, Edit: c.task.ReportRel(), Run: "mastermind run-task " + c.task.Spec + " --post-only"}
	return res, nil
}

// preRefused ends a refused pre-flight.
func (c *controller) preRefused(reason string) *Outcome {
	res := c.res
	res.Outcome, res.Message, res.Budget = OutcomePreRefused, reason, c.opts.MaxIterations
	return res
}

// setFile sets File on findings that have none.
func setFile(fs []finding.Finding, file string) []finding.Finding {
	for i := range fs {
		if fs[i].File == "" {
			fs[i].File = file
		}
	}
	return fs
}

func errorsOnly(fs []finding.Finding) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.Class != finding.ClassWarning {
			out = append(out, f)
		}
	}
	return out
}
