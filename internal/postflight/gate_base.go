package postflight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/spec"
)

// The gate against a protected base follows trust-model.md §5 and invariant I6: it believes only
// the base commit the platform protects, and re-audits every task from its committed spec and report.

// Gate finding kinds (finding.Kinds).
const (
	KindUnownedChange       = finding.KindGateUnownedChange
	KindBaselineNotAncestor = finding.KindGateBaselineNotAncestor
	KindTaskRecordChanged   = finding.KindGateTaskRecordChanged
	KindClosedTaskChanged   = finding.KindGateClosedTaskChanged
)

// task_record_changed reasons.
const (
	ReasonTaskFolderDeleted  = "task_folder_deleted"
	ReasonClosedTaskChanged  = "closed_task_changed"
	ReasonReleaseNotesChange = "closed_task_release_notes_changed"
)

// RangeGit is what the gates over a range read from the repository besides Git; *gitscope.Repo
// implements it. Every method reads committed objects only.
type RangeGit interface {
	Git
	MergeBase(ctx context.Context, a, b string) (string, error)
	DiffCommits(ctx context.Context, from, to string) (*gitscope.ChangedSet, error)
	Materialize(ctx context.Context, commit, dir string) ([]string, error)
	WorktreeIs(ctx context.Context, commit string) (bool, error)
	CommitFiles(ctx context.Context, commit string) ([]string, error)
	// BaselineBlob reads one file of a commit's tree, such as a task record at the base.
	BaselineBlob(ctx context.Context, commit, path string) (data []byte, ok bool, err error)
}

// RangeInfo describes the range a gate over a range checked.
type RangeInfo struct {
	Base      string // the --base commit, or the upstream's
	Head      string // the --head commit (HEAD when not given)
	MergeBase string // B = merge-base(Base, Head)
	// Upstream names the upstream of the local gate ("origin/main"); "" for gate --base.
	Upstream string
	// WorkTree: the range includes the work tree (the local gate), not only Head's commits.
	WorkTree bool
	Changed  int // paths changed in B..Head, work tree included
	// AddedTasks are the task folders whose spec.md the range adds, sorted: their contracts come
	// with the branch and are the reviewer's to approve.
	AddedTasks []string
	// ChangedSpecs are the task folders whose spec.md the range modifies, sorted: a contract the
	// base holds, rewritten on the branch.
	ChangedSpecs []string
	// TouchedTasks are every task folder with a changed path in the range, sorted: the task
	// records the branch brings or changes, for the reviewer.
	TouchedTasks []string
	// ControllerFiles are the controller's own files outside the task folders that the range
	// changes, sorted. No audit reads them, so the reviewer is shown them.
	ControllerFiles []string
	// Accepted are the tasks that pass as an accepted drift, with the planner's reason: an
	// acceptance on the branch is a decision the reviewer sees, like a spec the branch adds.
	Accepted []AcceptedTask
	// InPlace is true when the work tree held exactly the head commit (RangeGit.WorktreeIs) and
	// was audited in place; false when the head tree was written to a temporary directory.
	InPlace bool
}

// AcceptedTask is a task that passed a range gate as an accepted drift.
type AcceptedTask struct {
	Task, Reason string
}

// headTree is where the audits read the head commit: with allowInPlace, the work tree itself when
// it holds exactly that commit, otherwise a private temporary copy that cleanup removes. files is
// the commit's file list.
func headTree(ctx context.Context, rg RangeGit, head string, allowInPlace bool) (dir string, files []string, inPlace bool, cleanup func(), err error) {
	cleanup = func() {}
	same := false
	if allowInPlace {
		if same, err = rg.WorktreeIs(ctx, head); err != nil {
			return "", nil, false, cleanup, fmt.Errorf("comparing the work tree with %s: %w", ShortOID(head), err)
		}
	}
	if same {
		files, err = rg.CommitFiles(ctx, head)
		if err != nil {
			return "", nil, false, cleanup, fmt.Errorf("listing the tree of %s: %w", ShortOID(head), err)
		}
		return rg.Root(), files, true, cleanup, nil
	}
	dir, err = os.MkdirTemp("", "mastermind-gate-")
	if err != nil {
		return "", nil, false, cleanup, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	files, err = rg.Materialize(ctx, head, dir)
	if err != nil {
		cleanup()
		return "", nil, false, func() {}, fmt.Errorf("reading the tree of %s: %w", ShortOID(head), err)
	}
	return dir, files, false, cleanup, nil
}

// GateBase runs the gate of trust-model.md §5 from opts.Base to opts.Head, reading every audit
// input from the head commit's tree and writing nothing in the repository. The returned error is
// operational for the whole gate, such as a missing merge base or a git failure.
func GateBase(ctx context.Context, opts BaseGateOptions) (*GateResult, error) {
	rg := opts.Git
	if err := checkRange(rg, opts.Base, opts.Head); err != nil {
		return nil, err
	}
	b, err := rg.MergeBase(ctx, opts.Base, opts.Head)
	if err != nil {
		return nil, fmt.Errorf("merge base of %s and %s: %w", ShortOID(opts.Base), ShortOID(opts.Head), err)
	}
	rangeSet, err := rg.DiffCommits(ctx, b, opts.Head)
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s: %w", ShortOID(b), ShortOID(opts.Head), err)
	}
	dir, files, inPlace, cleanup, err := headTree(ctx, rg, opts.Head, opts.InPlace)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	infos, err := ScanTasks(dir)
	if err != nil {
		return nil, err
	}
	g := newGater(GateOptions{Git: rg, FailOnDrift: opts.FailOnDrift}, builder{git: rg, head: &headCommit{rg: rg, head: opts.Head, files: files}})
	defer g.close()
	g.rule = newCommittedRule(dir, infos)
	r := &rangeRun{g: g, rg: rg, b: b, head: opts.Head, rangeSet: rangeSet, infos: infos,
		info: RangeInfo{Base: opts.Base, Head: opts.Head, MergeBase: b, InPlace: inPlace}}
	res, err := r.run(ctx)
	if err != nil {
		return nil, err
	}
	res.Stats.ChangedSets++ // the range diff
	return res, nil
}

// GateBranch is the local gate of a branch with an upstream, over B..HEAD plus the work tree
// (trust-model.md §5). Every task is decided from its controller-store record and audited under
// its pre-flight snapshots.
func GateBranch(ctx context.Context, opts BranchGateOptions) (*GateResult, error) {
	rg := opts.Git
	if err := checkRange(rg, opts.Base, opts.Head); err != nil {
		return nil, err
	}
	b, err := rg.MergeBase(ctx, opts.Base, opts.Head)
	if err != nil {
		return nil, fmt.Errorf("merge base of %s (%s) and HEAD: %w", opts.Upstream, ShortOID(opts.Base), err)
	}
	g := newLocalGater(ctx, GateOptions{Git: rg, FailOnDrift: opts.FailOnDrift, StateDir: opts.StateDir})
	defer g.close()
	infos, err := ScanTasksWith(rg.Root(), g.view)
	if err != nil {
		return nil, err
	}
	rangeSet := &gitscope.ChangedSet{}
	if b != opts.Head {
		committed, err := rg.DiffCommits(ctx, b, opts.Head)
		if err != nil {
			return nil, fmt.Errorf("diff %s..%s: %w", ShortOID(b), ShortOID(opts.Head), err)
		}
		g.stats.ChangedSets++
		rangeSet.Entries = committed.Entries
	}
	work, err := workTreeChanges(ctx, g, rg, b, opts.Head, infos)
	if err != nil {
		return nil, err
	}
	rangeSet = union(rangeSet, work)
	r := &rangeRun{g: g, rg: rg, b: b, head: opts.Head, rangeSet: rangeSet, infos: infos, local: true,
		info: RangeInfo{Base: opts.Base, Head: opts.Head, MergeBase: b, Upstream: opts.Upstream, WorkTree: true}}
	return r.run(ctx)
}

// workTreeChanges are the changed sets of the open tasks whose recorded baseline descends from B,
// or the live changed set since head when there is no such task.
func workTreeChanges(ctx context.Context, g *gater, rg RangeGit, b, head string, infos []TaskInfo) ([]*gitscope.ChangedSet, error) {
	var out []*gitscope.ChangedSet
	after := map[string]bool{}
	for _, in := range infos {
		st := in.State
		if in.Err != nil || st == nil || !in.Recorded || in.Tampered != "" || st.Status == StatusLearned || st.NextStep == NextRunPreflight || g.specChanged(in) {
			continue
		}
		ok, seen := after[st.BaselineRef]
		if !seen {
			ok = st.BaselineRef == b
			if !ok {
				var err error
				if ok, err = rg.IsAncestor(ctx, b, st.BaselineRef); err != nil && !errors.Is(err, gitscope.ErrBaselineUnavailable) {
					return nil, err
				}
			}
			after[st.BaselineRef] = ok
		}
		if !ok {
			continue
		}
		co, err := g.source(ctx, in)
		if err != nil {
			continue // the task's own row reports it
		}
		if cs, err := co.get(ctx, &g.stats); err == nil {
			out = append(out, cs)
		}
	}
	if len(out) == 0 {
		live, err := rg.ChangedSet(ctx, head)
		if err != nil {
			return nil, fmt.Errorf("the work tree's changes since %s: %w", ShortOID(head), err)
		}
		g.stats.ChangedSets++
		out = append(out, live)
	}
	// A file any recorded task's controller run created is the controller's while it holds its
	// recorded content (verification-receipts.md §2.2).
	ws := g.branchWrites(infos)
	for i, cs := range out {
		for _, w := range ws {
			cs = withoutWrites(rg.Root(), cs, w)
		}
		out[i] = cs
	}
	return out, nil
}

// branchWrites are the controller's recorded writes of every task with a store record on this
// machine, one map per task.
func (g *gater) branchWrites(infos []TaskInfo) []map[string]string {
	var out []map[string]string
	for _, in := range infos {
		if !in.Recorded || in.State == nil {
			continue
		}
		st, err := g.view.snapshots(in.Task.Name)
		if err != nil || st == nil {
			continue
		}
		g.opened = append(g.opened, st)
		if w := recordedWrites(st, in.State.BaselineRef); len(w) > 0 {
			out = append(out, w)
		}
	}
	return out
}

// union is cs with the entries of more whose paths it lacks, sorted by path bytes.
func union(cs *gitscope.ChangedSet, more []*gitscope.ChangedSet) *gitscope.ChangedSet {
	out := *cs
	have := make(map[string]bool, len(cs.Entries))
	out.Entries = slices.Clone(cs.Entries)
	for _, e := range out.Entries {
		have[string(e.Path)] = true
	}
	for _, m := range more {
		for _, e := range m.Entries {
			if !have[string(e.Path)] {
				have[string(e.Path)] = true
				out.Entries = append(out.Entries, e)
			}
		}
	}
	slices.SortFunc(out.Entries, func(a, b gitscope.Entry) int { return strings.Compare(string(a.Path), string(b.Path)) })
	return &out
}

// rangeRun is one gate over a range: the gate against a base, or the local gate of a branch.
type rangeRun struct {
	g        *gater
	rg       RangeGit
	b, head  string
	rangeSet *gitscope.ChangedSet
	infos    []TaskInfo
	local    bool
	info     RangeInfo
	atBase   map[string]*baseTask
}

// run applies trust-model.md §5 steps 2–5 to the range.
func (r *rangeRun) run(ctx context.Context) (*GateResult, error) {
	g := r.g
	added, rewritten := specChanges(r.rangeSet)
	touched := touchedTasks(r.rangeSet)
	r.info.Changed, r.info.AddedTasks, r.info.ChangedSpecs = len(r.rangeSet.Entries), added, rewritten
	r.info.TouchedTasks = slices.Sorted(maps.Keys(touched))
	r.info.ControllerFiles = controllerFiles(r.rangeSet, r.g.rangeRule(r.rg.Root()))
	res := &GateResult{Range: &r.info}
	res.Stats.Tasks = len(r.infos)
	atHead := map[string]TaskInfo{}
	names := maps.Clone(touched)
	for _, in := range r.infos {
		atHead[in.Task.Name] = in
		if r.local {
			names[in.Task.Name] = touched[in.Task.Name]
		}
	}
	r.atBase = map[string]*baseTask{}
	for _, in := range r.infos {
		if err := r.readBase(ctx, in.Task); err != nil {
			return nil, err
		}
	}
	var (
		rows    []gateTask
		pending []int // indexes in rows of the tasks to audit
		owners  []owner
	)
	type ancestry struct {
		ok  bool
		err error
	}
	ancestors := map[string]ancestry{}
	deleted := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		in, present := atHead[name]
		tt, isTouched := touched[name]
		if !present {
			if tt.deleted {
				deleted[name] = true
				res.Findings = append(res.Findings, findTaskRecordChanged(name, ReasonTaskFolderDeleted,
					fmt.Sprintf("task folder %s/%s is present at the base %s and missing at %s; a task record is never deleted on a branch — restore the folder (git checkout %s -- %s/%s)",
						TasksDir, name, ShortOID(r.b), ShortOID(r.head), ShortOID(r.b), TasksDir, name)))
			}
			continue
		}
		res.Stats.Selected++
		if !isTouched {
			// The local gate only: a task the range does not touch is gated as an open task, and
			// owns nothing.
			rows = append(rows, g.gateTask(ctx, in))
			continue
		}
		t := gateTask{GateTask: GateTask{Task: in.Task}}
		if in.State != nil {
			t.StateStatus, t.Baseline = in.State.Status, in.State.BaselineRef
		}
		switch base := r.atBase[name]; {
		case base.closed():
			r.closedRow(in, base, tt, &t)
		case in.Err != nil:
			t.fail(GateError, in.Err)
		case in.State == nil:
			t.Status, t.Reason = GateNotStarted, notStartedReason(in.Task)
		case in.Tampered != "":
			t.Status, t.Reason = GateBroken, in.Tampered
		default:
			a, seen := ancestors[in.State.BaselineRef]
			if !seen {
				a.ok, a.err = r.rg.IsAncestor(ctx, in.State.BaselineRef, r.head)
				if errors.Is(a.err, gitscope.ErrBaselineUnavailable) {
					a.ok, a.err = false, nil // not a commit here, so not on the branch
				}
				ancestors[in.State.BaselineRef] = a
			}
			ok, err := a.ok, a.err
			switch {
			case err != nil:
				t.fail(GateError, err)
			case !ok:
				f := findBaselineNotAncestor(name, in.State.BaselineRef, r.head)
				t.setVerdict(VerdictBroken, Counts{Errors: 1}, []finding.Finding{f}, nil, g.opts.FailOnDrift)
			case in.State.Status != StatusLearned && in.State.NextStep == NextRunPreflight:
				t.Status, t.Reason = GateRefused, "pre-flight is required: "+in.State.BlockingReason+preflightNext(in.Task, in.State, DefaultMaxIterations).clause()
			default:
				// learned never exempts a task whose folder changed: it is audited like an open one.
				pending = append(pending, len(rows))
				if o, ok := g.owner(ctx, in); ok {
					owners = append(owners, o)
				}
			}
		}
		rows = append(rows, t)
	}
	for _, i := range pending {
		t := &rows[i]
		in := atHead[t.Task.Name]
		cs := g.audit(ctx, in, t, r.leftOut(in, owners))
		oi := slices.IndexFunc(owners, func(o owner) bool { return o.name == t.Task.Name })
		if t.Status == GateAccepted {
			r.info.Accepted = append(r.info.Accepted, AcceptedTask{Task: t.Task.Name, Reason: in.State.AcceptedReason})
		} else if oi >= 0 {
			owners[oi].accepted = false
		}
		if r.local && in.Recorded && in.State.Status == StatusLearned && t.Passed && !closureHolds(in, cs, owners, g.control(in.Task, in.State)) {
			f := findTaskRecordChanged(t.Task.Name, ReasonClosedTaskChanged,
				fmt.Sprintf("task %s was closed (learned) on this branch, and its audited inputs changed since (its history snapshot is not the one the controller store closed it on); a closed task's record is final — put new work in a new task (mastermind new-spec), or reopen it with mastermind run-task %s --pre-only",
					t.Task.Name, t.Task.Spec))
			t.setVerdict(VerdictBroken, Counts{Errors: 1}, []finding.Finding{f}, nil, g.opts.FailOnDrift)
		}
	}

	for _, t := range rows {
		res.Tasks = append(res.Tasks, t.GateTask)
	}
	res.Findings = append(res.Findings, r.releaseNotesChanged()...)
	res.Findings = append(res.Findings, r.unowned(owners)...)
	if r.local {
		// A folder the base holds is already gate.task_record_changed.
		missing, err := g.missingFolders(r.rg.Root(), r.infos, deleted)
		if err != nil {
			return nil, err
		}
		res.Findings = append(res.Findings, missing...)
	}
	audit.Sort(res.Findings)
	g.finishStats(&res.Stats)
	return res, nil
}

// closureHolds reports whether a task learned in its store record is still closed on the inputs it
// was closed on: its history snapshot over cs is the recorded one. When another re-audited task owns
// a path of its changed set, the re-audit alone decides.
func closureHolds(in TaskInfo, cs *gitscope.ChangedSet, owners []owner, rule repopath.ControlRule) bool {
	if cs == nil {
		return true // not audited: the row already fails
	}
	for _, e := range cs.WithoutControl(rule) {
		if slices.ContainsFunc(owners, func(o owner) bool { return o.name != in.Task.Name && o.owns(string(e.Path)) }) {
			return true
		}
	}
	snap, ok := snapshotNow(in.Task, in.State, cs, rule, in.State.HistorySnapshotSHA256)
	return ok && snap == in.State.HistorySnapshotSHA256
}

// baseTask is a task's record at the base B, the protected side: what its committed state.json
// says, and, for a closed task, its spec's declared scope there.
type baseTask struct {
	Status   string `json:"status"`
	Baseline string `json:"baseline_ref"`
	SpecHash string `json:"spec_hash"`
	Snapshot string `json:"history_snapshot_sha256"`
	scope    []string
}

// closed reports whether the task is closed at the base: held or accepted and in history
// review, or learned. A closed task's record is final and it owns nothing new.
func (b *baseTask) closed() bool {
	return b != nil && (b.Status == StatusHistoryReviewRequired || b.Status == StatusLearned)
}

// describe names the closed status for a message.
func (b *baseTask) describe() string {
	if b.Status == StatusLearned {
		return "learned"
	}
	return "held, in history review"
}

// readBase reads task t's record at B into r.atBase. It leaves nil when B has no usable state.json
// for the task, which is then audited.
func (r *rangeRun) readBase(ctx context.Context, t Task) error {
	data, ok, err := r.rg.BaselineBlob(ctx, r.b, t.StateRel())
	if err != nil || !ok {
		return err
	}
	var bt baseTask
	if json.Unmarshal(data, &bt) != nil {
		return nil
	}
	if bt.closed() {
		if raw, ok, err := r.rg.BaselineBlob(ctx, r.b, t.Spec); err != nil {
			return err
		} else if ok {
			sp, _ := spec.Parse(raw, t.Spec)
			if sp != nil {
				bt.scope = sp.Scope.Declared
			}
		}
	}
	r.atBase[t.Name] = &bt
	return nil
}

// closingFile reports whether name is a file of a task folder that closing a held task writes: the
// review, an archived review or the state.
func closingFile(name string) bool {
	return name == "state.json" || name == "history-review.md" ||
		(strings.HasPrefix(name, "history-review.") && strings.HasSuffix(name, ".md"))
}

// closedRow decides a task closed at B whose folder the range touches: a learned task must not
// change, and a held one may only be closed on the base's baseline, spec and snapshot. Anything
// else is gate.task_record_changed; such a task never owns a path.
func (r *rangeRun) closedRow(in TaskInfo, base *baseTask, tt touched, t *gateTask) {
	g := r.g
	var changed []string
	for _, f := range tt.files {
		if base.Status == StatusLearned || !closingFile(f) {
			changed = append(changed, f)
		}
	}
	st := in.State
	closing := st != nil && st.BaselineRef == base.Baseline && st.SpecHash == base.SpecHash &&
		(st.Status == StatusLearned || st.Status == StatusHistoryReviewRequired) &&
		(st.HistorySnapshotSHA256 == base.Snapshot)
	if len(changed) == 0 && !closing {
		changed = []string{"state.json"}
	}
	if len(changed) > 0 {
		f := findTaskRecordChanged(in.Task.Name, ReasonClosedTaskChanged,
			fmt.Sprintf("task %s is closed (%s) at the base %s, and its folder changed in the range (%s); a closed task's record is final — revert the change to %s and put new work in a new task",
				in.Task.Name, base.describe(), ShortOID(r.b), strings.Join(changed, ", "), in.Task.Dir))
		t.setVerdict(VerdictBroken, Counts{Errors: 1}, []finding.Finding{f}, nil, g.opts.FailOnDrift)
		return
	}
	// Held at B and closed on the branch: the review must back the base's snapshot.
	if st.Status == StatusLearned {
		g.learned(in, t)
		return
	}
	t.Status, t.Passed, t.Verdict = GateHeld, true, st.Verdict
	t.Reason = fmt.Sprintf("closed (held) at the base %s: not re-audited, and it owns nothing in the range", ShortOID(r.b))
}

// touched is what the range does to one task folder: whether a path in it was deleted, and the
// changed files' names below the folder.
type touched struct {
	deleted bool
	files   []string
}

// touchedTasks maps each task folder with a changed path in the range to what changed. Files
// directly under .mastermind/tasks, such as _lessons.md, are not task folders.
func touchedTasks(cs *gitscope.ChangedSet) map[string]touched {
	out := map[string]touched{}
	for _, e := range cs.Entries {
		rest, ok := strings.CutPrefix(string(e.Path), TasksDir+"/")
		if !ok {
			continue
		}
		name, file, ok := strings.Cut(rest, "/")
		if !ok {
			continue
		}
		t := out[name]
		t.deleted = t.deleted || e.Status == gitscope.StatusDeleted
		t.files = append(t.files, file)
		out[name] = t
	}
	return out
}

// controllerFiles are the paths of cs outside every task folder that rule leaves out as the
// controller's, in cs's order.
func controllerFiles(cs *gitscope.ChangedSet, rule repopath.ControlRule) []string {
	var out []string
	for _, e := range cs.Entries {
		p := string(e.Path)
		if !repopath.LeftOut(p, rule) {
			continue
		}
		if rest, ok := strings.CutPrefix(p, TasksDir+"/"); ok && strings.Contains(rest, "/") {
			continue // in a task folder: TouchedTasks names it
		}
		out = append(out, p)
	}
	return out
}

// releaseNotesChanged reports the tasks closed at B whose release notes the range changes.
func (r *rangeRun) releaseNotesChanged() []finding.Finding {
	var fs []finding.Finding
	for _, e := range r.rangeSet.Entries {
		rest, ok := strings.CutPrefix(string(e.Path), ".mastermind/releases/")
		name, isMD := strings.CutSuffix(rest, ".md")
		if !ok || !isMD || strings.Contains(name, "/") || !repopath.TaskNamePattern.MatchString(name) {
			continue
		}
		base, seen := r.atBase[name]
		if !seen {
			// A task no longer at the head: read its record at B now.
			if err := r.readBase(context.Background(), taskFolder("", name)); err == nil {
				base = r.atBase[name]
			}
		}
		if !base.closed() {
			continue
		}
		fs = append(fs, findTaskRecordChanged(name, ReasonReleaseNotesChange,
			fmt.Sprintf("the release notes %s of task %s, closed at the base %s, changed in the range; revert them", e.Path, name, ShortOID(r.b))))
	}
	return fs
}

// owner is one re-audited task's claim on the paths of its own changed set that its report lists
// and its scope holds. A task owns nothing it did not change, so a later task cannot take a change
// over; an accepted drift also owns its reported paths outside its scope.
type owner struct {
	name     string
	report   string
	scope    map[string]bool
	reported map[string]bool
	changed  map[string]bool
	accepted bool
}

func (o owner) owns(p string) bool {
	if !o.reported[p] || !o.changed[p] {
		return false
	}
	return o.scope[p] || o.accepted
}

// owner reads the ownership of task in from its spec, its report and its changed set. It returns
// false when any of them cannot be used; that task's audit fails anyway.
func (g *gater) owner(ctx context.Context, in TaskInfo) (owner, bool) {
	t := in.Task
	si, err := g.spec(t)
	if err != nil || si.Spec == nil || fsx.SHA256Hex(si.Raw) != in.State.SpecHash {
		return owner{}, false
	}
	rr, err := report.ReadInRepo(t.Root, t.ReportRel())
	if err != nil || rr.Report == nil || len(rr.Findings) > 0 {
		return owner{}, false
	}
	co, err := g.source(ctx, in)
	if err != nil {
		return owner{}, false
	}
	cs, err := co.get(ctx, &g.stats)
	if err != nil {
		return owner{}, false
	}
	o := owner{name: t.Name, report: t.ReportRel(), scope: map[string]bool{}, reported: map[string]bool{}, changed: map[string]bool{}, accepted: in.State.Accepted()}
	for _, p := range si.Spec.Scope.Declared {
		o.scope[p] = true
	}
	for _, f := range rr.Report.FilesModified {
		o.reported[f.Path] = true
	}
	for _, e := range cs.WithoutControl(g.control(t, in.State)) {
		o.changed[string(e.Path)] = true
	}
	return o, true
}

// leftOut is what the re-audit of task in leaves out of its changed set: the paths other tasks own.
// A task open in the local gate leaves out nothing, as its post-flight would (trust-model.md §5).
func (r *rangeRun) leftOut(in TaskInfo, owners []owner) map[string]bool {
	if r.local && in.Recorded && in.State.Status != StatusLearned {
		return nil
	}
	return ownedByOthers(in.Task.Name, owners)
}

// unowned applies trust-model.md §5 step 2: every path of the range not left out as the
// controller's must be owned by a task re-audited in this gate. An unowned path is
// gate.closed_task_changed in the scope of a task closed at B, otherwise gate.unowned_change.
func (r *rangeRun) unowned(owners []owner) []finding.Finding {
	var fs []finding.Finding
	for _, e := range r.rangeSet.WithoutControl(r.g.rangeRule(r.rg.Root())) {
		p := string(e.Path)
		if slices.ContainsFunc(owners, func(o owner) bool { return o.owns(p) }) {
			continue
		}
		if closed := r.closedScopes(p); len(closed) > 0 {
			fs = append(fs, findClosedTaskChanged(p, closed, r.b))
			continue
		}
		fs = append(fs, findUnownedChange(p, nearestTasks(p, r.infos, r.g)))
	}
	return fs
}

// closedScopes names the tasks closed at B whose declared scope there holds p, sorted.
func (r *rangeRun) closedScopes(p string) []string {
	var out []string
	for name, b := range r.atBase {
		if b.closed() && slices.Contains(b.scope, p) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// nearestTasks names up to three tasks at HEAD whose declared scope shares the longest directory
// prefix with p, for the fix in the message. A task that declares p itself comes first.
func nearestTasks(p string, infos []TaskInfo, g *gater) []string {
	type cand struct {
		name  string
		score int
	}
	var cs []cand
	for _, in := range infos {
		if in.Err != nil {
			continue
		}
		si, err := g.spec(in.Task)
		if err != nil || si.Spec == nil {
			continue
		}
		best := -1
		for _, s := range si.Spec.Scope.Declared {
			best = max(best, sharedDirs(p, s))
		}
		if best >= 0 {
			cs = append(cs, cand{in.Task.Name, best})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return b.score - a.score })
	var out []string
	for _, c := range cs {
		if len(out) == 3 || c.score < cs[0].score || c.score == 0 {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// sharedDirs scores how near s is to p: 1<<20 when equal, otherwise the leading directories they
// share, plus one when both are in the same directory.
func sharedDirs(p, s string) int {
	if p == s {
		return 1 << 20
	}
	dp, ds := path.Dir(p), path.Dir(s)
	pd, sd := strings.Split(dp, "/"), strings.Split(ds, "/")
	n := 0
	for n < len(pd) && n < len(sd) && pd[n] == sd[n] && pd[n] != "." {
		n++
	}
	if dp == ds {
		n++
	}
	return n
}

// specChanges are the task folders whose spec.md the range adds, and those whose spec.md it
// modifies: contracts the branch brings or rewrites itself, which only a reviewer of the change
// can approve.
func specChanges(cs *gitscope.ChangedSet) (added, modified []string) {
	for _, e := range cs.Entries {
		rest, ok := strings.CutPrefix(string(e.Path), TasksDir+"/")
		name, file, ok2 := strings.Cut(rest, "/")
		if !ok || !ok2 || file != "spec.md" || !repopath.TaskNamePattern.MatchString(name) {
			continue
		}
		switch e.Status {
		case gitscope.StatusAdded, gitscope.StatusUntracked: // untracked is the local gate's work tree
			added = append(added, name)
		case gitscope.StatusModified:
			modified = append(modified, name)
		}
	}
	return added, modified
}

func findUnownedChange(p string, nearest []string) finding.Finding {
	near := "no task declares a path near it"
	if len(nearest) > 0 {
		near = "nearest task scope: " + strings.Join(nearest, ", ")
	}
	return finding.Finding{Rule: KindUnownedChange, Class: finding.KindClass(KindUnownedChange), File: p,
		Message: fmt.Sprintf("%s changed in the range but no re-audited task owns it (%s); add it to a task's scope and report, or move the change to its own task", p, near),
		Fields:  []finding.Field{{Key: "file", Value: p}, {Key: "nearest_tasks", Value: nearest}}}
}

func findBaselineNotAncestor(task, baseline, head string) finding.Finding {
	return finding.Finding{Rule: KindBaselineNotAncestor, Class: finding.KindClass(KindBaselineNotAncestor),
		Message: fmt.Sprintf("task %s's recorded baseline %s is not an ancestor of %s (a rebase or a forged state.json); its changes cannot be audited against it — rerun pre-flight on the branch (mastermind run-task %s/%s/spec.md --pre-only) and audit again",
			task, ShortOID(baseline), ShortOID(head), TasksDir, task),
		Fields: []finding.Field{{Key: "task", Value: task}, {Key: "baseline", Value: baseline}}}
}

func findTaskRecordChanged(task, reason, msg string) finding.Finding {
	return finding.Finding{Rule: KindTaskRecordChanged, Class: finding.KindClass(KindTaskRecordChanged), Message: msg,
		Fields: []finding.Field{{Key: "task", Value: task}, {Key: "reason", Value: reason}}}
}

func findClosedTaskChanged(p string, tasks []string, b string) finding.Finding {
	return finding.Finding{Rule: KindClosedTaskChanged, Class: finding.KindClass(KindClosedTaskChanged), File: p,
		Message: fmt.Sprintf("%s changed in the range, in the declared scope of %s, closed at the base %s; a closed task owns nothing new — put the change in a new task (its own spec and report)",
			p, strings.Join(tasks, ", "), ShortOID(b)),
		Fields: []finding.Field{{Key: "file", Value: p}, {Key: "tasks", Value: tasks}}}
}

// ownedByOthers is the set of paths another re-audited task owns that name's report does not list,
// with each other task's report. They are left out of name's changed set, so two tasks on one
// branch do not each see the other's work as unreported.
func ownedByOthers(name string, owners []owner) map[string]bool {
	var self owner
	for _, o := range owners {
		if o.name == name {
			self = o
		}
	}
	out := map[string]bool{}
	for _, o := range owners {
		if o.name == name {
			continue
		}
		out[o.report] = true // its own audit reads it
		for p := range o.reported {
			if o.scope[p] && o.changed[p] && !self.reported[p] {
				out[p] = true
			}
		}
	}
	return out
}

// headCommit is the head commit of a gate against a base as every task's source reads it: its
// tree on disk and its file list. Nothing reads the index or the work tree.
type headCommit struct {
	rg    RangeGit
	head  string
	files []string
}

// source is the source of a task whose baseline is baseline: its changed set is the diff
// between the two commits.
func (h *headCommit) source(baseline string) source { return commitSource{h: h, baseline: baseline} }

// commitSource is one task's source against a base (headCommit.source).
type commitSource struct {
	h        *headCommit
	baseline string
}

func (c commitSource) ChangedSet(ctx context.Context) (*gitscope.ChangedSet, error) {
	cs, err := c.h.rg.DiffCommits(ctx, c.baseline, c.h.head)
	if errors.Is(err, gitscope.ErrBaselineUnavailable) {
		err = fmt.Errorf("baseline %s: %w", ShortOID(c.baseline), err)
	}
	return cs, err
}

func (c commitSource) Head(context.Context) (string, bool, error) { return c.h.head, false, nil }

// Close does nothing: the head commit's reader is the gate's, closed with it.
func (commitSource) Close() error { return nil }

func (c commitSource) BaselineEntries(ctx context.Context, paths []string) (map[string]gitscope.EntryType, error) {
	return c.h.rg.BaselineEntries(ctx, c.baseline, paths)
}

func (c commitSource) BaselineBlob(ctx context.Context, path string) ([]byte, bool, error) {
	return c.h.rg.BaselineBlob(ctx, c.baseline, path)
}

func (c commitSource) ListFiles(context.Context) ([]string, error) {
	return slices.Clone(c.h.files), nil
}

func (c commitSource) DiffStat(context.Context) (string, error) {
	return "", errors.New("internal error: the gate against a base writes no release notes")
}
