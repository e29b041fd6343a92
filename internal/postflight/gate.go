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
	"time"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/store"
)

// GateOptions configure the local gate (`mastermind gate`, with or without --since and
// --record): the open tasks of the work tree, each decided from its controller-store record.
type GateOptions struct {
	Git Git
	// Since, when non-empty, is a full commit OID: only the tasks whose folder or declared scope
	// files changed since that commit are gated. Empty gates every task.
	Since string
	// FailOnDrift makes drift fail the gate too.
	FailOnDrift bool
	// Record runs the normal post-flight (with its writes, under the controller lock) for each
	// gated task instead of a read-only audit; Now and Wait are passed to it.
	Record bool
	Now    func() time.Time
	Wait   time.Duration
	// StateDir is the controller store root ("" for store.Location()). A task that needs an
	// audit and has no record on this machine does not pass.
	StateDir string
}

// ref names task t as gate --record opens it for its post-flight.
func (o GateOptions) ref(t Task) taskRef {
	return taskRef{git: o.Git, specArg: filepath.Join(t.Root, filepath.FromSlash(t.Spec)), stateDir: o.StateDir, wait: o.Wait, now: o.Now}
}

// BaseGateOptions configure the gate against a protected base (`gate --base`, trust-model.md
// §5): merge-base(Base, Head)..Head, read from committed content only.
type BaseGateOptions struct {
	Git RangeGit
	// Base and Head are full commit OIDs (the caller resolves HEAD when the user gave none).
	Base, Head string
	// InPlace allows auditing the work tree in place when it holds exactly Head. Only for a
	// checkout the executor never had (CI): elsewhere the executor can have written .git/index,
	// whose stat data decides what "unchanged" means.
	InPlace     bool
	FailOnDrift bool
}

// BranchGateOptions configure the local gate of a branch with an upstream (trust-model.md §5):
// merge-base(Base, Head)..Head plus the work tree, each task decided from its controller-store
// record and pre-flight snapshots, the tasks the range does not touch gated as open tasks.
type BranchGateOptions struct {
	Git RangeGit
	// Upstream names the upstream for the output ("origin/main"); Base is its commit and Head
	// HEAD's, both full OIDs.
	Upstream    string
	Base, Head  string
	FailOnDrift bool
	// StateDir is the controller store root ("" for store.Location()).
	StateDir string
}

// GateStatus is the gate's status of one task (the --json "status" of a gate row).
type GateStatus string

// Gate task statuses (GateTask.Status).
const (
	GateHeld       GateStatus = "held"        // the audit verdict is held
	GateDrift      GateStatus = "drift"       // the audit verdict is drift
	GateBroken     GateStatus = "broken"      // the audit verdict is broken (including a rejected report)
	GateRefused    GateStatus = "refused"     // spec changed since approval, or pre-flight is required
	GateLearned    GateStatus = "learned"     // closed; not re-audited, but its history review must back the closure
	GateAccepted   GateStatus = "accepted"    // a drift the planner accepted, its inputs unchanged since (lifecycle-v2.md §3)
	GateNotStarted GateStatus = "not_started" // no state.json: pre-flight never ran (open, unapproved work: fails)
	GateError      GateStatus = "error"       // corrupt state, unusable or misnamed task folder, or git failure
)

// GateStatuses lists every gate status in summary order.
var GateStatuses = []GateStatus{GateHeld, GateAccepted, GateDrift, GateBroken, GateRefused, GateLearned, GateNotStarted, GateError}

// GateTask is the gate's outcome for one task.
type GateTask struct {
	Task   Task
	Status GateStatus
	// Passed reports whether the task lets the gate pass: held; learned when its history review
	// is complete and matches the state's snapshot; drift unless FailOnDrift. Never for not
	// started, broken, refused or error.
	Passed bool
	// StateStatus is the status in state.json before the gate ran ("" without state).
	StateStatus string
	// Baseline is the state's baseline_ref ("" without state).
	Baseline string
	// Verdict and Counts are set when an audit reached a verdict.
	Verdict Verdict
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
	Tasks     int // task folders found
	Selected  int // tasks gated (all, or those changed since Since)
	Audited   int // tasks audited (not learned, not never-started, not corrupt)
	Baselines int // distinct baselines among the audited tasks
	// ChangedSets counts changed-set computations: one per audited task with a store record (its
	// own snapshots), one per distinct baseline against a base, plus Since, the range diff and
	// the live work tree of a local range gate without an open task.
	ChangedSets int
	SpecReads   int // spec.md files read (each at most once)
	SpecParses  int // spec.md files parsed (each at most once)
}

// GateResult is the outcome of Gate.
type GateResult struct {
	Tasks []GateTask // sorted by task name
	Since string     // the Since OID, "" for all tasks
	// Range is set for a gate against a base (Base): the commits it compared.
	Range *RangeInfo
	// Findings are the findings about the range or the store rather than one task
	// (gate.unowned_change, gate.task_record_changed of a deleted task folder or of closed release
	// notes, gate.task_folder_missing of a local gate), sorted by kind then path.
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
func (r *GateResult) Count(status GateStatus) int {
	n := 0
	for _, t := range r.Tasks {
		if t.Status == status {
			n++
		}
	}
	return n
}

// Gate is the local gate: it audits every task that is not learned (with Since, those touched
// since that commit) as its post-flight would, and decides whether the work tree may be merged.
// Without Record it writes nothing, and it never runs a command, so it is safe at any time; how
// each task's row is decided is in architecture.md ("The local gate's rows").
func Gate(ctx context.Context, opts GateOptions) (*GateResult, error) {
	if opts.Git == nil {
		return nil, errors.New("internal error: no repository")
	}
	g := newLocalGater(ctx, opts)
	defer g.close()
	infos, err := ScanTasksWith(opts.Git.Root(), g.view)
	if err != nil {
		return nil, err
	}
	res := &GateResult{Since: opts.Since}
	res.Stats.Tasks = len(infos)
	var changed *sinceSet
	if opts.Since != "" {
		// The selection of --since is not an audit: the live changed set names the candidates,
		// and each selected task is then audited from its own source.
		cs, err := opts.Git.ChangedSet(ctx, opts.Since)
		if err != nil {
			return nil, err
		}
		g.stats.ChangedSets++
		changed = newSinceSet(cs)
	}
	for _, in := range infos {
		if changed != nil && !g.selected(in, changed) {
			continue
		}
		res.Stats.Selected++
		t := g.gateTask(ctx, in)
		res.Tasks = append(res.Tasks, t.GateTask)
	}
	if res.Findings, err = g.missingFolders(opts.Git.Root(), infos, nil); err != nil {
		return nil, err
	}
	g.finishStats(&res.Stats)
	return res, nil
}

// missingFolders is one gate.task_folder_missing for every task this work tree's controller store
// records open (not learned) whose folder the scan did not find in infos, except the names in
// skip: moving a task folder away must not hide its audit (docs/hardening.md D19). A planner
// drops a task by removing its folder and running store gc, which forgets the record.
func (g *gater) missingFolders(workTree string, infos []TaskInfo, skip map[string]bool) ([]finding.Finding, error) {
	recs, err := g.view.records(workTree)
	if err != nil {
		return nil, fmt.Errorf("listing the controller store's task records: %w", err)
	}
	present := make(map[string]bool, len(infos))
	for _, in := range infos {
		present[in.Task.Name] = true
	}
	var out []finding.Finding
	for _, r := range recs {
		if present[r.name] || skip[r.name] || r.status == StatusLearned {
			continue
		}
		out = append(out, findTaskFolderMissing(r))
	}
	return out, nil
}

// findTaskFolderMissing is the finding of a task recorded open whose folder is gone; the record's
// store folder is named when the record itself cannot be read (store gc keeps it).
func findTaskFolderMissing(r recordedTask) finding.Finding {
	dir := TasksDir + "/" + r.name
	k := finding.KindGateTaskFolderMissing
	if r.err != nil {
		return finding.Finding{Rule: k, Class: finding.KindClass(k),
			Message: fmt.Sprintf("the controller store holds a record of task %s that cannot be read (%v), and its folder %s is missing from the work tree; restore %s/ or, to drop the task, remove its store folder %s",
				r.name, r.err, dir, dir, r.dir),
			Fields: []finding.Field{{Key: "task", Value: r.name}, {Key: "status", Value: ""}}}
	}
	return finding.Finding{Rule: k, Class: finding.KindClass(k),
		Message: fmt.Sprintf("the controller store records task %s (status %s), but its folder %s is missing from the work tree; restore %s/ or, to drop the task, run mastermind store gc",
			r.name, r.status, dir, dir),
		Fields: []finding.Field{{Key: "task", Value: r.name}, {Key: "status", Value: r.status}}}
}

// checkRange refuses a gate over a range without a repository or full base and head OIDs.
func checkRange(rg RangeGit, base, head string) error {
	if rg == nil || !gitscope.IsFullOID(base) || !gitscope.IsFullOID(head) {
		return errors.New("internal error: a gate over a range needs full base and head OIDs and a RangeGit")
	}
	return nil
}

// gater carries one gate run. opts holds the local gate's options; a gate over a range sets the
// ones it shares (Git, FailOnDrift, StateDir).
type gater struct {
	opts GateOptions
	// b is the door's input builder; view the controller store's records (local gates, nil
	// against a base); repoFindings the door's findings about the repository.
	b            builder
	view         *StoreView
	repoFindings []finding.Finding
	// rule is gate --base's committed-content rule of trust-model.md I3 (nil: the store's rule
	// through view; control picks).
	rule     repopath.ControlRule
	specs    map[string]*specInput // by task name
	specErrs map[string]error
	// changed are the sources' changed sets, computed once each (sourceKey); opened the store
	// folders to close.
	changed   map[string]*changedOnce
	opened    []*store.Task
	stats     GateStats
	baselines map[string]bool
}

// newLocalGater is the gater of a gate without --base: the snapshot door, over this work tree's
// controller store records. Without a usable store (CI, no home directory) no task has a record.
func newLocalGater(ctx context.Context, opts GateOptions) *gater {
	g := newGater(opts, builder{git: opts.Git})
	g.repoFindings = g.b.repoFindings(ctx)
	if gitDir, err := opts.Git.GitDir(); err == nil {
		if v, err := OpenStoreView(opts.StateDir, gitDir); err == nil {
			g.view = v
		}
	}
	return g
}

func newGater(opts GateOptions, b builder) *gater {
	return &gater{opts: opts, b: b, specs: map[string]*specInput{}, changed: map[string]*changedOnce{}, baselines: map[string]bool{}}
}

// control is the changed-set rule of a gated task (trust-model.md I3): the committed-content
// rule under --base, else the store's records read without a lock.
func (g *gater) control(t Task, st *State) repopath.ControlRule {
	if g.rule != nil {
		return g.rule
	}
	return g.view.controlRule(t, st)
}

// close releases the store folders and the store.
func (g *gater) close() {
	for _, c := range g.changed {
		c.src.Close()
	}
	for _, t := range g.opened {
		t.Close()
	}
	g.view.Close()
}

// finishStats copies the run's counters into s.
func (g *gater) finishStats(s *GateStats) {
	s.Audited, s.ChangedSets = g.stats.Audited, s.ChangedSets+g.stats.ChangedSets
	s.Baselines = len(g.baselines)
	s.SpecReads, s.SpecParses = g.stats.SpecReads, g.stats.SpecParses
}

type gateTask struct {
	GateTask
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
	g.stats.SpecReads++
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
		g.stats.SpecParses++
		in.Spec, in.Findings = spec.Parse(raw, t.Spec)
	}
	g.specs[t.Name] = in
	return in, nil
}

// source is the changed set of task in's source (sourceFor), computed at most once per gate:
// the snapshot view of its store record in a local gate (ErrNoRecord without one), the head
// commit against a base (one diff per baseline, shared).
func (g *gater) source(ctx context.Context, in TaskInfo) (*changedOnce, error) {
	baseline := in.State.BaselineRef
	key := "task " + in.Task.Name
	if g.b.head != nil {
		key = "baseline " + baseline
	}
	if c, ok := g.changed[key]; ok {
		return c, nil
	}
	var snap gitscope.SnapshotStore
	var writes map[string]string
	if g.b.head == nil && in.Recorded {
		st, err := g.view.snapshots(in.Task.Name)
		if err != nil {
			return nil, err
		}
		if st != nil {
			g.opened = append(g.opened, st)
			snap = st
			writes = recordedWrites(st, baseline)
		}
	}
	src, err := g.b.sourceFor(ctx, baseline, snap)
	if err != nil {
		return nil, err
	}
	c := &changedOnce{src: src, writes: writes, root: in.Task.Root}
	g.changed[key] = c
	return c, nil
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

// gateTask decides one task under the open-task rules.
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
	case in.State.Status == StatusLearned:
		g.learned(in, &t)
	case g.opts.Record:
		g.stats.Audited++
		g.record(ctx, in, &t)
	case in.State.Accepted() && in.State.Status == StatusHistoryReviewRequired && g.acceptedUnchanged(ctx, in, &t):
		// Passing: the inputs are the accepted ones.
	case in.State.NextStep == NextRunPreflight:
		t.Status, t.Reason = GateRefused, "pre-flight is required: "+in.State.BlockingReason+preflightNext(in.Task, in.State, DefaultMaxIterations).clause()
	default:
		g.audit(ctx, in, &t, nil)
	}
	return t
}

// acceptedUnchanged reports whether an accepted drift task's inputs are unchanged since the
// acceptance (acceptedNow over its source's changed set), and then marks t accepted and passing;
// otherwise (or on an error) the task is audited as usual.
func (g *gater) acceptedUnchanged(ctx context.Context, in TaskInfo, t *gateTask) bool {
	if g.specChanged(in) {
		return false
	}
	co, err := g.source(ctx, in)
	if err != nil {
		return false
	}
	cs, err := co.get(ctx, &g.stats)
	if err != nil || !acceptedNow(in.Task, in.State, cs, g.control(in.Task, in.State)) {
		return false
	}
	t.markAccepted(in.State, "inputs unchanged since")
	return true
}

// learned decides a learned task without re-auditing it: its history review must back the
// closure, and a task the store has a record of must still have the spec the record closed.
func (g *gater) learned(in TaskInfo, t *gateTask) {
	t.Status, t.Verdict = GateLearned, in.State.Verdict
	if in.Recorded && g.specChanged(in) {
		t.Reason = "the spec changed since the task was closed (its hash is not the controller store's); reopen it with: mastermind run-task " + in.Task.Spec + " --pre-only"
		return
	}
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
}

// specChanged reports whether a task's spec no longer hashes to its state's spec_hash (an
// unreadable spec counts as changed).
func (g *gater) specChanged(in TaskInfo) bool {
	si, err := g.spec(in.Task)
	return err != nil || si.Err != nil || fsx.SHA256Hex(si.Raw) != in.State.SpecHash
}

// noRecordReason is the row of a task a local gate cannot audit: this machine's store has no
// record of it, so its pre-flight snapshots cannot be applied (trust-model.md I1).
func noRecordReason(t Task) string {
	return fmt.Sprintf("%s: its audit cannot apply the pre-flight snapshots, and its state.json is not used; run mastermind run-task %s --pre-only on this machine, or gate the committed branch with mastermind gate --base <base>",
		strings.TrimSuffix(MsgNoRecord, "; run --pre-only"), t.Spec)
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
	redo := fmt.Sprintf("; reopen it with mastermind run-task %s --pre-only and audit it again", t.Spec)
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

// snapshotNow is the §8.2 history snapshot of a task recomputed now from its spec, report,
// audit.md and release notes under its root and D of cs (under rule), the changed set its audit
// used, for comparison with recorded; false when an input cannot be read (it cannot match then).
func snapshotNow(t Task, st *State, cs *gitscope.ChangedSet, rule repopath.ControlRule, recorded string) (string, bool) {
	if cs == nil {
		return "", false
	}
	in := SnapshotInput{Baseline: st.BaselineRef, Iteration: st.Iteration, Changed: cs.WithoutControl(rule), Recorded: recorded}
	for _, f := range []struct {
		rel string
		dst *[]byte
	}{{t.Spec, &in.Spec}, {t.ReportRel(), &in.Report}, {t.ReleaseNotesRel(), &in.Release}} {
		data, err := fsx.ReadInRoot(t.Root, f.rel, MaxSnapshotFileBytes)
		if err != nil {
			return "", false
		}
		*f.dst = data
	}
	a, err := fsx.ReadInRoot(t.Root, t.AuditRel(), MaxAuditBytes)
	if err != nil {
		return "", false
	}
	in.AuditSHA256 = fsx.SHA256Hex(a)
	snap, err := HistorySnapshot(t.Root, in)
	return snap, err == nil
}

// acceptedNow reports whether the inputs of an accepted drift task are the accepted ones: its
// history snapshot now (snapshotNow over cs) equals accepted_snapshot.
func acceptedNow(t Task, st *State, cs *gitscope.ChangedSet, rule repopath.ControlRule) bool {
	if !st.Accepted() || st.AcceptedSnapshot == "" {
		return false
	}
	snap, ok := snapshotNow(t, st, cs, rule, st.AcceptedSnapshot)
	return ok && snap == st.AcceptedSnapshot
}

// markAccepted makes t an accepted drift: passing, also under --fail-on drift.
func (t *gateTask) markAccepted(st *State, why string) {
	t.Status, t.Passed, t.Verdict = GateAccepted, true, VerdictDrift
	if st.Findings != nil && t.Counts == nil {
		c := *st.Findings
		t.Counts = &c
	}
	t.Reason = "drift accepted by the planner: " + st.AcceptedReason + "; " + why
}

func (t *gateTask) fail(status GateStatus, err error) {
	t.Status, t.Passed, t.Err, t.Reason = status, false, err, err.Error()
}

// audit runs the read-only audit (post-flight steps 2–6) of a task with state from its source,
// leaving out of its changed set the paths in exclude (those other re-audited tasks of a range
// own). It returns the changed set the audit used (nil when none was computed). An accepted
// drift task whose inputs are the accepted ones passes as accepted (lifecycle-v2.md §3).
func (g *gater) audit(ctx context.Context, in TaskInfo, t *gateTask, exclude map[string]bool) *gitscope.ChangedSet {
	si, err := g.spec(in.Task)
	if err != nil {
		t.fail(GateError, err)
		return nil
	}
	st := *in.State
	if si.Err != nil || fsx.SHA256Hex(si.Raw) != st.SpecHash {
		t.Status, t.Reason = GateRefused, reasonSpecChanged+preflightNext(in.Task, &st, DefaultMaxIterations).clause()
		return nil
	}
	co, err := g.source(ctx, in)
	if errors.Is(err, ErrNoRecord) {
		t.Status, t.Reason = GateRefused, noRecordReason(in.Task)
		return nil
	}
	if err != nil {
		t.fail(GateError, err)
		return nil
	}
	g.stats.Audited++
	g.baselines[st.BaselineRef] = true
	cs, err := co.get(ctx, &g.stats)
	if err != nil {
		t.fail(GateError, err)
		return nil
	}
	cs = without(cs, exclude)
	rule := g.control(in.Task, &st)
	ar, err := auditTask(ctx, auditRequest{Task: in.Task, State: &st, Src: co.src, Spec: si, Changed: cs, RepoFindings: g.repoFindings, Control: rule})
	if err != nil {
		t.fail(GateError, err)
		return nil
	}
	if ar.SpecChanged {
		t.Status, t.Reason = GateRefused, reasonSpecChanged+preflightNext(in.Task, &st, DefaultMaxIterations).clause()
		return nil
	}
	e, w := ar.Counts()
	t.setVerdict(ar.Verdict, Counts{e, w}, ar.Findings, ar.Evidence.Violations, g.opts.FailOnDrift)
	if ar.Verdict == VerdictDrift && st.Accepted() && (st.Status == StatusHistoryReviewRequired || st.Status == StatusLearned) &&
		st.Findings != nil && *st.Findings == (Counts{e, w}) && acceptedNow(in.Task, &st, cs, rule) {
		t.markAccepted(&st, "its re-audit reproduces the accepted findings and its inputs are unchanged since")
	}
	return cs
}

// record runs the normal post-flight for a task (run-task --post-only) and maps its outcome.
func (g *gater) record(ctx context.Context, in TaskInfo, t *gateTask) {
	res, err := runTask(ctx, g.opts.ref(t.Task), Options{Mode: ModePostOnly, MaxIterations: DefaultMaxIterations})
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
			t.Status, t.Passed, t.Reason = GateAccepted, true, res.Line()
		}
	default:
		// post_refused (spec changed, pre-flight required, audit inputs unavailable) and any
		// other outcome: not a pass.
		t.Status, t.Reason = GateRefused, res.Line()
		if res.Outcome != OutcomePostRefused {
			t.Reason = fmt.Sprintf("unexpected post-flight outcome %s: %s", res.Outcome, res.Line())
		}
	}
}

// setVerdict records an audit verdict and its first blocking reason.
func (t *gateTask) setVerdict(verdict Verdict, counts Counts, fs, violations []finding.Finding, failOnDrift bool) {
	c := counts
	t.Verdict, t.Counts, t.Findings, t.ReportViolations, t.Passed, t.Reason = verdict, &c, fs, violations, false, ""
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

// LearnedReason is the reason shown for a learned task that passes the gate.
const LearnedReason = "closed; history review complete; not re-audited"
