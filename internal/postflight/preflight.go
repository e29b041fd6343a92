package postflight

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// Pre-flight rule ids owned by this package (§3.2).
const (
	RuleBudgetExhausted        = "preflight.budget_exhausted"
	RuleBaselineUnavailable    = "preflight.baseline_unavailable"
	RulePreexistingChanges     = "preflight.preexisting_changes"
	RuleChangedDuringPreflight = "spec.changed_during_preflight"
	RuleCreationExists         = "spec.creation_exists_in_baseline"
)

// Blocking reasons of pre-flight (§3.1).
const (
	reasonRevalidation = "pre-flight validation is required"
)

// preflight runs §3.1. prev is nil on the first pre-flight.
func (c *controller) preflight(ctx context.Context, prev *State) (*Result, error) {
	res := c.res
	res.Phase = PhasePreflight
	first := prev == nil
	iter := 1
	if !first {
		iter = prev.Iteration + 1
	}
	// Step 1: iteration budget.
	limit := c.opts.MaxIterations
	if limit > 0 && iter > limit {
		c.upsertLesson(lessonEvent{Kind: LessonIterationBudget,
			Observed: fmt.Sprintf("pre-flight refused: iteration budget exhausted (limit %d) at iteration %d", limit, iter-1)})
		if !c.opts.ForceIteration {
			reason := fmt.Sprintf("iteration budget exhausted (limit %d); revise the task or rerun with --force-iteration", limit)
			f := finding.Finding{Rule: RuleBudgetExhausted, Class: finding.ClassError, File: c.task.Spec, Message: reason,
				Fields: []finding.Field{{Key: "limit", Value: limit}, {Key: "iteration", Value: iter - 1}}}
			if prev != nil {
				st := *prev
				st.Status, st.NextStep, st.BlockingReason, st.LastArtifact = StatusHeld, NextRunPreflight, reason, ArtifactSpec
				st.ClearVerdict()
				if err := c.writeState(&st); err != nil {
					return res, err
				}
			}
			res.Findings = []finding.Finding{f}
			return c.preRefused(reason), nil
		}
	}
	// Step 2: revoke approval first.
	var st State
	if !first {
		st = *prev
		st.Status, st.NextStep, st.BlockingReason, st.LastArtifact = StatusHeld, NextRunPreflight, reasonRevalidation, ArtifactSpec
		st.Iteration = iter
		st.ClearVerdict()
		if err := c.writeState(&st); err != nil {
			return res, err
		}
	}
	// Step 3: validate the spec.
	sp, fs, err := spec.Read(c.task.Root, c.task.Spec)
	if err != nil {
		return res, err
	}
	fs = setFile(fs, c.task.Spec)
	if sp != nil && sp.Scope.Source == spec.SourceFrontmatter {
		fs = append(fs, setFile(spec.CheckDeclaredFiles(c.task.Root, sp), c.task.Spec)...)
	}
	// Step 4: baseline.
	baseline := ""
	if first {
		oid, unborn, err := c.git.Head(ctx)
		if err != nil {
			return res, err
		}
		baseline = oid
		if unborn {
			baseline = gitscope.EmptyTreeOID
		}
	} else {
		baseline = prev.BaselineRef
		if err := c.git.ValidateBaseline(ctx, baseline); err != nil {
			if !errors.Is(err, gitscope.ErrBaselineUnavailable) {
				return res, err
			}
			fs = append(fs, finding.Finding{Rule: RuleBaselineUnavailable, Class: finding.ClassError, File: c.task.Spec,
				Message: fmt.Sprintf("saved baseline commit %s is unavailable; restore its git history", baseline)})
			baseline = ""
		}
	}
	if sp != nil && baseline != "" && len(sp.Scope.Creates) > 0 {
		types, err := c.git.BaselineEntries(ctx, baseline, sp.Scope.Creates)
		if err != nil {
			return res, err
		}
		for _, p := range sp.Scope.Creates {
			if t, ok := types[p]; ok && t != gitscope.EntryAbsent {
				fs = append(fs, finding.Finding{Rule: RuleCreationExists, Class: finding.ClassError, File: c.task.Spec,
					Message: fmt.Sprintf("creates path %s already exists in the baseline tree (as a %s); list it under touches instead", p, t),
					Fields:  []finding.Field{{Key: "file", Value: p}, {Key: "reason", Value: ReasonCreationExistsInBaseline}}})
			}
		}
	}
	// Step 5: pre-existing changes (warning, first pre-flight only).
	var warnings []finding.Finding
	if first && baseline != "" {
		cs, err := c.git.ChangedSet(ctx, baseline)
		if err != nil {
			return res, err
		}
		if d := cs.WithoutControl(); len(d) > 0 {
			paths := make([]string, len(d))
			for i, e := range d {
				paths[i] = textsafe.Escape(string(e.Path))
			}
			warnings = append(warnings, finding.Finding{Rule: RulePreexistingChanges, Class: finding.ClassWarning, File: c.task.Spec,
				Message: fmt.Sprintf("%d path(s) already differ from HEAD and will be attributed to the executor at post-flight: %s",
					len(paths), strings.Join(paths, ", ")),
				Fields: []finding.Field{{Key: "paths", Value: paths}}})
		}
	}
	// Step 6: re-read the spec.
	if sp != nil {
		again, err := fsx.ReadInRoot(c.task.Root, c.task.Spec, spec.MaxBytes)
		if err != nil || !bytes.Equal(again, sp.Raw) {
			fs = append(fs, finding.Finding{Rule: RuleChangedDuringPreflight, Class: finding.ClassError, File: c.task.Spec,
				Message: fmt.Sprintf("spec %s changed while pre-flight was validating it; rerun pre-flight when the planner has finished writing", c.task.Spec)})
		}
	}
	errs := errorsOnly(fs)
	finding.SortByPosition(errs)
	res.Findings = append(errs, warnings...)
	// Step 7: failure.
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, f := range errs {
			msgs[i] = f.Message
		}
		reason := "pre-flight refused: " + firstPlus(msgs)
		if !first {
			st.BlockingReason = reason
			if err := c.writeState(&st); err != nil {
				return res, err
			}
		}
		return c.preRefused(reason), nil
	}
	// Step 8: success. The snapshots of trust-model.md §4 are taken before approval, once per
	// baseline: a re-pre-flight keeps the baseline and so keeps its snapshot (a new one would
	// take in what the executor wrote into .git since, such as assume-unchanged bits or
	// exclude rules). A task without one (pre-flighted by an older mastermind) gets one now.
	store, err := c.git.GitDirStore(c.task.Name)
	if err == nil && (first || !gitscope.HasSnapshot(store, baseline)) {
		err = c.git.TakeSnapshot(ctx, baseline, store)
	}
	if err != nil {
		return res, fmt.Errorf("pre-flight snapshot: %w", err)
	}
	if first {
		st = State{SchemaVersion: StateSchemaVersion, SpecPath: c.task.Spec, StartedAt: c.now().Unix()}
	}
	if !first && prev.SpecHash != sp.Hash {
		st.BlockingStreak, st.BlockingFingerprint = 0, ""
	}
	st.Status, st.NextStep, st.BlockingReason, st.LastArtifact = StatusApproved, NextRunExecutor, "", ArtifactSpec
	st.SpecHash, st.BaselineRef, st.Iteration = sp.Hash, baseline, iter
	st.Risk = sp.Frontmatter.Risk
	if st.Risk == "" {
		st.Risk = RiskLow
	}
	st.ClearVerdict()
	if err := c.writeState(&st); err != nil {
		return res, err
	}
	res.Outcome, res.ExitCode = OutcomePreReady, 0
	res.Message = "pre-flight approved — " + c.task.Spec
	of := fmt.Sprintf("%d of %d", iter, limit)
	switch {
	case limit == 0:
		of = fmt.Sprintf("%d (no budget)", iter)
	case iter > limit:
		of = fmt.Sprintf("%d (forced with --force-iteration, beyond the budget of %d)", iter, limit)
	}
	var b strings.Builder
	for _, w := range warnings {
		fmt.Fprintf(&b, "⚠️ %s [%s]\n", textsafe.Escape(w.Message), w.Rule)
	}
	fmt.Fprintf(&b, "✅ pre-flight approved — %s\n  baseline: %s\n  iteration: %s\n", c.task.Spec, baseline, of)
	fmt.Fprintf(&b, "  next: implement the task, write %s,\n        then run: mastermind run-task %s --post-only\n", c.task.ReportRel(), c.task.Spec)
	res.Text = b.String()
	return res, nil
}

// preRefused ends a refused pre-flight (exit 1).
func (c *controller) preRefused(reason string) *Result {
	res := c.res
	res.Outcome, res.ExitCode, res.Message = OutcomePreRefused, 1, reason
	var b strings.Builder
	fmt.Fprintf(&b, "❌ pre-flight refused — %s\n", c.task.Spec)
	for _, f := range res.Findings {
		fmt.Fprintf(&b, "  %s\n", textsafe.Escape(f.String()))
	}
	res.Text = b.String()
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
