package postflight

import (
	"context"
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// reasonInputsChanged is the blocking_reason of §8.3 step 1.
const reasonInputsChanged = "audited inputs changed since the held audit; rerun post-flight"

// RuleReviewIncomplete is the rule id of the findings that list what a history review still
// lacks (§8.3 step 2) in the --json envelope of a history_pending completion. They are warnings:
// a pending review exits 0.
const RuleReviewIncomplete = "history_review.incomplete"

// completion runs spec-and-lifecycle.md §8.3 for a task in history review or learned, invoked
// without phase flags. A learned task's status is printed and nothing else is done; otherwise the
// recomputed history snapshot and the review decide between reopening, pending and closing.
func (c *controller) completion(ctx context.Context, st *State) (*Outcome, error) {
	res := c.res
	res.Phase = PhaseCompletion
	if files := c.files.tamperedFiles(); len(files) > 0 {
		// A mirror was forged since the last audit, and no completion stands on records someone
		// else wrote; the next post-flight reports them (trust-model.md I2).
		ns := *st
		reason := fmt.Sprintf("controller records were changed outside mastermind (%s); rerun post-flight", strings.Join(files, ", "))
		ns.Status, ns.NextStep, ns.BlockingReason = StatusAuditRequired, NextRunAudit, reason
		ns.ClearVerdict()
		if err := c.writeState(&ns); err != nil {
			return res, err
		}
		r := c.refuse(PhaseCompletion, OutcomePostRefused, reason)
		r.Findings = c.files.tamperFindings()
		r.Next = Next{Step: NextRunAudit, Run: "mastermind run-task " + c.task.Spec + " --post-only"}
		return r, nil
	}
	if st.Status == StatusLearned {
		res.Outcome = OutcomeCompleted
		res.Message = fmt.Sprintf("task %s is learned (learned/close); nothing to do", c.task.Name)
		res.Artifacts.HistoryReview = c.task.HistoryReviewRel()
		// Closed already: the only step left is a deliberate reopening (a re-pre-flight).
		res.Next = Next{Step: NextClose, Run: "mastermind run-task " + c.task.Spec + " --pre-only"}
		return res, nil
	}
	snap, err := c.currentSnapshot(ctx, st)
	if err != nil {
		return res, err
	}
	if snap != st.HistorySnapshotSHA256 {
		ns := *st
		ns.Status, ns.NextStep, ns.BlockingReason = StatusAuditRequired, NextRunAudit, reasonInputsChanged
		ns.ClearVerdict()
		if err := c.writeState(&ns); err != nil {
			return res, err
		}
		r := c.refuse(PhaseCompletion, OutcomePostRefused, reasonInputsChanged)
		r.Next = Next{Step: NextRunAudit, Run: "mastermind run-task " + c.task.Spec + " --post-only"}
		return r, nil
	}
	problems, err := c.reviewProblems(snap)
	if err != nil {
		return res, err
	}
	res.Artifacts.HistoryReview = c.task.HistoryReviewRel()
	if len(problems) > 0 {
		return c.historyPending(problems), nil
	}
	return c.learn(st)
}

// closedRead is the post-flight of a learned task: a read of its record with nothing written,
// never an audit that could reopen it (spec-and-lifecycle.md §8.3). When its history snapshot
// now differs from the one it closed on, the outcome says so and names the next step.
func (c *controller) closedRead(ctx context.Context, st *State) (*Outcome, error) {
	res := c.res
	res.Phase = PhasePostflight
	if files := c.files.tamperedFiles(); len(files) > 0 {
		// A forged mirror is reported by an audit; the task's closure stands on the store.
		return c.completion(ctx, st)
	}
	snap, err := c.currentSnapshot(ctx, st)
	if err != nil {
		return res, err
	}
	out, ok := c.repeated(st)
	if !ok {
		out = c.res
		out.Verdict = st.Verdict
		out.Artifacts.HistoryReview = c.task.HistoryReviewRel()
		out.Next = Next{Step: NextClose}
	}
	out.Outcome, out.Repeated, out.InputsFingerprint = OutcomeCompleted, true, st.InputsFingerprint
	out.Message = fmt.Sprintf("task %s is learned (closed); post-flight reads its record and audits nothing", c.task.Name)
	out.Next.Run = ""
	if snap != st.HistorySnapshotSHA256 {
		out.Message += fmt.Sprintf("; the spec, the executor report or the work changed since it closed: put new work in a new task (mastermind new-spec \"TITLE\"), or reopen this one with mastermind run-task %s --pre-only", c.task.Spec)
		// What is there now, so that the hook's loop guard sees a further change as a change.
		out.InputsFingerprint = snap
		if snap == "" {
			out.InputsFingerprint = refusalFingerprint(out.Message, "")
		}
	}
	return out, nil
}

// reviewProblems reads history-review.md and checks it against snap (§8.2 "Complete").
func (c *controller) reviewProblems(snap string) ([]ReviewProblem, error) {
	data, prob, err := readReviewWith(c.task, c.readTaskFile)
	if err != nil {
		return nil, err
	}
	if prob != nil {
		return []ReviewProblem{*prob}, nil
	}
	return c.checkReview(data, snap), nil
}

// checkReview is CheckReview plus the lessons-file check of a Lesson "updated" (§8.2), for every
// place a review may close the task: completion, and a held audit or accept that finds a
// complete review for its snapshot.
func (c *controller) checkReview(data []byte, snap string) []ReviewProblem {
	ps := CheckReview(data, snap)
	if occ := ParseReviewFields(data)[ReviewLesson]; len(occ) == 1 && strings.EqualFold(occ[0].Value, "updated") {
		// Context and Lesson problems come before Reason's: keep the field order.
		lp := c.lessonProblems(occ[0].Line)
		at := len(ps)
		for i, p := range ps {
			if p.Field == ReviewReason || p.Field == ReviewEvidence {
				at = i
				break
			}
		}
		ps = append(ps[:at], append(lp, ps[at:]...)...)
	}
	return ps
}

// lessonProblems checks a review's Lesson "updated" (at line) against the lessons file (§8.2):
// an entry of this task whose Reusable lesson is still pending means no lesson was recorded.
// A missing lessons file has no entry; one that cannot be read cannot confirm the claim.
func (c *controller) lessonProblems(line int) []ReviewProblem {
	rel := c.task.LessonsRel()
	var data []byte
	td, err := fsx.OpenDir(c.task.Root, TasksDir)
	if err == nil {
		data, err = td.ReadFile(lessonsName, MaxLessonsBytes)
		td.Close()
	}
	switch {
	case err != nil && fsx.ReasonOf(err) == fsx.ReasonMissing:
		return nil
	case err != nil:
		return []ReviewProblem{{Field: ReviewLesson, Line: line,
			Message: fmt.Sprintf("field %q is \"updated\" but %s cannot be read to check it (%s); fix the file, or set Lesson to \"not applicable\"", ReviewLesson, rel, textsafe.Escape(err.Error()))}}
	}
	var ps []ReviewProblem
	for _, p := range PendingLessons(data, c.task.Name) {
		ps = append(ps, ReviewProblem{Field: ReviewLesson, Line: line,
			Message: fmt.Sprintf("field %q is \"updated\" but the entry %s of this task in %s (line %d) still says \"Reusable lesson: pending semantic review\"; write the reusable lesson there, or set Lesson to \"not applicable\"", ReviewLesson, textsafe.Escape(p.ID), rel, p.Line)})
	}
	return ps
}

// historyPending ends a completion whose review is incomplete: state unchanged, exit 0.
func (c *controller) historyPending(problems []ReviewProblem) *Outcome {
	res := c.res
	rel := c.task.HistoryReviewRel()
	msgs := make([]string, len(problems))
	res.Findings = nil
	for i, p := range problems {
		msgs[i] = p.Format(rel)
		res.Findings = append(res.Findings, finding.Finding{Rule: RuleReviewIncomplete, Class: finding.ClassWarning,
			File: rel, Line: p.Line, Message: p.Message, Fields: []finding.Field{{Key: "field", Value: p.Field}}})
	}
	res.Outcome = OutcomeHistoryPending
	res.Message = "history review pending: " + audit.FirstPlus(msgs)
	res.Review = msgs
	res.Next = Next{Step: NextReviewHistory, Edit: rel, Run: "mastermind run-task " + c.task.Spec}
	return res
}

// learn closes the task: learned / close, last_artifact history-review.md (§8.3 step 3).
func (c *controller) learn(st *State) (*Outcome, error) {
	res := c.res
	ns := *st
	ns.Status, ns.NextStep, ns.LastArtifact, ns.BlockingReason = StatusLearned, NextClose, ArtifactHistoryReview, ""
	if err := c.writeState(&ns); err != nil {
		return res, err
	}
	res.Outcome = OutcomeCompleted
	res.Artifacts.HistoryReview = c.task.HistoryReviewRel()
	res.Message = fmt.Sprintf("history review complete; task %s is learned", c.task.Name)
	res.Next = Next{Step: NextClose}
	return res, nil
}

// currentSnapshot recomputes the §8.2 history snapshot from the current inputs. An input that can
// no longer be read as it was cannot match the held audit, so it yields "", a different
// snapshot; git and other I/O failures are operational errors.
func (c *controller) currentSnapshot(ctx context.Context, st *State) (string, error) {
	var in SnapshotInput
	in.Baseline, in.Iteration, in.Recorded = st.BaselineRef, st.Iteration, st.HistorySnapshotSHA256
	for _, f := range []struct {
		name, rel string
		dst       *[]byte
	}{
		{"spec.md", c.task.Spec, &in.Spec}, {"executor-report.md", c.task.ReportRel(), &in.Report},
		{"", c.task.ReleaseNotesRel(), &in.Release},
	} {
		var data []byte
		var err error
		if f.name != "" {
			data, err = c.readTaskFile(f.name, f.rel, MaxSnapshotFileBytes)
		} else {
			data, err = fsx.ReadInRoot(c.task.Root, f.rel, MaxSnapshotFileBytes)
		}
		if err != nil {
			if fsx.ReasonOf(err) != "" {
				return "", nil
			}
			return "", fmt.Errorf("read %s: %w", f.rel, err)
		}
		*f.dst = data
	}
	// audit.md is hashed by streaming up to MaxAuditBytes, as held and accept hashed it when they
	// took the snapshot: a drift audit of tens of thousands of paths is over the 16 MiB a
	// snapshot file may have, and read with that limit it could never match, so the review of
	// an accepted task could never close it.
	sum, err := c.auditSHA256()
	if err != nil {
		if fsx.ReasonOf(err) != "" {
			return "", nil
		}
		return "", fmt.Errorf("read %s: %w", c.task.AuditRel(), err)
	}
	in.AuditSHA256 = sum
	// The changed set under the task's pre-flight snapshots, as its audit computed it: a change
	// hidden from the live index after the held audit still changes the snapshot.
	src, err := c.source(ctx, st)
	if err != nil {
		return "", err
	}
	cs, err := src.ChangedSet(ctx)
	if err != nil {
		return "", err
	}
	rule, err := c.control(st)
	if err != nil {
		return "", err
	}
	// The held audit left the controller's writes out (verification-receipts.md §2.2); so does
	// its snapshot.
	in.Changed, _ = audit.TaskD(c.task.Root, cs, rule, c.files.controllerWrites(st.BaselineRef))
	snap, err := HistorySnapshot(c.task.Root, in)
	if err != nil {
		return "", nil
	}
	return snap, nil
}

// auditSHA256 is the SHA-256 of the task's audit.md, streamed with the checks of
// fsx.Dir.ReadFile and at most MaxAuditBytes, through the task folder's handle in a run-task.
func (c *controller) auditSHA256() (string, error) {
	if c.files != nil {
		return c.files.hashFile(mirrorAudit, MaxAuditBytes)
	}
	data, err := fsx.ReadInRoot(c.task.Root, c.task.AuditRel(), MaxAuditBytes)
	if err != nil {
		return "", err
	}
	return fsx.SHA256Hex(data), nil
}
