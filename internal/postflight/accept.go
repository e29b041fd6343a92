package postflight

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/audit"
)

// Phase and outcomes of `mastermind accept` (lifecycle-v2.md §3).
const (
	PhaseAccept Phase = "accept"

	OutcomeAccepted      OutcomeKind = "accepted"
	OutcomeAcceptRefused OutcomeKind = "accept_refused"
)

// AcceptOptions configure one `mastermind accept`.
type AcceptOptions struct {
	Git     Git
	SpecArg string // the spec argument, relative to the current directory
	// Reason is the planner's reason, recorded as accepted_reason: non-empty after trimming,
	// at most MaxAcceptedReasonBytes, valid UTF-8 (ReasonError otherwise).
	Reason string
	// Wait is how long to wait for a busy controller lock (0: fail at once).
	Wait time.Duration
	// Now is the clock for accepted_at; time.Now when nil.
	Now func() time.Time
	// StateDir is the controller store root ("" for store.Location()).
	StateDir string
}

func (o AcceptOptions) ref() taskRef {
	return taskRef{git: o.Git, specArg: o.SpecArg, stateDir: o.StateDir, wait: o.Wait, now: o.Now}
}

// ReasonError is an unusable --reason (a usage error, exit 2).
type ReasonError struct{ Msg string }

func (e *ReasonError) Error() string { return e.Msg }

// CheckAcceptReason returns the trimmed reason, or a *ReasonError.
func CheckAcceptReason(reason string) (string, error) {
	r := strings.TrimSpace(reason)
	switch {
	case r == "":
		return "", &ReasonError{Msg: "--reason is required and must not be empty: say why the drift is acceptable"}
	case !utf8.ValidString(r):
		return "", &ReasonError{Msg: "--reason is not valid UTF-8"}
	case len(r) > MaxAcceptedReasonBytes:
		return "", &ReasonError{Msg: fmt.Sprintf("--reason is %d bytes; the limit is %d", len(r), MaxAcceptedReasonBytes)}
	}
	return r, nil
}

// Accept records the planner's acceptance of a drift verdict (lifecycle-v2.md §3). Only status
// drift can be accepted; any other status (broken included: its fix is a new executor run or a
// revised spec) is refused with OutcomeAcceptRefused and the current status named. The acceptance is
// bound to the audited inputs: their fingerprint must still be the state's inputs_fingerprint and
// audit.md the recorded audit, else the caller must rerun post-flight first. Accepting writes the
// release notes, the history snapshot (§8.2, recorded as accepted_snapshot and
// history_snapshot_sha256) and a pending history-review.md, and moves the task to
// history_review_required / review_history with accepted_reason and accepted_at, so the normal
// close path applies; blocking_streak is reset. A *ReasonError is a usage error; any other
// returned error is operational (exit 3), and the Outcome (never nil) then has Outcome "error".
func Accept(ctx context.Context, opts AcceptOptions) (*Outcome, error) {
	res := &Outcome{Outcome: OutcomeError, Phase: PhaseAccept}
	reason, err := CheckAcceptReason(opts.Reason)
	if err != nil {
		return res, err
	}
	c, ld, err := openTask(ctx, opts.ref(), res, nil)
	if err != nil {
		return res, err
	}
	defer c.close()
	task, tf := c.task, c.files
	st := ld.State
	if st == nil && ld.Mirror != nil {
		res.Outcome, res.Message = OutcomeAcceptRefused, MsgNoRecord+fmt.Sprintf(" (%s has none; the state.json in the task folder is not used); nothing to accept", tf.storePath)
		return res, nil
	}
	refuse := func(msg string, next Next) *Outcome {
		res.Outcome, res.Message, res.Next = OutcomeAcceptRefused, msg, next
		return res
	}
	postOnly := "mastermind run-task " + task.Spec + " --post-only"
	if st == nil {
		return refuse(fmt.Sprintf("no state for %s; nothing to accept", task.Name), Next{Step: NextRunPreflight, Run: "mastermind run-task " + task.Spec + " --pre-only"}), nil
	}
	res.State, res.Artifacts.State = st, task.StateRel()
	switch {
	case st.Status == StatusBroken || (st.Status == StatusBlocked && st.Verdict == VerdictBroken):
		return refuse(fmt.Sprintf("%s is %s (verdict broken): broken cannot be accepted; the fix is a new executor run (fix the work or the report, then run %s) or a revised spec (then mastermind run-task %s --pre-only)",
			task.Name, st.Status, postOnly, task.Spec), Next{Step: st.NextStep, Run: postOnly}), nil
	case st.Status != StatusDrift:
		return refuse(fmt.Sprintf("%s is %s/%s: only status drift can be accepted", task.Name, st.Status, st.NextStep), Next{Step: st.NextStep}), nil
	}
	in, err := c.readInputs(ctx, st, false)
	if err != nil {
		return res, err
	}
	// readInputs started the audit's git lookups (audit.Prefetch); accept audits nothing.
	defer in.Spec.close()
	// The drift audit may have run with or without --run-verify.
	if in.Fingerprint == "" || (in.Fingerprint != st.InputsFingerprint && in.fingerprintFor(true) != st.InputsFingerprint) {
		return refuse(fmt.Sprintf("the inputs of %s changed since its drift audit (the spec, the executor report or the work); rerun post-flight (%s) and accept that audit if it is still acceptable", task.Name, postOnly),
			Next{Step: NextRunAudit, Run: postOnly}), nil
	}
	if _, ok := c.repeated(st); !ok {
		return refuse(fmt.Sprintf("%s is not the drift audit state.json records; rerun post-flight (%s)", task.AuditRel(), postOnly), Next{Step: NextRunAudit, Run: postOnly}), nil
	}
	// Only a check that audit.md is the recorded audit: the outcome is accept's own.
	*res = Outcome{Outcome: OutcomeError, Phase: PhaseAccept, Task: task, State: st, Artifacts: Artifacts{State: task.StateRel()}}
	// repeated has read audit.md and checked that it is the recorded audit.
	auditSHA := c.recordedAudit
	// readInputs parsed the spec (a non-empty fingerprint means it is the approved spec).
	rule, err := c.control(st)
	if err != nil {
		return res, err
	}
	d, _ := audit.TaskD(task.Root, in.Changed, rule, c.files.controllerWrites(st.BaselineRef))
	notes, err := c.releaseNotes(in.Spec.Spec, d, c.startDiffStat(ctx, in.Changed), "Audit: ⚠️ Drift, accepted by the planner: "+reason)
	if err != nil {
		return res, err
	}
	reportRaw, err := c.readTaskFile("executor-report.md", task.ReportRel(), MaxSnapshotFileBytes)
	if err != nil {
		return res, fmt.Errorf("read %s: %w", task.ReportRel(), err)
	}
	snap, err := HistorySnapshot(task.Root, SnapshotInput{Baseline: st.BaselineRef, Iteration: st.Iteration,
		Spec: in.Spec.Raw, Report: reportRaw, AuditSHA256: auditSHA, Release: notes, Changed: d})
	if err != nil {
		return res, fmt.Errorf("audit inputs unavailable: %w", err)
	}
	complete, err := c.writeHistoryReview(st, snap, notes)
	if err != nil {
		return res, err
	}
	res.Artifacts.ReleaseNotes = task.ReleaseNotesRel()
	ns := *st
	at := c.now().Unix()
	ns.Status, ns.NextStep, ns.OutcomeRisk, ns.LastArtifact = StatusHistoryReviewRequired, NextReviewHistory, RiskMedium, ArtifactHistoryReview
	ns.BlockingReason, ns.HistorySnapshotSHA256 = "", snap
	ns.BlockingStreak, ns.BlockingFingerprint = 0, ""
	ns.AcceptedReason, ns.AcceptedAt, ns.AcceptedSnapshot = reason, &at, snap
	res.Artifacts.HistoryReview = task.HistoryReviewRel()
	res.Accepted, res.Verdict = true, VerdictDrift
	if complete {
		out, err := c.learn(&ns)
		if err == nil {
			out.Phase = PhaseAccept
			err = tf.check()
		}
		return out, err
	}
	if err := c.writeState(&ns); err != nil {
		return res, err
	}
	if err := tf.check(); err != nil {
		return res, err
	}
	res.Outcome = OutcomeAccepted
	res.Message = fmt.Sprintf("drift of %s accepted: %s", task.Name, reason)
	res.Next = Next{Step: NextReviewHistory, Edit: task.HistoryReviewRel(), Run: "mastermind run-task " + task.Spec}
	return res, nil
}
