package postflight

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/spec"
)

const reasonSpecChanged = "spec changed since approval; review the revised contract and rerun pre-flight"

// postflight runs §4 for an existing state.
func (c *controller) postflight(ctx context.Context, prev *State) (*Outcome, error) {
	res := c.res
	res.Phase = PhasePostflight
	// Unchanged inputs are a read (lifecycle-v2.md §5): the recorded outcome, nothing written,
	// the streak unchanged.
	in, err := c.readInputs(ctx, prev, c.opts.RunVerify)
	if err != nil {
		return res, err
	}
	defer in.Spec.close()
	res.InputsFingerprint = in.Fingerprint
	if in.Fingerprint == "" {
		res.InputsFingerprint = refusalFingerprint(reasonSpecChanged, fsx.SHA256Hex(in.Spec.Raw))
	}
	// --rerun-verify asks for new runs of the verify commands, and a mirror found tampered with
	// must be reported by an audit (controller_record_tampered), so both always audit.
	tampered := c.files != nil && len(c.files.tamperFindings()) > 0
	// A repository whose HEAD commit the ids cannot name may have moved: audit again
	// (docs/hardening.md X7).
	if in.Fingerprint != "" && in.Fingerprint == prev.InputsFingerprint && !c.opts.RerunVerify && !tampered && in.Unresolved == "" {
		if out, ok := c.repeated(prev); ok {
			return out, nil
		}
		c.reaudit = true
	}
	c.inputsFP = in.Fingerprint
	// Step 1: mark the audit as started.
	st := *prev
	st.Status, st.NextStep, st.BlockingReason = StatusAuditRequired, NextRunAudit, ""
	st.ClearVerdict()
	if err := c.writeState(&st); err != nil {
		return res, err
	}
	rule, err := c.control(&st)
	if err != nil {
		return res, err
	}
	ar, err := auditTask(ctx, auditRequest{Task: c.task, State: &st, Src: c.src, Spec: in.Spec, Files: c.files,
		Verify: c.verifyInputs(&st), RepoFindings: builder{git: c.git}.repoFindings(ctx), Foreign: c.foreignInputs(&st), Control: rule,
		ControllerWrites: c.files.controllerWrites(st.BaselineRef)})
	if err != nil {
		return res, err
	}
	if ar.Result != nil && ar.Verify != nil && len(ar.Verify.Plan) > 0 {
		res.Receipts = ar.Verify.Evidence()
		// The verify commands ran outside the run's deadline; the rest of the run gets its own.
		if c.opts.VerifyContext != nil && c.opts.RestDeadline > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(c.opts.VerifyContext, c.opts.RestDeadline)
			defer cancel()
		}
	}
	return c.persistAudit(ctx, &st, ar)
}

// auditRun is the outcome of post-flight steps 2–6, computed by auditTask without writing
// anything; persistAudit applies steps 7–11 to it, and the gates use auditTask alone.
type auditRun struct {
	// SpecChanged: step 2 refused the audit because the spec is unreadable or its hash is not
	// state.spec_hash. Result is then nil.
	SpecChanged bool
	SpecRaw     []byte
	*audit.Result
}

// specInput is a spec the caller has already read and parsed, so auditTask neither reads nor
// parses it again. Err is a read refusal with an fsx reason.
type specInput struct {
	Raw      []byte
	Err      error
	Spec     *spec.Spec
	Findings []finding.Finding
	// Prefetch, when set, is the audit's git work that readInputs started beside HEAD's lookup,
	// so neither waits for the other (gitscope.md §8.4). auditTask uses and closes it.
	Prefetch *audit.Prefetch
	head     func() (oid string, unborn bool, err error)
	// Transcript is the harness transcript readInputs read, nil without one.
	Transcript *audit.TranscriptInputs
}

// close stops what readInputs started, for a repeated post-flight that audits nothing. It is safe
// to call more than once.
func (s *specInput) close() {
	if s != nil && s.Prefetch != nil {
		s.Prefetch.Close()
		s.head()
	}
}

// persistAudit applies the outcome of auditTask to st: the spec-changed refusal, a rejected
// report, or steps 7–11.
func (c *controller) persistAudit(ctx context.Context, st *State, ar *auditRun) (*Outcome, error) {
	switch {
	case ar.SpecChanged:
		st.Status, st.NextStep, st.OutcomeRisk, st.BlockingReason, st.LastArtifact = StatusBlocked, NextRunPreflight, RiskMedium, reasonSpecChanged, ArtifactSpec
		if err := c.writeState(st); err != nil {
			return c.res, err
		}
		return c.refusePreflight(reasonSpecChanged, st), nil
	case ar.Rejection != nil:
		// A rejected report's bookkeeping (rejectedLines) reads its findings as one slice.
		ar.Findings, ar.PathRuns = slices.Collect(audit.All(ar.Findings, ar.PathRuns)), nil
		c.res.ReportViolations = ar.Evidence.Violations
		return c.rejectCommon(st, newAudit(ar.Result), *ar.Rejection, ar.Findings)
	}
	return c.finish(ctx, st, newAudit(ar.Result), ar.Findings, ar.Changed, ar.D, ar.SpecRaw)
}

// auditRequest is one audit as a door asks auditTask for it. Nothing is inferred from a field left
// empty but what its comment says.
type auditRequest struct {
	Task  Task
	State *State
	// Src is the task's source, from sourceFor.
	Src source
	// Spec is the spec as the door read and parsed it; its Prefetch, when set, is the audit's git
	// work already started.
	Spec *specInput
	// Changed, when set, is the changed set a gate already computed from Src, with the paths other
	// re-audited tasks own left out.
	Changed *gitscope.ChangedSet
	// Files is a run-task's task folder, whose handle the report is read through (trust-model.md
	// I4). It is nil for a gate's read-only audit, which reads the report by path.
	Files *taskFiles
	// Verify runs the declared verification commands; a gate never sets it.
	Verify *audit.VerifyInputs
	// RepoFindings are the door's findings about the repository itself.
	RepoFindings []finding.Finding
	// Foreign checks other tasks' records against the task's pre-flight snapshot of them
	// (trust-model.md I3); nil checks none.
	Foreign *foreignInputs
	// Control decides which changed paths below .mastermind/ are the controller's, by the rule
	// of the door (trust-model.md I3).
	Control repopath.ControlRule
	// ControllerWrites are the files the controller's verification runs created, which the audit
	// leaves out of Changed and lists in its evidence (verification-receipts.md §2.2). nil when
	// there are none or the door left them out already.
	ControllerWrites map[string]string
}

// foreignInputs are the other tasks' records as the task's pre-flight saw them (I3).
type foreignInputs struct {
	Before          map[string]string
	ControllerWrote func(task, name, sha string) bool
}

// foreignInputs is the run-task's I3 check for state st: the store record's snapshot of the
// other tasks' records, when it was taken at st's baseline.
func (c *controller) foreignInputs(st *State) *foreignInputs {
	if c.files == nil || c.files.rec == nil || c.files.rec.Foreign == nil || c.files.rec.Foreign.Baseline != st.BaselineRef {
		return nil
	}
	return &foreignInputs{Before: c.files.rec.Foreign.Records, ControllerWrote: c.files.controllerWrote}
}

// auditTask runs post-flight steps 2–6 for one audit request: the spec binding, then audit.Compute
// over the request's source. It writes nothing but verification receipts, and an error is
// operational.
func auditTask(ctx context.Context, req auditRequest) (*auditRun, error) {
	t, st, pre := req.Task, req.State, req.Spec
	// Step 2: spec binding.
	raw, err := pre.Raw, pre.Err
	if err != nil && fsx.ReasonOf(err) == "" {
		return nil, fmt.Errorf("read %s: %w", t.Spec, err)
	}
	if err != nil || fsx.SHA256Hex(raw) != st.SpecHash {
		return &auditRun{SpecChanged: true}, nil
	}
	head := req.Src.Head
	if pre.head != nil {
		head = func(context.Context) (string, bool, error) { return pre.head() }
	}
	headOID, unborn, err := head(ctx)
	if err != nil {
		return nil, err
	}
	// Step 4 starts here unless readInputs started it, concurrently with validating the report,
	// so nothing runs serially before the git recipe (gitscope.md §8.4). Close waits for every
	// lookup on every return, so none outlives the audit.
	ag := auditGit{src: req.Src, baseline: st.BaselineRef, changed: req.Changed}
	pf := pre.Prefetch
	if pf == nil {
		pf = audit.StartChangedSet(ctx, ag, st.BaselineRef)
	}
	defer pf.Close()
	// A run-task holds the per-path findings as runs, which persistAudit reads through All; the
	// gates read Findings alone.
	in := audit.Inputs{Root: t.Root, SpecPath: t.Spec, Baseline: st.BaselineRef, Prefetch: pf, Claims: ag, Verify: req.Verify,
		RepoFindings: req.RepoFindings, PathRuns: req.Files != nil, Control: req.Control, ControllerWrites: req.ControllerWrites}
	if f := req.Foreign; f != nil {
		in.ForeignArtifacts, in.ForeignBefore, in.ControllerWrote = true, f.Before, f.ControllerWrote
	}
	in.Transcript = pre.Transcript
	if pre.Spec != nil {
		in.Spec, in.SpecFindings = pre.Spec, pre.Findings
	} else {
		in.Spec, in.SpecFindings = spec.Parse(raw, t.Spec)
	}
	if !pf.LookupStarted() {
		pf.LookupBaseline(ctx, ag, st.BaselineRef, in.Spec.Scope.Creates)
	}
	if !unborn {
		in.Head = &headOID
	}
	// Step 3: executor report.
	if req.Files != nil {
		in.Report, err = report.ReadDir(req.Files.dir, "executor-report.md", t.ReportRel())
	} else {
		in.Report, err = report.ReadInRepo(t.Root, t.ReportRel())
	}
	if err != nil {
		return nil, err
	}
	r, err := audit.Compute(ctx, in)
	if err != nil {
		return nil, err
	}
	return &auditRun{SpecRaw: raw, Result: r}, nil
}

// finish applies steps 6–11 to a completed check run.
func (c *controller) finish(ctx context.Context, st *State, a *Audit, fs []finding.Finding, cs *gitscope.ChangedSet, d []gitscope.Entry, specRaw []byte) (*Outcome, error) {
	res := c.res
	if tf := c.tamperFindings(); len(tf) > 0 {
		fs = append(fs, tf...)
		audit.Sort(fs)
	}
	runs := a.PathRuns
	verdict := audit.VerdictOfAll(fs, runs)
	e, w := finding.Count(fs)
	re, rw := finding.CountRuns(runs)
	e, w = e+re, w+rw
	a.Verdict, a.Counts, a.Findings = verdict, Counts{e, w}, fs
	res.Findings, res.PathRuns = fs, runs
	// The streak (step 9) is computed before audit.md is written so that audit.md can say when
	// the task returns to design; it is stored only once audit.md is written.
	var streak int
	var fingerprint string
	var returned bool
	if verdict != VerdictHeld {
		streak, fingerprint, returned = nextStreakFP(st, fingerprintAll(fs, runs, verdict), c.reaudit)
		a.ReturnToDesign = returned
	}
	var diffStat func() (string, error)
	if verdict == VerdictHeld {
		diffStat = c.startDiffStat(ctx, cs)
	}
	// Step 7: audit.md.
	auditSHA, summary, err := c.writeAudit(st, a)
	if err != nil {
		return res, err
	}
	degraded := cs.Degraded
	st.Verdict, st.Findings, st.Degraded = verdict, &Counts{e, w}, &degraded
	st.InputsFingerprint = c.inputsFP
	if verdict == VerdictHeld {
		return c.held(st, d, diffStat, specRaw, auditSHA, summary)
	}
	// Steps 8–10 for drift and broken.
	applyStreak(st, streak, fingerprint)
	st.LastArtifact = ArtifactAudit
	st.NextStep = NextPlannerReview
	if returned {
		st.NextStep = NextReturnToDesign
	}
	st.Status, st.OutcomeRisk = StatusBroken, RiskHigh
	if verdict == VerdictDrift {
		st.Status, st.OutcomeRisk = StatusDrift, RiskMedium
	}
	st.BlockingReason = verdictSentence(verdict, Counts{e, w}, "")
	if returned {
		st.BlockingReason += streakSuffix
	}
	c.upsertLesson(lessonEvent{Kind: LessonAuditContractFailure, Observed: observedText(verdict, fs, runs, returned)})
	if err := c.writeState(st); err != nil {
		return res, err
	}
	res.Message, res.VerdictLine, res.Verdict = st.BlockingReason, true, verdict
	res.AuditSummary = summary
	res.Next = Next{Step: st.NextStep}
	res.Outcome = OutcomePostBroken
	if verdict == VerdictDrift {
		res.Outcome = OutcomePostDrift
	}
	return res, nil
}

// writeAudit writes audit.md by streaming (§4 step 7) and the audit's data beside it in the
// store, and returns audit.md's SHA-256 and the capped summary of its human part
// (Outcome.AuditSummary). A failed write sets state held /
// planner_review with risk high and returns an operational error.
func (c *controller) writeAudit(st *State, a *Audit) (sha string, summary string, err error) {
	sum := newSummaryCap(MaxSummaryFindings)
	sha, err = c.files.saveAudit(func(w io.Writer) error { return writeAudit(w, a, sum) },
		func(w io.Writer) error { return writeResult(w, a, sum.String()) }, c.now())
	if err != nil {
		st.Status, st.NextStep, st.OutcomeRisk, st.LastArtifact = StatusBlocked, NextPlannerReview, RiskHigh, ArtifactSpec
		st.BlockingReason = "failed to persist audit.md: " + err.Error()
		st.ClearVerdict()
		if werr := c.writeState(st); werr != nil {
			return "", "", fmt.Errorf("failed to persist audit.md: %v; and the state could not be written either: %w", err, werr)
		}
		return "", "", fmt.Errorf("failed to persist audit.md: %w", err)
	}
	c.res.Artifacts.Audit = c.task.AuditRel()
	return sha, sum.String(), nil
}

// rejectCommon writes audit.md and state for a rejected report. fs are every finding of the
// audit: the rejection and the findings of its feedback round (lifecycle-v2.md §6).
func (c *controller) rejectCommon(st *State, a *Audit, r audit.Rejection, fs []finding.Finding) (*Outcome, error) {
	res := c.res
	blocking, observed := r.Blocking, r.Observed
	// The tamper findings are reported once, so they stay out of the fingerprint: the same
	// report over the same tree keeps its streak.
	lines, others := rejectedLines(r, fs)
	observed += observedKinds(others)
	if tf := c.tamperFindings(); len(tf) > 0 {
		fs = append(slices.Clone(fs), tf...)
		audit.Sort(fs)
	}
	e, w := finding.Count(fs)
	a.Verdict, a.Counts, a.Findings = VerdictBroken, Counts{e, w}, fs
	res.Findings = fs
	streak, fingerprint, returned := nextStreak(st, lines, c.reaudit)
	a.ReturnToDesign = returned
	_, summary, err := c.writeAudit(st, a)
	if err != nil {
		return res, err
	}
	applyStreak(st, streak, fingerprint)
	st.Status, st.NextStep, st.OutcomeRisk, st.LastArtifact = StatusBlocked, NextPlannerReview, RiskMedium, ArtifactReport
	if returned {
		st.NextStep = NextReturnToDesign
		blocking += streakSuffix
		observed += returnedSuffix
	}
	st.BlockingReason = blocking
	st.Verdict, st.Findings, st.Degraded = VerdictBroken, &Counts{e, w}, nil
	st.InputsFingerprint = c.inputsFP
	if r.Finding.FieldString("reason") == audit.ReasonTaskSourceUnavailable {
		// The spec could not be read by path during the audit although the fingerprint's read
		// succeeded, so the outcome is not a function of the fingerprinted inputs and the next
		// post-flight audits again.
		st.InputsFingerprint = ""
	}
	c.upsertLesson(lessonEvent{Kind: LessonAuditContractFailure, Observed: observed})
	if err := c.writeState(st); err != nil {
		return res, err
	}
	res.Outcome, res.Verdict, res.Message = OutcomePostBroken, VerdictBroken, blocking
	res.AuditSummary = summary
	res.Next = Next{Step: st.NextStep}
	return res, nil
}
