package postflight

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/spec"
)

// GateOptions configure one run of the pre-merge gate (`mastermind gate`).
type GateOptions struct {
	Git Git
	// Since, when non-empty, is a full commit OID: only the tasks whose folder or declared scope
	// files changed since that commit are gated. Empty gates every task.
	Since string
	// Base, when non-empty, is a full commit OID: the gate against a protected base of
	// trust-model.md §5 (gate_base.go) over merge-base(Base, Head)..Head, reading committed
	// content only. Git must then be a RangeGit. Since and Record do not apply.
	Base string
	// Head is the full OID of the commit gated with Base (the caller resolves HEAD when the user
	// gave none).
	Head string
	// InPlace allows the gate against a base to audit the work tree in place when it holds
	// exactly Head. Only for a checkout the executor never had (CI): elsewhere the executor can
	// have written .git/index, whose stat data decides what "unchanged" means.
	InPlace bool
	// FailOnDrift makes drift fail the gate too.
	FailOnDrift bool
	// Record runs the normal post-flight (with its writes, under the controller lock) for each
	// gated task instead of a read-only audit.
	Record bool
	// Now is passed to post-flight with Record.
	Now func() time.Time
	// Wait is passed to post-flight with Record: how long to wait for a busy controller lock.
	Wait time.Duration
	// StateDir is the controller store root ("" for store.Location()). Tasks the store has a
	// record of are gated from it (trust-model.md I2); the others from their state.json (a CI
	// runner has no store: trust-model.md I6).
	StateDir string
}

// Gate task statuses (GateTask.Status).
const (
	GateHeld       = "held"        // the audit verdict is held
	GateDrift      = "drift"       // the audit verdict is drift
	GateBroken     = "broken"      // the audit verdict is broken (including a rejected report)
	GateRefused    = "refused"     // spec changed since approval, or pre-flight is required
	GateLearned    = "learned"     // closed; not re-audited, but its history review must back the closure
	GateAccepted   = "accepted"    // a drift the planner accepted, its inputs unchanged since (lifecycle-v2.md §3)
	GateNotStarted = "not_started" // no state.json: pre-flight never ran (open, unapproved work: fails)
	GateError      = "error"       // corrupt state, unusable or misnamed task folder, or git failure
)

// GateTask is the gate's outcome for one task.
type GateTask struct {
	Task Task
	// Status is one of the Gate* statuses.
	Status string
	// Passed reports whether the task lets the gate pass: held; learned when its history review
	// is complete and matches the state's snapshot; drift unless FailOnDrift. Never for not
	// started, broken, refused or error.
	Passed bool
	// StateStatus is the status in state.json before the gate ran ("" without state).
	StateStatus string
	// Baseline is the state's baseline_ref ("" without state).
	Baseline string
	// Verdict and Counts are set when an audit reached a verdict.
	Verdict string
	Counts  *Counts
	// Findings are the audit findings (§9.3 order); ReportViolations the findings of a rejected
	// executor report.
	Findings         []finding.Finding
	ReportViolations []finding.Finding
	// Reason is the first blocking reason, "" when there is none (held, learned).
	Reason string
	// Err is the operational error of a GateError task.
	Err error
	// Recorded is true when post-flight persisted this task's outcome (Record).
	Recorded bool
	// Warnings are the advisory warnings of a recorded post-flight (Outcome.Warnings).
	Warnings []string
}

// GateStats count the work done, for the MASTERMIND_DEBUG_GATE report and the benchmark.
type GateStats struct {
	Tasks       int // task folders found
	Selected    int // tasks gated (all, or those changed since Since)
	Audited     int // tasks audited (not learned, not never-started, not corrupt)
	Baselines   int // distinct baselines among the audited tasks
	ChangedSets int // changed-set computations (one per distinct baseline, plus Since)
	SpecReads   int // spec.md files read (each at most once)
	SpecParses  int // spec.md files parsed (each at most once)
}

// GateResult is the outcome of Gate.
type GateResult struct {
	Tasks []GateTask // sorted by task name
	Since string     // the Since OID, "" for all tasks
	// Range is set for a gate against a base (Base): the commits it compared.
	Range *RangeInfo
	// Findings are the findings about the range rather than one task (gate.unowned_change,
	// gate.task_record_changed of a deleted task folder or of closed release notes), sorted by
	// kind then path.
	Findings []finding.Finding
	Stats    GateStats
}

// Passed reports whether every gated task passes (also when none was gated) and the range has
// no error finding.
func (r *GateResult) Passed() bool {
	if e, _ := finding.Count(r.Findings); e > 0 {
		return false
	}
	for _, t := range r.Tasks {
		if !t.Passed {
			return false
		}
	}
	return true
}

// Count returns the number of tasks with the given Gate* status.
func (r *GateResult) Count(status string) int {
	n := 0
	for _, t := range r.Tasks {
		if t.Status == status {
			n++
		}
	}
	return n
}

// Gate audits every task under .mastermind/tasks/ that is not learned (or, with Since, the
// tasks whose folder or declared scope files changed since that commit) and decides whether the
// working tree may be merged. Without Record nothing is written: each task goes through the
// same checks as post-flight (auditTask, audit.Compute) and its state is left byte-for-byte unchanged. The
// changed set of each distinct baseline is computed once and shared; each spec is read and
// parsed at most once. Nothing named by a spec or report is executed.
//
// Per task: no state → GateNotStarted (fails: the gate is fail-closed, and a spec without an
// approved state is open work); learned → GateLearned, passing only when history-review.md is a
// complete review (§8.2) whose Audit snapshot equals the state's history_snapshot_sha256 (the
// snapshot is not recomputed: a closed task is stable, §8.3); next_step run_preflight or a spec
// changed since approval → GateRefused; corrupt state, an unusable or misnamed task folder, or a
// git failure for its baseline → GateError; otherwise the audit verdict. The returned error is operational
// for the whole gate: the task folder cannot be listed, or the Since changed set cannot be
// computed.
func Gate(ctx context.Context, opts GateOptions) (*GateResult, error) {
	if opts.Git == nil {
		return nil, errors.New("internal error: no repository")
	}
	if opts.Base != "" {
		rg, ok := opts.Git.(RangeGit)
		if !ok || !gitscope.IsFullOID(opts.Base) || !gitscope.IsFullOID(opts.Head) {
			return nil, errors.New("internal error: the gate against a base needs full base and head OIDs and a RangeGit")
		}
		return gateBase(ctx, opts, rg)
	}
	g := &gater{opts: opts, git: newSharedGit(opts.Git), specs: map[string]*specInput{}}
	root := opts.Git.Root()
	var view *StoreView
	if gitDir, err := opts.Git.GitDir(); err == nil {
		// Without a usable store (CI, no home directory) every task is gated from its mirror.
		if v, err := OpenStoreView(opts.StateDir, gitDir); err == nil {
			view, g.view = v, v
			defer v.Close()
		}
	}
	infos, err := ScanTasksWith(root, view)
	if err != nil {
		return nil, err
	}
	res := &GateResult{Since: opts.Since}
	res.Stats.Tasks = len(infos)
	var changed *sinceSet
	if opts.Since != "" {
		cs, err := g.git.ChangedSet(ctx, opts.Since)
		if err != nil {
			return nil, err
		}
		changed = newSinceSet(cs)
	}
	baselines := map[string]bool{}
	for _, in := range infos {
		if changed != nil && !g.selected(in, changed) {
			continue
		}
		res.Stats.Selected++
		t := g.gateTask(ctx, in)
		if t.audited {
			res.Stats.Audited++
			baselines[t.Baseline] = true
		}
		res.Tasks = append(res.Tasks, t.GateTask)
	}
	res.Stats.Baselines = len(baselines)
	res.Stats.ChangedSets = g.git.computed
	res.Stats.SpecReads, res.Stats.SpecParses = g.specReads, g.specParses
	return res, nil
}

// gater carries one gate run.
type gater struct {
	opts     GateOptions
	git      *sharedGit
	specs    map[string]*specInput // by task name
	specErrs map[string]error
	// view is the store read by the local gate (nil without one), rule the committed-content
	// rule of gate --base; control picks between them.
	view       *StoreView
	rule       repopath.ControlRule
	specReads  int
	specParses int
}

type gateTask struct {
	GateTask
	audited bool
}

// spec reads and parses a task's spec once. A read refusal (missing, symlink, too large, ...)
// is kept in specInput.Err and Spec stays nil; other I/O errors are returned.
func (g *gater) spec(t Task) (*specInput, error) {
	if in, ok := g.specs[t.Name]; ok {
		return in, nil
	}
	if err, ok := g.specErrs[t.Name]; ok {
		return nil, err
	}
	g.specReads++
	raw, err := fsx.ReadInRoot(t.Root, t.Spec, spec.MaxBytes)
	if err != nil && fsx.ReasonOf(err) == "" {
		if g.specErrs == nil {
			g.specErrs = map[string]error{}
		}
		err = fmt.Errorf("read %s: %w", t.Spec, err)
		g.specErrs[t.Name] = err
		return nil, err
	}
	in := &specInput{Raw: raw, Err: err}
	if err == nil {
		g.specParses++
		in.Spec, in.Findings = spec.Parse(raw, t.Spec)
	}
	g.specs[t.Name] = in
	return in, nil
}

// selected applies the Since rule: the task folder, or a path of the spec's declared scope,
// changed since Since. A spec that cannot be read or parsed selects the task (fail closed).
func (g *gater) selected(in TaskInfo, cs *sinceSet) bool {
	if cs.dirs[in.Task.Name] {
		return true
	}
	if in.Err != nil {
		return true
	}
	si, err := g.spec(in.Task)
	if err != nil || si.Spec == nil {
		return true
	}
	for _, p := range si.Spec.Scope.Declared {
		if cs.paths[p] {
			return true
		}
	}
	return false
}

// gateTask decides one task.
func (g *gater) gateTask(ctx context.Context, in TaskInfo) gateTask {
	t := gateTask{GateTask: GateTask{Task: in.Task}}
	if in.State != nil {
		t.StateStatus, t.Baseline = in.State.Status, in.State.BaselineRef
	}
	switch {
	case in.Err != nil:
		t.fail(GateError, in.Err)
	case in.State == nil:
		t.Status, t.Passed, t.Reason = GateNotStarted, false, notStartedReason(in.Task)
	case in.Tampered != "":
		t.Status, t.Reason = GateBroken, in.Tampered
	case in.State.Status == StatusLearned && in.Recorded && g.specChanged(in):
		t.Status, t.Verdict = GateLearned, in.State.Verdict
		t.Reason = "the spec changed since the task was closed (its hash is not the controller store's); reopen it with: mastermind run-task " + in.Task.Spec + " --pre-only"
	case in.State.Status == StatusLearned:
		t.Status, t.Verdict = GateLearned, in.State.Verdict
		if in.State.Findings != nil {
			c := *in.State.Findings
			t.Counts = &c
		}
		reason, err := learnedProblem(in.Task, in.State)
		switch {
		case err != nil:
			t.fail(GateError, err)
		case reason != "":
			t.Reason = reason
		default:
			t.Passed = true
		}
	case g.opts.Record:
		t.audited = true
		g.record(ctx, in, &t)
	case in.State.Accepted() && in.State.Status == StatusHistoryReviewRequired && g.accepted(ctx, in, &t):
		// Passing: the inputs are the accepted ones.
	case in.State.NextStep == NextRunPreflight:
		t.Status, t.Reason = GateRefused, "pre-flight is required: "+in.State.BlockingReason+preflightNext(in.Task, in.State, DefaultMaxIterations)
	default:
		t.audited = true
		g.audit(ctx, in, &t)
	}
	return t
}

// specChanged reports whether a task's spec no longer hashes to its state's spec_hash (an
// unreadable spec counts as changed).
func (g *gater) specChanged(in TaskInfo) bool {
	si, err := g.spec(in.Task)
	return err != nil || si.Err != nil || sha256Hex(si.Raw) != in.State.SpecHash
}

// notStartedReason explains a task folder without state.json. When the folder already holds
// lifecycle artifacts, the state was most likely deleted, which would drop the task's baseline and
// iteration budget: the reason says so instead of only suggesting a fresh pre-flight.
func notStartedReason(t Task) string {
	var found []string
	for _, rel := range []string{t.ReportRel(), t.AuditRel(), t.HistoryReviewRel()} {
		if _, err := os.Lstat(t.Abs(rel)); err == nil {
			found = append(found, path.Base(rel))
		}
	}
	if len(found) > 0 {
		return fmt.Sprintf("no state.json, but %s exist(s): the state was removed; restore %s (for example from git history), or close the task by removing its folder",
			strings.Join(found, ", "), t.StateRel())
	}
	return fmt.Sprintf("no state.json: the task was never approved; run pre-flight (mastermind run-task %s --pre-only), or remove the task folder if the task is not wanted", t.Spec)
}

// learnedProblem checks the closure of a learned task without re-auditing it: history-review.md
// must be a complete review (§8.2, CheckReview) whose Audit snapshot equals the state's
// history_snapshot_sha256. It returns "" when the closure is backed, otherwise the reason the
// task fails the gate; err is an I/O failure other than a refused review file.
func learnedProblem(t Task, st *State) (string, error) {
	redo := fmt.Sprintf("; re-audit it with mastermind run-task %s --post-only", t.Spec)
	if !hex64.MatchString(st.HistorySnapshotSHA256) {
		return "state.json says learned but has no history_snapshot_sha256" + redo, nil
	}
	data, prob, err := readReview(t)
	if err != nil {
		return "", err
	}
	if prob != nil {
		return "state.json says learned, but the history review is not usable: " + prob.Format(t.HistoryReviewRel()), nil
	}
	ps := CheckReview(data, st.HistorySnapshotSHA256)
	if len(ps) == 0 {
		return "", nil
	}
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Format(t.HistoryReviewRel())
	}
	return "state.json says learned, but the history review does not back it: " + audit.FirstPlus(msgs) + redo, nil
}

// accepted reports whether an accepted drift task's inputs are unchanged since the acceptance:
// the §8.2 history snapshot recomputed now equals accepted_snapshot. It then marks t accepted and
// passing; otherwise (or on an error) the task is audited as usual.
func (g *gater) accepted(ctx context.Context, in TaskInfo, t *gateTask) bool {
	snap, err := (&controller{git: g.git, task: in.Task, rule: g.control(in.Task, in.State)}).currentSnapshot(ctx, in.State)
	if err != nil || snap != in.State.AcceptedSnapshot {
		return false
	}
	t.Status, t.Passed, t.Verdict = GateAccepted, true, in.State.Verdict
	if in.State.Findings != nil {
		c := *in.State.Findings
		t.Counts = &c
	}
	t.Reason = "drift accepted by the planner: " + in.State.AcceptedReason + "; inputs unchanged since"
	return true
}

func (t *gateTask) fail(status string, err error) {
	t.Status, t.Passed, t.Err, t.Reason = status, false, err, err.Error()
}

// control is the changed-set rule of a gated task (trust-model.md I3): the rule gateBase gives
// under --base, else the store's records read without a lock.
func (g *gater) control(t Task, st *State) repopath.ControlRule {
	if g.rule != nil {
		return g.rule
	}
	return g.view.controlRule(t, st)
}

// audit runs the read-only audit (post-flight steps 2–6) for a task with state.
func (g *gater) audit(ctx context.Context, in TaskInfo, t *gateTask) {
	g.auditWith(ctx, in, t, g.git)
}

// auditWith is audit over the repository view git.
func (g *gater) auditWith(ctx context.Context, in TaskInfo, t *gateTask, git Git) {
	si, err := g.spec(in.Task)
	if err != nil {
		t.fail(GateError, err)
		return
	}
	st := *in.State
	ar, err := auditTask(ctx, git, in.Task, &st, si, nil, nil, g.control(in.Task, &st)) // the gate never runs a command
	if err != nil {
		t.fail(GateError, err)
		return
	}
	if ar.SpecChanged {
		t.Status, t.Reason = GateRefused, reasonSpecChanged+preflightNext(in.Task, &st, DefaultMaxIterations)
		return
	}
	e, w := ar.Counts()
	t.setVerdict(ar.Verdict, Counts{e, w}, ar.Findings, ar.Evidence.Violations, g.opts.FailOnDrift)
}

// record runs the normal post-flight for a task (Run with ModePostOnly), sharing the changed
// sets, and maps its outcome.
func (g *gater) record(ctx context.Context, in TaskInfo, t *gateTask) {
	res, err := Run(ctx, Options{Git: g.git, SpecArg: filepath.Join(t.Task.Root, filepath.FromSlash(t.Task.Spec)),
		Mode: ModePostOnly, MaxIterations: DefaultMaxIterations,
		Now: g.opts.Now, Wait: g.opts.Wait, StateDir: g.opts.StateDir})
	t.Warnings = res.Warnings
	if err != nil {
		t.fail(GateError, err)
		return
	}
	// Post-flight persists audit_required first (§4 step 1) unless it refuses up front because
	// pre-flight is required.
	t.Recorded = in.State.NextStep != NextRunPreflight
	switch res.Outcome {
	case OutcomePostHeld, OutcomePostDrift, OutcomePostBroken:
		// A run-task holds its per-path findings as runs (Outcome.PathRuns): the row lists them
		// all, as the read-only audit's row does.
		fs := slices.Collect(res.AllFindings())
		var counts Counts
		verdict := audit.VerdictOf(fs)
		if res.State != nil && res.State.Findings != nil {
			counts, verdict = *res.State.Findings, res.State.Verdict
		} else {
			counts.Errors, counts.Warnings = finding.Count(fs)
		}
		t.setVerdict(verdict, counts, fs, res.ReportViolations, g.opts.FailOnDrift)
		if res.Accepted {
			t.Status, t.Passed, t.Reason = GateAccepted, true, res.Message
		}
	default:
		// post_refused (spec changed, pre-flight required, audit inputs unavailable) and any
		// other outcome: not a pass.
		t.Status, t.Reason = GateRefused, res.Message
		if res.Outcome != OutcomePostRefused {
			t.Reason = fmt.Sprintf("unexpected post-flight outcome %s: %s", res.Outcome, res.Message)
		}
	}
}

// setVerdict records an audit verdict and its first blocking reason.
func (t *gateTask) setVerdict(verdict string, counts Counts, fs, violations []finding.Finding, failOnDrift bool) {
	c := counts
	t.Verdict, t.Counts, t.Findings, t.ReportViolations = verdict, &c, fs, violations
	switch verdict {
	case VerdictHeld:
		t.Status, t.Passed = GateHeld, true
	case VerdictDrift:
		t.Status, t.Passed = GateDrift, !failOnDrift
	default:
		t.Status = GateBroken
	}
	if len(fs) > 0 {
		t.Reason = fs[0].Rule + ": " + fs[0].Text()
		if len(fs) > 1 {
			t.Reason += fmt.Sprintf(" (+%d more)", len(fs)-1)
		}
	}
}

// sinceSet is the changed set since --since: the changed paths (including .mastermind/) and
// the task folders they touch.
type sinceSet struct {
	paths map[string]bool
	dirs  map[string]bool
}

func newSinceSet(cs *gitscope.ChangedSet) *sinceSet {
	s := &sinceSet{paths: make(map[string]bool, len(cs.Entries)), dirs: map[string]bool{}}
	prefix := TasksDir + "/"
	for _, e := range cs.Entries {
		p := string(e.Path)
		s.paths[p] = true
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			if name, _, ok := strings.Cut(rest, "/"); ok {
				s.dirs[name] = true
			}
		}
	}
	return s
}

// sharedGit wraps a Git so that the changed set of each baseline, HEAD and the file list are
// computed once per gate run and shared by every task (the working tree is treated as fixed
// for the duration of the gate). Errors are cached too, so every task with a failing baseline
// reports the same error without running git again.
type sharedGit struct {
	Git
	mu       sync.Mutex // post-flight computes the changed set on its own goroutine
	sets     map[string]csResult
	head     *headResult
	files    *filesResult
	computed int
}

type csResult struct {
	cs  *gitscope.ChangedSet
	err error
}

type headResult struct {
	oid    string
	unborn bool
	err    error
}

type filesResult struct {
	files []string
	err   error
}

func newSharedGit(g Git) *sharedGit { return &sharedGit{Git: g, sets: map[string]csResult{}} }

// ChangedSet returns the cached changed set for baseline, computing it on first use.
//
// The computation ignores the caller's cancellation, not its deadline (post-flight cancels its speculative changed
// set when a task's report is rejected): the result is shared, so it is finished and kept for
// the other tasks with the same baseline rather than thrown away.
func (g *sharedGit) ChangedSet(ctx context.Context, baseline string) (*gitscope.ChangedSet, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r, ok := g.sets[baseline]; ok {
		return r.cs, r.err
	}
	g.computed++
	// The gate's one deadline (trust-model.md I5) still applies.
	cctx := context.WithoutCancel(ctx)
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		cctx, cancel = context.WithDeadline(cctx, dl)
		defer cancel()
	}
	cs, err := g.Git.ChangedSet(cctx, baseline)
	g.sets[baseline] = csResult{cs, err}
	return cs, err
}

// Head returns the cached HEAD.
func (g *sharedGit) Head(ctx context.Context) (string, bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.head == nil {
		oid, unborn, err := g.Git.Head(ctx)
		g.head = &headResult{oid, unborn, err}
	}
	return g.head.oid, g.head.unborn, g.head.err
}

// ListFiles returns a copy of the cached file list.
func (g *sharedGit) ListFiles(ctx context.Context) ([]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.files == nil {
		files, err := g.Git.ListFiles(ctx)
		g.files = &filesResult{files, err}
	}
	return slices.Clone(g.files.files), g.files.err
}

// LearnedReason is the reason shown for a learned task that passes the gate.
const LearnedReason = "closed; history review complete; not re-audited"
