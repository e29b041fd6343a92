package postflight

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/verification"
)

const reasonSpecChanged = "spec changed since approval; review the revised contract and rerun pre-flight"

// postflight runs §4 for an existing state.
func (c *controller) postflight(ctx context.Context, prev *State) (*Result, error) {
	res := c.res
	res.Phase = PhasePostflight
	// Step 1: mark the audit as started.
	st := *prev
	st.Status, st.NextStep, st.BlockingReason = StatusAuditRequired, NextRunAudit, ""
	st.ClearVerdict()
	if err := c.writeState(&st); err != nil {
		return res, err
	}
	store, err := c.git.GitDirStore(c.task.Name)
	if err != nil {
		return res, err
	}
	c.snapshot = store
	ar, err := c.computeAudit(ctx, &st, nil)
	if err != nil {
		return res, err
	}
	return c.persistAudit(ctx, &st, ar)
}

// auditRun is the outcome of post-flight steps 2–6 (computeAudit), computed without writing
// anything; persistAudit applies steps 7–11 to it. The gate (gate.go) uses computeAudit alone.
type auditRun struct {
	// SpecChanged: step 2 refused the audit (spec unreadable or its hash is not state.spec_hash).
	SpecChanged bool
	SpecRaw     []byte
	// Audit has Verdict, Counts and Findings set.
	Audit *Audit
	// Findings are the sorted audit findings; for a rejected report, the one rejection finding.
	Findings []finding.Finding
	// Rejection is non-nil for a rejected report (§4 step 3, §10.1).
	Rejection *rejection
	// Changed and D (UTF-8 entries of D only) are nil for a rejected report.
	Changed *gitscope.ChangedSet
	D       []gitscope.Entry
}

// specInput is a spec the caller has already read (err: a read refusal with an fsx reason) and
// parsed, so that computeAudit neither reads nor parses it again.
type specInput struct {
	Raw      []byte
	Err      error
	Spec     *spec.Spec
	Findings []finding.Finding
}

// persistAudit applies the outcome of computeAudit to st: the spec-changed refusal, a rejected
// report, or steps 7–11.
func (c *controller) persistAudit(ctx context.Context, st *State, ar *auditRun) (*Result, error) {
	switch {
	case ar.SpecChanged:
		st.Status, st.NextStep, st.Risk, st.BlockingReason, st.LastArtifact = StatusHeld, NextRunPreflight, RiskMedium, reasonSpecChanged, ArtifactSpec
		if err := c.writeState(st); err != nil {
			return c.res, err
		}
		return c.refuse(PhasePostflight, OutcomePostRefused, reasonSpecChanged+c.nextPreflight(st)), nil
	case ar.Rejection != nil:
		c.res.ReportViolations = ar.Audit.Violations
		return c.rejectCommon(st, ar.Audit, *ar.Rejection)
	}
	return c.finish(ctx, st, ar.Audit, ar.Findings, ar.Changed, ar.D, ar.SpecRaw)
}

// computeAudit runs post-flight steps 2–6 for st without writing anything. pre, when non-nil,
// is the spec as already read and parsed. An error is operational (exit 3).
func (c *controller) computeAudit(ctx context.Context, st *State, pre *specInput) (*auditRun, error) {
	// Step 2: spec binding.
	var raw []byte
	var err error
	if pre != nil {
		raw, err = pre.Raw, pre.Err
	} else {
		raw, err = fsx.ReadInRoot(c.task.Root, c.task.Spec, spec.MaxBytes)
	}
	if err != nil && fsx.ReasonOf(err) == "" {
		return nil, fmt.Errorf("read %s: %w", c.task.Spec, err)
	}
	if err != nil || sha256Hex(raw) != st.SpecHash {
		return &auditRun{SpecChanged: true}, nil
	}
	headOID, unborn, err := c.git.Head(ctx)
	if err != nil {
		return nil, err
	}
	// Step 4 starts here, concurrently with parsing the spec and validating the report, so that
	// nothing runs serially before the git recipe (gitscope.md §8.4). A rejected report cancels it
	// and waits for it to stop: the changed set never contributes to a rejected report.
	csCtx, cancelCS := context.WithCancel(ctx)
	type changedResult struct {
		cs  *gitscope.ChangedSet
		err error
	}
	csDone := make(chan changedResult, 1)
	go func() {
		var cs *gitscope.ChangedSet
		var err error
		if c.snapshot != nil {
			cs, err = c.git.ChangedSetSince(csCtx, st.BaselineRef, c.snapshot)
		} else {
			cs, err = c.git.ChangedSet(csCtx, st.BaselineRef)
		}
		csDone <- changedResult{cs, err}
	}()
	stopChanged := func() { cancelCS(); <-csDone }
	var sp *spec.Spec
	var specFindings []finding.Finding
	if pre != nil && pre.Spec != nil {
		sp, specFindings = pre.Spec, pre.Findings
	} else {
		sp, specFindings = spec.Parse(raw, c.task.Spec)
	}
	// The §10.4 creation check reads the declared creates' baseline entries through go-git,
	// whose first object read loads the pack index (about 40 ms on a 100,000-object
	// repository): started now, it overlaps the changed set instead of following it.
	// Every return cancels and waits for it, so no lookup outlives the audit (the gate audits
	// tasks one after another on one repository); the checks below have waited already.
	lookupCtx, cancelLookup := context.WithCancel(ctx)
	creates := c.startBaselineEntries(lookupCtx, sp.Scope.Creates, st.BaselineRef)
	defer func() { cancelLookup(); creates.wait() }()
	a := &Audit{Spec: c.task.Spec, Baseline: st.BaselineRef, Scope: scopeEvidence(sp)}
	ar := &auditRun{SpecRaw: raw, Audit: a}
	if !unborn {
		a.Head = &headOID
	}
	// Step 3: executor report.
	rr, err := report.ReadInRepo(c.task.Root, c.task.ReportRel())
	if err != nil {
		stopChanged()
		return nil, err
	}
	if len(rr.Findings) > 0 {
		stopChanged()
		return ar.reject(rejectionFor(a, rr)), nil
	}
	rep := rr.Report
	if f, ok := c.checkCompletion(rep); !ok {
		stopChanged()
		return ar.reject(identityRejection(a, rep, f)), nil
	}
	a.Report = reportEvidence(rep, nil)
	// Step 4: changed set (started above).
	res := <-csDone
	cancelCS()
	cs, err := res.cs, res.err
	if err != nil {
		return nil, err
	}
	d := cs.WithoutControl()
	a.ChangedSet = changedEvidence(cs, d)
	// Step 5: checks.
	var fs []finding.Finding
	for _, f := range specFindings {
		if f.Rule == spec.RuleFrontmatterUnterminated || f.Rule == spec.RuleFrontmatterInvalid {
			fs = append(fs, findInvalidFrontmatter(strings.TrimPrefix(f.Rule, "spec.")))
			break
		}
	}
	if cs.Degraded {
		fs = append(fs, findChangedSetDegraded(cs.DegradedReason))
	}
	for _, ic := range cs.InputChanges {
		fs = append(fs, findInputChanged(ic))
	}
	if p, _, w := c.git.GitBinary(ctx); w {
		fs = append(fs, findGitBinaryUserWritable(p))
	}
	dset := map[string]gitscope.Status{}
	var dUTF8 []gitscope.Entry
	for _, e := range d {
		if f, bad := unrepresentable(e); bad {
			fs = append(fs, f)
			continue
		}
		dset[string(e.Path)] = e.Status
		dUTF8 = append(dUTF8, e)
	}
	fs = append(fs, checkFilesModified(rep, dUTF8, dset)...)
	fs = append(fs, checkScope(sp, dUTF8, dset)...)
	dfs := c.checkDeclared(sp, creates.wait(), dset)
	fs = append(fs, dfs...)
	vfs, vev := checkVerification(c.task.Root, sp, rep)
	fs = append(fs, vfs...)
	a.Verification = vev
	checks, cfs, err := c.checkClaims(ctx, rep, st.BaselineRef, dUTF8)
	if err != nil {
		return nil, err
	}
	a.ClaimChecks = checks
	fs = append(fs, cfs...)
	// Step 6: verdict.
	SortAudit(fs)
	e, w := finding.Count(fs)
	a.Verdict, a.Counts, a.Findings = Verdict(fs), Counts{e, w}, fs
	ar.Findings, ar.Changed, ar.D = fs, cs, dUTF8
	return ar, nil
}

// finish applies steps 6–11 to a completed check run.
func (c *controller) finish(ctx context.Context, st *State, a *Audit, fs []finding.Finding, cs *gitscope.ChangedSet, d []gitscope.Entry, specRaw []byte) (*Result, error) {
	res := c.res
	verdict := Verdict(fs)
	e, w := finding.Count(fs)
	a.Verdict, a.Counts, a.Findings = verdict, Counts{e, w}, fs
	res.Findings = fs
	// The streak (step 9) is computed before audit.md is written so that audit.md can say when
	// the task returns to design; it is stored only once audit.md is written.
	var streak int
	var fingerprint string
	var returned bool
	if verdict != VerdictHeld {
		streak, fingerprint, returned = nextStreak(st, fingerprintLines(fs, verdict))
		a.ReturnToDesign = returned
	}
	// Step 7: audit.md.
	auditBytes, err := c.writeAudit(st, a)
	if err != nil {
		return res, err
	}
	degraded := cs.Degraded
	st.Verdict, st.Findings, st.Degraded = verdict, &Counts{e, w}, &degraded
	if verdict == VerdictHeld {
		return c.held(ctx, st, a, cs, d, specRaw, auditBytes)
	}
	// Steps 8–10 for drift and broken.
	applyStreak(st, streak, fingerprint)
	st.LastArtifact = ArtifactAudit
	st.NextStep = NextPlannerReview
	if returned {
		st.NextStep = NextReturnToDesign
	}
	icon := "❌ Broken"
	st.Status, st.Risk = StatusBroken, RiskHigh
	if verdict == VerdictDrift {
		icon = "⚠️ Drift"
		st.Status, st.Risk = StatusDrift, RiskMedium
	}
	st.BlockingReason = fmt.Sprintf("post-flight verdict: %s — errors: %d, warnings: %d", icon, e, w)
	if returned {
		st.BlockingReason += streakSuffix
	}
	c.upsertLesson(lessonEvent{Kind: LessonAuditContractFailure, Observed: observedText(verdict, fs, returned)})
	if err := c.writeState(st); err != nil {
		return res, err
	}
	res.Message = st.BlockingReason
	res.Text = auditText(auditBytes) + fmt.Sprintf("audit: %s\n", c.task.AuditRel())
	if verdict == VerdictDrift {
		res.Outcome, res.ExitCode = OutcomePostDrift, 0
		if c.opts.FailOnDrift {
			res.ExitCode = 1
		}
	} else {
		res.Outcome, res.ExitCode = OutcomePostBroken, 1
	}
	return res, nil
}

// writeAudit renders and writes audit.md (§4 step 7). A failed write sets state held /
// planner_review with risk high and returns an operational error.
func (c *controller) writeAudit(st *State, a *Audit) ([]byte, error) {
	data, err := RenderAudit(a)
	if err == nil {
		err = fsx.WriteFileAtomic(c.task.Abs(c.task.AuditRel()), data, 0o644)
	}
	if err != nil {
		st.Status, st.NextStep, st.Risk, st.LastArtifact = StatusHeld, NextPlannerReview, RiskHigh, ArtifactSpec
		st.BlockingReason = "failed to persist audit.md: " + err.Error()
		st.ClearVerdict()
		if werr := c.writeState(st); werr != nil {
			return nil, fmt.Errorf("failed to persist audit.md: %v; and the state could not be written either: %w", err, werr)
		}
		return nil, fmt.Errorf("failed to persist audit.md: %w", err)
	}
	c.res.Artifacts.Audit = c.task.AuditRel()
	return data, nil
}

// auditText is the human part of audit.md (everything before the evidence header).
func auditText(audit []byte) string {
	s := string(audit)
	if i := strings.Index(s, "Structured audit evidence"); i >= 0 {
		s = s[:i]
	}
	return s
}

// unrepresentable reports whether a changed path can never be listed in files_modified, with its
// changed_path_unrepresentable finding (§9.1, §10). A path qualifies when it is not valid UTF-8,
// or when it fails the repopath hygiene that every files_modified entry must pass (a backslash,
// a control character, leading or trailing white space, a drive-like first component, the length
// and component limits), or when normalisation would turn it into another path: a report entry
// `a\b` names the real path `a/b`, so a real file named `a\b` can never be listed. Such paths
// are left out of every other comparison, so the audit neither asks for the impossible listing
// nor lets a normalised entry stand for them.
func unrepresentable(e gitscope.Entry) (finding.Finding, bool) {
	if !e.UTF8 || !utf8.Valid(e.Path) {
		return findChangedPathUnrepresentable(textsafe.Escape(string(e.Path))), true
	}
	p := string(e.Path)
	n, err := repopath.Clean(p)
	var pe *repopath.Error
	switch {
	case errors.As(err, &pe):
		return findChangedPathInvalid(textsafe.Escape(p), string(pe.Reason)), true
	case err != nil:
		return findChangedPathInvalid(textsafe.Escape(p), err.Error()), true
	case n != p:
		return findChangedPathInvalid(textsafe.Escape(p), "files_modified normalisation rewrites it to "+textsafe.Escape(n)), true
	}
	return finding.Finding{}, false
}

// checkCompletion applies §10.1 to a valid report. ok is false with the rejection finding when
// the report is not a completed report for this task.
func (c *controller) checkCompletion(rep *report.Report) (finding.Finding, bool) {
	switch rep.Status {
	case "partial":
		return findReportRejected(ReasonStatusPartial, "the executor reported status partial"+defectDetail(rep)), false
	case "failed":
		return findReportRejected(ReasonStatusFailed, "the executor reported status failed"+defectDetail(rep)), false
	}
	if len(rep.Defects) > 0 {
		return findReportRejected(ReasonCompletionInconsistent, "status complete with a defect"), false
	}
	for _, p := range rep.Phases {
		if p.Status != "done" {
			return findReportRejected(ReasonCompletionInconsistent, fmt.Sprintf("status complete but phase %q is %s", p.ID, p.Status)), false
		}
	}
	for _, v := range rep.Verifications {
		if v.Result == "fail" {
			return findReportRejected(ReasonCompletionInconsistent, fmt.Sprintf("status complete but verification %q failed", v.Cmd)), false
		}
	}
	name := rep.Spec
	if filepath.IsAbs(name) {
		rel, err := fsx.Rel(c.task.Root, name)
		if err != nil {
			rel, err = relViaRealPaths(c.task.Root, name)
		}
		if err != nil {
			return findReportRejected(ReasonTaskPathInvalid, fmt.Sprintf("spec %q is outside the repository", textsafe.Escape(name))), false
		}
		name = rel
	}
	norm, err := repopath.Clean(name)
	if err != nil {
		return findReportRejected(ReasonTaskPathInvalid, fmt.Sprintf("spec %q is not a repository-relative path", textsafe.Escape(rep.Spec))), false
	}
	if norm != c.task.Spec {
		return findReportRejected(ReasonTaskMismatch, fmt.Sprintf("the report is for spec %q, not %s", textsafe.Escape(rep.Spec), c.task.Spec)), false
	}
	if err := fsx.CheckNoSymlink(c.task.Root, norm); err != nil {
		return findReportRejected(ReasonTaskSourceUnavailable, fmt.Sprintf("spec %s cannot be read as a repository file: %v", norm, err)), false
	}
	return finding.Finding{}, true
}

func defectDetail(rep *report.Report) string {
	if len(rep.Defects) == 0 {
		return ""
	}
	d := rep.Defects[0]
	s := fmt.Sprintf("; defect %s", d.Kind)
	if d.Details != "" {
		s += ": " + d.Details
	}
	return s
}

// rejection is a rejected executor report: its one audit finding, the state's blocking reason,
// the fingerprint lines (§6) and the lessons "Observed" text (§11).
type rejection struct {
	Finding  finding.Finding
	Blocking string
	Lines    []string
	Observed string
}

// reject records r as the outcome of ar (verdict broken, one error finding).
func (ar *auditRun) reject(r *rejection) *auditRun {
	ar.Rejection = r
	ar.Findings = []finding.Finding{r.Finding}
	ar.Audit.Verdict, ar.Audit.Counts, ar.Audit.Findings = VerdictBroken, Counts{Errors: 1}, ar.Findings
	return ar
}

// rejectionFor describes a report with validation findings (§4 step 3) and fills a's report
// evidence.
func rejectionFor(a *Audit, rr report.Result) *rejection {
	reason := ReasonReportInvalid
	var msgs []string
	for _, f := range rr.Findings {
		if f.Rule == "report.missing" {
			reason = ReasonReportMissing
		}
		msgs = append(msgs, f.Message)
	}
	if reason == ReasonReportInvalid {
		form := string(rr.Form)
		var fp *string
		if form != "" {
			fp = &form
		}
		a.Report = &ReportEvidence{Form: fp, Violations: rr.Findings}
	}
	f := findReportRejected(reason, firstPlus(msgs))
	a.Violations = rr.Findings
	var lines []string
	for _, v := range rr.Findings {
		lines = append(lines, KindExecutorReportRejected+"\x1f"+v.Rule+"\x1f"+v.Pointer)
	}
	return &rejection{Finding: f, Blocking: "executor report rejected: " + firstPlus(msgs), Lines: lines,
		Observed: fmt.Sprintf("contract broken; 1× executor report rejected (%s)", reason)}
}

// identityRejection describes a valid report that fails §10.1 and fills a's report evidence.
func identityRejection(a *Audit, rep *report.Report, f finding.Finding) *rejection {
	a.Report = reportEvidence(rep, nil)
	reason := f.FieldString("reason")
	detail := strings.TrimPrefix(f.Message, fmt.Sprintf("executor report rejected (%s): ", reason))
	return &rejection{Finding: f, Blocking: "executor report rejected: " + detail,
		Lines:    []string{KindExecutorReportRejected + "\x1f" + reason},
		Observed: fmt.Sprintf("contract broken; 1× executor report rejected (%s)", reason)}
}

// rejectCommon writes audit.md and state for a rejected report.
func (c *controller) rejectCommon(st *State, a *Audit, r rejection) (*Result, error) {
	res := c.res
	f, blocking, lines, observed := r.Finding, r.Blocking, r.Lines, r.Observed
	fs := []finding.Finding{f}
	a.Verdict, a.Counts, a.Findings = VerdictBroken, Counts{Errors: 1}, fs
	res.Findings = fs
	streak, fingerprint, returned := nextStreak(st, lines)
	a.ReturnToDesign = returned
	auditBytes, err := c.writeAudit(st, a)
	if err != nil {
		return res, err
	}
	applyStreak(st, streak, fingerprint)
	st.Status, st.NextStep, st.Risk, st.LastArtifact = StatusHeld, NextPlannerReview, RiskMedium, ArtifactReport
	if returned {
		st.NextStep = NextReturnToDesign
		blocking += streakSuffix
		observed += returnedSuffix
	}
	st.BlockingReason = blocking
	st.Verdict, st.Findings, st.Degraded = VerdictBroken, &Counts{Errors: 1}, nil
	c.upsertLesson(lessonEvent{Kind: LessonAuditContractFailure, Observed: observed})
	if err := c.writeState(st); err != nil {
		return res, err
	}
	res.Outcome, res.ExitCode, res.Message = OutcomePostBroken, 1, blocking
	res.Text = auditText(auditBytes) + fmt.Sprintf("audit: %s\n", c.task.AuditRel())
	return res, nil
}

// checkFilesModified applies §10.2.
func checkFilesModified(rep *report.Report, d []gitscope.Entry, dset map[string]gitscope.Status) []finding.Finding {
	var fs []finding.Finding
	listed := map[string]bool{}
	for _, fm := range rep.FilesModified {
		listed[fm.Path] = true
		if _, ok := dset[fm.Path]; !ok || repopath.IsControlPath(fm.Path) {
			fs = append(fs, findReportUnexpectedFile(fm.Path))
		}
	}
	for _, e := range d {
		if !listed[string(e.Path)] {
			fs = append(fs, findReportMissingChangedFile(string(e.Path)))
		}
	}
	return fs
}

// checkScope applies §10.3.
func checkScope(sp *spec.Spec, d []gitscope.Entry, dset map[string]gitscope.Status) []finding.Finding {
	var fs []finding.Finding
	inScope := map[string]bool{}
	for _, p := range sp.Scope.Declared {
		inScope[p] = true
	}
	for _, e := range d {
		if !inScope[string(e.Path)] {
			fs = append(fs, findUnexpectedFile(string(e.Path)))
		}
	}
	seen := map[string]bool{}
	for _, list := range [][]string{sp.Scope.Touches, sp.Scope.ExpectedDocs} {
		for _, p := range list {
			if seen[p] {
				continue
			}
			seen[p] = true
			if _, ok := dset[p]; !ok {
				fs = append(fs, findMissingExpectedFile(p))
			}
		}
	}
	return fs
}

// baselineEntries is the outcome of BaselineEntries for the declared creates.
type baselineEntries struct {
	types map[string]gitscope.EntryType
	err   error
}

// pendingEntries is a BaselineEntries lookup running in the background.
type pendingEntries struct {
	ch   chan baselineEntries
	once sync.Once
	res  baselineEntries
}

// wait returns the lookup's result, waiting for it the first time; later calls return it again.
func (p *pendingEntries) wait() baselineEntries {
	p.once.Do(func() { p.res = <-p.ch })
	return p.res
}

// startBaselineEntries looks paths up in the baseline tree in the background (ctx cancels the
// git CLI fallback). With no paths the result is empty at once.
func (c *controller) startBaselineEntries(ctx context.Context, paths []string, baseline string) *pendingEntries {
	p := &pendingEntries{ch: make(chan baselineEntries, 1)}
	if len(paths) == 0 {
		p.ch <- baselineEntries{}
		return p
	}
	go func() {
		types, err := c.git.BaselineEntries(ctx, baseline, paths)
		p.ch <- baselineEntries{types, err}
	}()
	return p
}

// checkDeclared applies §10.4; creates holds the baseline entries of sp.Scope.Creates (a lookup
// error makes every declared creation creation_baseline_unavailable).
func (c *controller) checkDeclared(sp *spec.Spec, creates baselineEntries, dset map[string]gitscope.Status) []finding.Finding {
	var fs []finding.Finding
	for _, f := range spec.CheckDeclaredFiles(c.task.Root, sp) {
		fs = append(fs, findDeclaredFileUnavailable(f.FieldString("file"), f.FieldString("reason")))
	}
	types, err := creates.types, creates.err
	for _, p := range sp.Scope.Creates {
		switch {
		case err != nil:
			fs = append(fs, findDeclaredFileUnavailable(p, ReasonCreationBaselineUnavailable))
			continue
		case types[p] != "" && types[p] != gitscope.EntryAbsent:
			fs = append(fs, findDeclaredFileUnavailable(p, ReasonCreationExistsInBaseline))
			continue
		}
		if s, ok := dset[p]; !ok || (s != gitscope.StatusAdded && s != gitscope.StatusUntracked) {
			fs = append(fs, findDeclaredFileUnavailable(p, ReasonCreationNotAdded))
			continue
		}
		if err := fsx.CheckNoSymlink(c.task.Root, p); err != nil {
			fs = append(fs, findDeclaredFileUnavailable(p, ReasonTargetNotRegular))
			continue
		}
		if fi, err := lstat(c.task.Abs(p)); err != nil || !fi.Mode().IsRegular() {
			fs = append(fs, findDeclaredFileUnavailable(p, ReasonTargetNotRegular))
		}
	}
	return fs
}

// checkVerification applies §10.5 through internal/verification.
func checkVerification(root string, sp *spec.Spec, rep *report.Report) ([]finding.Finding, *VerificationEvidence) {
	rows := make([]verification.Row, len(rep.Verifications))
	for i, v := range rep.Verifications {
		rows[i] = verification.Row{Index: v.Index, Cmd: v.Cmd, Result: v.Result}
		if v.Observed != nil {
			rows[i].ExitCode, rows[i].TestsRun = v.Observed.ExitCode, v.Observed.TestsRun
		}
	}
	vr := verification.Check(root, sp.VerifyCommands, rows)
	fs := make([]finding.Finding, 0, len(vr.Findings))
	for _, f := range vr.Findings {
		f.File, f.Line, f.Column, f.Pointer = "", 0, 0, ""
		if f.Class == "" {
			f.Class = kindClass(f.Rule)
		}
		if f.Message == "" {
			f.Message = verificationMessage(f)
		}
		fs = append(fs, f)
	}
	ev := &VerificationEvidence{Declared: nonNil(sp.VerifyCommands), Labels: nonNil(sp.VerifyLabels), Rows: []VerificationRow{}}
	for _, r := range vr.Rows {
		ev.Rows = append(ev.Rows, VerificationRow{Index: r.Index, Cmd: r.Cmd, Result: r.Result, Classification: r.Classification, Runner: r.Runner})
	}
	return fs, ev
}

func scopeEvidence(sp *spec.Spec) *ScopeEvidence {
	return &ScopeEvidence{Source: sp.Scope.Source, Declared: nonNil(sp.Scope.Declared), IgnoredScopeTokens: nonNil(sp.Scope.IgnoredTokens)}
}

func reportEvidence(rep *report.Report, violations []finding.Finding) *ReportEvidence {
	form, status, sp := string(rep.Form), rep.Status, rep.Spec
	files := make([]string, len(rep.FilesModified))
	for i, f := range rep.FilesModified {
		files[i] = f.Path
	}
	if violations == nil {
		violations = []finding.Finding{}
	}
	return &ReportEvidence{Form: &form, Status: &status, Spec: &sp, FilesModified: files, Violations: violations}
}

func changedEvidence(cs *gitscope.ChangedSet, d []gitscope.Entry) *ChangedSetEvidence {
	ev := &ChangedSetEvidence{Source: cs.Source, Degraded: cs.Degraded, Files: make([]ChangedFileJSON, len(d))}
	for i, e := range d {
		ev.Files[i] = ChangedFileJSON{Path: textsafe.Escape(string(e.Path)), Status: string(e.Status)}
		if utf8.Valid(e.Path) {
			ev.Files[i].Path = string(e.Path)
		}
	}
	return ev
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
