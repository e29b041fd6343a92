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
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/report"
)

// The gate against a protected base (trust-model.md §5, invariant I6). In CI there is no
// controller store, and everything on the branch — state.json, audit.md, history reviews — is the
// executor's to write. The only thing the gate believes is the base commit the platform protects:
// the range B..HEAD is decided from commits, every path it changes must be owned by a task that is
// re-audited from its committed spec and report, and the task records the base already holds
// cannot be removed or rewritten.

// Gate finding kinds (finding.Kinds).
const (
	KindUnownedChange       = finding.KindGateUnownedChange
	KindBaselineNotAncestor = finding.KindGateBaselineNotAncestor
	KindTaskRecordChanged   = finding.KindGateTaskRecordChanged
)

// task_record_changed reasons.
const (
	ReasonTaskFolderDeleted  = "task_folder_deleted"
	ReasonClosedTaskChanged  = "closed_task_changed"
	ReasonReleaseNotesChange = "closed_task_release_notes_changed"
)

// RangeGit is what the gate against a base reads from the repository besides Git;
// *gitscope.Repo implements it. Every method reads committed objects only.
type RangeGit interface {
	Git
	MergeBase(ctx context.Context, a, b string) (string, error)
	DiffCommits(ctx context.Context, from, to string) (*gitscope.ChangedSet, error)
	Materialize(ctx context.Context, commit, dir string) ([]string, error)
	WorktreeIs(ctx context.Context, commit string) (bool, error)
	CommitFiles(ctx context.Context, commit string) ([]string, error)
}

// RangeInfo describes the range a gate against a base checked.
type RangeInfo struct {
	Base      string // the --base commit
	Head      string // the --head commit (HEAD when not given)
	MergeBase string // B = merge-base(Base, Head)
	Changed   int    // paths changed in B..Head
	// AddedTasks are the task folders whose spec.md the range adds, sorted: their contracts come
	// with the branch and are the reviewer's to approve.
	AddedTasks []string
	// ChangedSpecs are the task folders whose spec.md the range modifies, sorted: a contract the
	// base holds, rewritten on the branch.
	ChangedSpecs []string
	// InPlace is true when the work tree held exactly the head commit (RangeGit.WorktreeIs) and
	// was audited in place; false when the head tree was written to a temporary directory.
	InPlace bool
}

// headTree is where the audits read the head commit: with allowInPlace (CI), the work tree itself
// when it holds exactly that commit (a fresh checkout: nothing modified, untracked or ignored),
// otherwise a private
// temporary directory the head tree is written to (removed by cleanup). files is the commit's
// file list.
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

// gateBase runs the gate of trust-model.md §5 for opts.Base and opts.Head (full OIDs): B is their
// merge base and R the diff B..Head (one range diff). Every read of the audit — task folders,
// specs, reports, declared files, claims — goes to the head commit's tree (headTree: the work
// tree when it holds exactly that commit, otherwise a private temporary copy removed on return);
// each task's changed set is the diff from its baseline to Head, computed once per distinct
// baseline, as is the ancestry of each baseline. Nothing is written in the repository. Tasks the range does not touch are not gated
// and own nothing. The returned error is operational for the whole gate (no merge base, grafts,
// an unreadable or refused head tree, a git failure).
func gateBase(ctx context.Context, opts GateOptions, rg RangeGit) (*GateResult, error) {
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
	cg := &commitGit{RangeGit: rg, root: dir, head: opts.Head, files: files}
	infos, err := ScanTasks(dir)
	if err != nil {
		return nil, err
	}
	added, rewritten := specChanges(rangeSet)
	res := &GateResult{Range: &RangeInfo{Base: opts.Base, Head: opts.Head, MergeBase: b, Changed: len(rangeSet.Entries),
		AddedTasks: added, ChangedSpecs: rewritten, InPlace: inPlace}}
	res.Stats.Tasks = len(infos)
	g := &gater{opts: opts, git: newSharedGit(cg), specs: map[string]*specInput{}}
	rule := &committedRule{dir: dir, tasks: map[string]bool{}}
	for _, in := range infos {
		rule.tasks[in.Task.Name] = true
	}
	g.rule = rule

	touched := touchedTasks(rangeSet)
	atHead := map[string]TaskInfo{}
	for _, in := range infos {
		atHead[in.Task.Name] = in
	}
	var (
		rows    []gateTask
		pending []int // indexes in rows of the tasks to audit
		owners  []owner
	)
	baselines := map[string]bool{}
	type ancestry struct {
		ok  bool
		err error
	}
	ancestors := map[string]ancestry{}
	for _, name := range slices.Sorted(maps.Keys(touched)) {
		in, present := atHead[name]
		if !present {
			if touched[name].deleted {
				res.Findings = append(res.Findings, findTaskRecordChanged(name, ReasonTaskFolderDeleted,
					fmt.Sprintf("task folder %s/%s is present at the base %s and missing at %s; a task record is never deleted on a branch — restore the folder (git checkout %s -- %s/%s)",
						TasksDir, name, ShortOID(b), ShortOID(opts.Head), ShortOID(b), TasksDir, name)))
			}
			continue
		}
		res.Stats.Selected++
		t := gateTask{GateTask: GateTask{Task: in.Task}}
		if in.State != nil {
			t.StateStatus, t.Baseline = in.State.Status, in.State.BaselineRef
		}
		closed, err := closedAt(ctx, rg, b, in.Task)
		if err != nil {
			return nil, err
		}
		switch {
		case closed:
			f := findTaskRecordChanged(name, ReasonClosedTaskChanged,
				fmt.Sprintf("task %s is closed (learned) at the base %s, and its folder changed in the range; a closed task's record is final — revert the change to %s and put new work in a new task",
					name, ShortOID(b), in.Task.Dir))
			t.setVerdict(VerdictBroken, Counts{Errors: 1}, []finding.Finding{f}, nil, opts.FailOnDrift)
		case in.Err != nil:
			t.fail(GateError, in.Err)
		case in.State == nil:
			t.Status, t.Reason = GateNotStarted, notStartedReason(in.Task)
		default:
			a, seen := ancestors[in.State.BaselineRef]
			if !seen {
				a.ok, a.err = rg.IsAncestor(ctx, in.State.BaselineRef, opts.Head)
				if errors.Is(a.err, gitscope.ErrBaselineUnavailable) {
					a.ok, a.err = false, nil // not a commit here (or not an OID): not on the branch
				}
				ancestors[in.State.BaselineRef] = a
			}
			ok, err := a.ok, a.err
			switch {
			case err != nil:
				t.fail(GateError, err)
			case !ok:
				f := findBaselineNotAncestor(name, in.State.BaselineRef, opts.Head)
				t.setVerdict(VerdictBroken, Counts{Errors: 1}, []finding.Finding{f}, nil, opts.FailOnDrift)
			case in.State.Status != StatusLearned && in.State.NextStep == NextRunPreflight:
				t.Status, t.Reason = GateRefused, "pre-flight is required: "+in.State.BlockingReason+preflightNext(in.Task, in.State, DefaultMaxIterations)
			default:
				// learned never exempts a task whose folder changed: it is audited like an open one.
				t.audited = true
				pending = append(pending, len(rows))
				if o, ok := g.owner(in.Task); ok {
					owners = append(owners, o)
				}
			}
		}
		rows = append(rows, t)
	}
	for _, i := range pending {
		t := &rows[i]
		in := atHead[t.Task.Name]
		baselines[in.State.BaselineRef] = true
		g.auditWith(ctx, in, t, &siblingGit{sharedGit: g.git, exclude: ownedByOthers(t.Task.Name, owners)})
		res.Stats.Audited++
	}
	for _, t := range rows {
		res.Tasks = append(res.Tasks, t.GateTask)
	}
	res.Findings = append(res.Findings, releaseNotesChanged(ctx, rg, b, rangeSet)...)
	res.Findings = append(res.Findings, unowned(rangeSet, owners, infos, g, rule)...)
	audit.Sort(res.Findings)
	res.Stats.Baselines = len(baselines)
	res.Stats.ChangedSets = g.git.computed + 1 // the range diff
	res.Stats.SpecReads, res.Stats.SpecParses = g.specReads, g.specParses
	return res, nil
}

// touched is what the range does to one task folder.
type touched struct{ deleted bool }

// touchedTasks maps each task folder name with a changed path in the range (below
// .mastermind/tasks/<name>/) to what changed. Files directly under .mastermind/tasks
// (_lessons.md) are not task folders.
func touchedTasks(cs *gitscope.ChangedSet) map[string]touched {
	out := map[string]touched{}
	for _, e := range cs.Entries {
		rest, ok := strings.CutPrefix(string(e.Path), TasksDir+"/")
		if !ok {
			continue
		}
		name, _, ok := strings.Cut(rest, "/")
		if !ok {
			continue
		}
		t := out[name]
		t.deleted = t.deleted || e.Status == gitscope.StatusDeleted
		out[name] = t
	}
	return out
}

// closedAt reports whether the task's state.json at commit b says learned. Only the status is
// read; a state at b that cannot be parsed is not closed (the task is then audited).
func closedAt(ctx context.Context, rg RangeGit, b string, t Task) (bool, error) {
	data, ok, err := rg.BaselineBlob(ctx, b, t.StateRel())
	if err != nil || !ok {
		return false, err
	}
	var st struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(data, &st) != nil {
		return false, nil
	}
	return st.Status == StatusLearned, nil
}

// releaseNotesChanged: release notes of a task closed at b (.mastermind/releases/<task>.md)
// changed in the range.
func releaseNotesChanged(ctx context.Context, rg RangeGit, b string, cs *gitscope.ChangedSet) []finding.Finding {
	var fs []finding.Finding
	for _, e := range cs.Entries {
		rest, ok := strings.CutPrefix(string(e.Path), ".mastermind/releases/")
		name, isMD := strings.CutSuffix(rest, ".md")
		if !ok || !isMD || strings.Contains(name, "/") || !taskRe.MatchString(name) {
			continue
		}
		t := Task{Name: name, Dir: TasksDir + "/" + name}
		if closed, err := closedAt(ctx, rg, b, t); err == nil && !closed {
			continue
		}
		fs = append(fs, findTaskRecordChanged(name, ReasonReleaseNotesChange,
			fmt.Sprintf("the release notes %s of task %s, closed at the base %s, changed in the range; revert them", e.Path, name, ShortOID(b))))
	}
	return fs
}

// owner is one re-audited task's claim on changed paths: its declared scope and the paths its
// report lists.
type owner struct {
	name     string
	scope    map[string]bool
	reported map[string]bool
}

func (o owner) owns(p string) bool { return o.scope[p] && o.reported[p] }

// owner reads task t's ownership from its committed spec and report; false when either cannot
// be used (such a task's audit is broken anyway, and it owns nothing).
func (g *gater) owner(t Task) (owner, bool) {
	si, err := g.spec(t)
	if err != nil || si.Spec == nil {
		return owner{}, false
	}
	rr, err := report.ReadInRepo(t.Root, t.ReportRel())
	if err != nil || rr.Report == nil || len(rr.Findings) > 0 {
		return owner{}, false
	}
	o := owner{name: t.Name, scope: map[string]bool{}, reported: map[string]bool{}}
	for _, p := range si.Spec.Scope.Declared {
		o.scope[p] = true
	}
	for _, f := range rr.Report.FilesModified {
		o.reported[f.Path] = true
	}
	return o, true
}

// unowned applies trust-model.md §5 step 2: every path of the range that the committed-content
// rule does not leave out as the controller's (repopath.LeftOut, trust-model.md I3, the rule the
// tasks' changed sets use) must be owned by a task re-audited in this gate; every other path,
// under .mastermind/ or not, is a change a task must own.
func unowned(cs *gitscope.ChangedSet, owners []owner, infos []TaskInfo, g *gater, rule repopath.ControlRule) []finding.Finding {
	var fs []finding.Finding
	for _, e := range cs.WithoutControl(rule) {
		p := string(e.Path)
		if slices.ContainsFunc(owners, func(o owner) bool { return o.owns(p) }) {
			continue
		}
		fs = append(fs, findUnownedChange(p, nearestTasks(p, infos, g)))
	}
	return fs
}

// nearestTasks names up to three tasks present at HEAD whose declared scope shares the longest
// directory prefix with p (a task that declares p itself first), for the fix in the message.
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

// sharedDirs scores how near s is to p: 1<<20 when equal, otherwise the number of leading
// directory components they share plus one when both are in the same directory (0: nothing in
// common).
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
		if !ok || !ok2 || file != "spec.md" || !taskRe.MatchString(name) {
			continue
		}
		switch e.Status {
		case gitscope.StatusAdded:
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

// ownedByOthers is the set of paths that a re-audited task other than name owns (in its scope
// and its report) and that name's own report does not list: those are the other task's changes
// and are left out of name's changed set, so that two tasks on one branch do not each see the
// other's work as unreported. A path no task owns stays in every task's changed set (and is
// gate.unowned_change besides).
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
		for p := range o.reported {
			if o.scope[p] && !self.reported[p] {
				out[p] = true
			}
		}
	}
	return out
}

// siblingGit is the shared repository view of one task's audit: its changed sets leave out the
// paths in exclude (ownedByOthers).
type siblingGit struct {
	*sharedGit
	exclude map[string]bool
}

func (s *siblingGit) ChangedSet(ctx context.Context, baseline string) (*gitscope.ChangedSet, error) {
	cs, err := s.sharedGit.ChangedSet(ctx, baseline)
	if err != nil || len(s.exclude) == 0 {
		return cs, err
	}
	out := *cs
	out.Entries = make([]gitscope.Entry, 0, len(cs.Entries))
	for _, e := range cs.Entries {
		if !s.exclude[string(e.Path)] {
			out.Entries = append(out.Entries, e)
		}
	}
	return &out, nil
}

// commitGit is the repository as of one commit: Root is a directory holding that commit's tree,
// HEAD is the commit, the changed set of a baseline is the diff between the two commits and the
// file list is the commit's tree. Nothing reads the index or the work tree. It caches nothing:
// the gate reads it through a sharedGit, which computes each baseline's changed set once.
type commitGit struct {
	RangeGit
	root  string
	head  string
	files []string
}

func (c *commitGit) Root() string { return c.root }

func (c *commitGit) Head(context.Context) (string, bool, error) { return c.head, false, nil }

func (c *commitGit) ChangedSet(ctx context.Context, baseline string) (*gitscope.ChangedSet, error) {
	cs, err := c.RangeGit.DiffCommits(ctx, baseline, c.head)
	if errors.Is(err, gitscope.ErrBaselineUnavailable) {
		err = fmt.Errorf("baseline %s: %w", ShortOID(baseline), err)
	}
	return cs, err
}

func (c *commitGit) ListFiles(context.Context) ([]string, error) { return slices.Clone(c.files), nil }

func (c *commitGit) DiffStat(context.Context, string) (string, error) {
	return "", errors.New("internal error: the gate against a base writes no release notes")
}
