package audit

import (
	"context"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// Verdict is an audit's verdict (spec-and-lifecycle.md §9.2); its JSON form is the word.
type Verdict string

// The three verdicts.
const (
	VerdictHeld   Verdict = "held"
	VerdictDrift  Verdict = "drift"
	VerdictBroken Verdict = "broken"
)

// Inputs are everything one audit looks at; none of it is lifecycle state. Compute reads the
// working tree under Root only for the declared files, the vacuous-test scan and the claims, and
// reads git only through Prefetch and Claims.
type Inputs struct {
	// Root is the absolute, clean repository root.
	Root string
	// SpecPath is the repository-relative slash path of the task's spec.md.
	SpecPath string
	// Spec is the spec whose hash pre-flight approved, parsed, and SpecFindings the findings
	// spec.Parse returned with it.
	Spec         *spec.Spec
	SpecFindings []finding.Finding
	// Baseline is the task's baseline commit OID (40 hex digits) and Head the HEAD OID, nil in a
	// repository without commits. Both are evidence only; the git work is in Prefetch.
	Baseline string
	Head     *string
	// Report is the executor report as report.ReadInRepo returned it: a typed report, or the
	// findings that reject it and its usable parts, which are audited beside the rejection
	// (lifecycle-v2.md §6).
	Report report.Result
	// Prefetch holds the changed set since Baseline and the baseline entries of the declared
	// creations, started by the caller before the spec was parsed. Compute waits for what it
	// needs; the caller closes it.
	Prefetch *Prefetch
	// Claims reads baseline blobs and the file list for the claims checks (§10.6).
	Claims ClaimsGit
	// Control decides which changed paths below .mastermind/ are the controller's and so left
	// out of D; nil leaves out only the contract files.
	Control repopath.ControlRule
	// RepoFindings are findings the caller established about the repository itself, such as
	// git_config_changed, added to the audit as they are. Their kinds must be in finding.Kinds.
	RepoFindings []finding.Finding
	// ForeignArtifacts reports a change since pre-flight to another task's records. run-task
	// post-flight sets it; the gate does not, because the changed sets of closed tasks hold the
	// folders of every later task.
	ForeignArtifacts bool
	// ForeignBefore maps each record of another task present at pre-flight to its
	// HashForeignRecord then; a record that still hashes the same is not reported.
	ForeignBefore map[string]string
	// ControllerWrote, when set, reports whether the content with SHA-256 sha of task's
	// state.json or audit.md is one its own controller wrote.
	ControllerWrote func(task, name, sha string) bool
	// Verify, when set, runs the spec's declared commands after the other checks; nil runs
	// nothing.
	Verify *VerifyInputs
	// ControllerWrites are the paths mastermind's own verification runs created, with their
	// content ids (verification-receipts.md §2.2): an untracked path of D that still has its
	// content id is the controller's, left out of D and listed in the evidence.
	ControllerWrites map[string]string
	// Transcript, when set, is the harness transcript the witness checks read.
	Transcript *TranscriptInputs
	// PathRuns, when true, returns the findings a check makes once per changed path as
	// Result.PathRuns, so that a huge changed set holds no finding per path. Callers that set it
	// read the findings through All.
	PathRuns bool
}

// ClaimsGit is what the claims checks read from the repository; *gitscope.Repo implements it.
type ClaimsGit interface {
	BaselineBlob(ctx context.Context, baseline, path string) (data []byte, ok bool, err error)
	ListFiles(ctx context.Context) ([]string, error)
}

// Result is the outcome of one audit.
type Result struct {
	// Verdict is VerdictHeld, VerdictDrift or VerdictBroken.
	Verdict Verdict
	// Findings are the audit findings sorted by Compare; for a rejected report, its
	// executor_report_rejected finding and the findings of the feedback round.
	Findings []finding.Finding
	// PathRuns are the per-path findings held out of Findings when Inputs.PathRuns is set.
	// All(Findings, PathRuns) yields every finding in order, and Verdict counts them.
	PathRuns []finding.PathRun
	// Rejection is non-nil when the executor report is rejected (§4 step 3, §10.1).
	Rejection *Rejection
	// Evidence is the structured evidence of audit.md (§7.2).
	Evidence Evidence
	// Verify is the verification step's outcome; nil when Inputs.Verify was nil or the report
	// was rejected.
	Verify *verifyrun.StepResult
	// Changed is the changed set and D its representable entries that Inputs.Control does not
	// leave out, sorted by path bytes and computed for a rejected report too. The held path
	// snapshots D and lists its untracked files in the release notes.
	Changed *gitscope.ChangedSet
	D       []gitscope.Entry
}

// Counts returns the number of error and warning findings.
func (r *Result) Counts() (errors, warnings int) {
	e, w := finding.Count(r.Findings)
	re, rw := finding.CountRuns(r.PathRuns)
	return e + re, w + rw
}

// run is one Compute call: its inputs and the changed set D split by representability.
type run struct {
	ctx context.Context
	in  *Inputs
	rep *report.Report
	// d are the representable entries of D sorted by path bytes; paths[i] is d[i]'s path and
	// fileFields[i] its {"file", path} kind field, built once and shared by every finding of that
	// path. status searches paths, so no map of D is held.
	d          []gitscope.Entry
	paths      []string
	fileFields []finding.Field
	// runs are the per-path findings, held as runs until Compute returns them (Inputs.PathRuns)
	// or materialises them.
	runs []finding.PathRun
	ev   *Evidence
	// forbidden are the paths of d that checkForbids found forbidden.
	forbidden map[string]bool
	// caches are the tool caches the changed set left out (gitscope.md §4.7).
	caches []gitscope.IgnoredDir
}

// check is one §10 check over a run with a computed changed set and a report: a valid one, the
// usable parts of a rejected one, or nil for the checks that need none.
type check func(*run) ([]finding.Finding, error)

// checks run in this order; their findings are sorted together afterwards.
// checkForbids runs before checkScope, which skips the paths it reported.
var checks = []check{checkFilesModified, checkForbids, checkScope, checkDeclared, checkVerification, checkWitness, checkClaims}

// Compute runs post-flight steps 3–6: the report's completion and identity, every check of §10
// and the verdict. It writes nothing but the receipts of in.Verify's runs, and a rejected report
// gets one round of feedback beside its rejection (lifecycle-v2.md §6). An error is operational
// (exit 3) and comes without a Result.
func Compute(ctx context.Context, in Inputs) (*Result, error) {
	res := &Result{Evidence: Evidence{Spec: in.SpecPath, Baseline: in.Baseline, Head: in.Head, Scope: scopeEvidence(in.Spec)}}
	rej := checkReport(&in, &res.Evidence)
	cs, err := in.Prefetch.ChangedSet()
	if err != nil {
		return nil, err
	}
	r, first := newRun(ctx, &in, cs, &res.Evidence)
	parts := [][]finding.Finding{first}
	run := checks
	if rej != nil {
		var extra []finding.Finding
		r.rep, run, extra = feedback(&in, rej, &res.Evidence)
		res.Rejection = rej
		parts = append(parts, []finding.Finding{rej.Finding}, extra)
	}
	for _, c := range run {
		cfs, err := c(r)
		if err != nil {
			return nil, err
		}
		parts = append(parts, cfs)
	}
	fs := slices.Concat(parts...)
	if res.Evidence.Renames, err = pairRenames(r); err != nil {
		return nil, err
	}
	// A rejected report runs nothing (verification-receipts.md).
	if in.Verify != nil && rej == nil {
		if fs, res.Verify, err = r.checkReceipts(in.Verify, fs); err != nil {
			return nil, err
		}
	}
	Sort(fs)
	runs := r.runs
	if !in.PathRuns {
		// One slice of the exact length, in Compare order: the per-path findings are built here,
		// once, and nothing else of that size is live beside them.
		all := make([]finding.Finding, 0, Len(fs, runs))
		for f := range All(fs, runs) {
			all = append(all, f)
		}
		fs, runs = all, nil
	}
	res.Verdict, res.Findings, res.PathRuns = VerdictOfAll(fs, runs), fs, runs
	res.Changed, res.D = cs, r.d
	return res, nil
}

// newRun prepares the checks over the changed set cs: it fills the changed-set evidence, splits
// D into representable paths and changed_path_unrepresentable findings, and returns those with
// the findings that need no check.
func newRun(ctx context.Context, in *Inputs, cs *gitscope.ChangedSet, ev *Evidence) (*run, []finding.Finding) {
	d, controller := TaskD(in.Root, cs, in.Control, in.ControllerWrites)
	paths := make([]string, len(d))
	for i, e := range d {
		paths[i] = string(e.Path)
	}
	r := &run{ctx: ctx, in: in, rep: in.Report.Report, ev: ev, caches: cs.ToolCaches}
	ev.ChangedSet = changedEvidence(cs, d, paths)
	ev.ChangedSet.ControllerWrites = controller
	var fs []finding.Finding
	for _, f := range in.SpecFindings {
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
	fs = append(fs, in.RepoFindings...)
	if in.ForeignArtifacts {
		fs = append(fs, checkForeignArtifacts(in, cs)...)
	}
	// d may share the changed set's entries (WithoutControl): it is copied only when a path
	// is left out; paths is this run's own and compacted in place.
	r.d, r.paths = d, paths[:0]
	copied := false
	for i, e := range d {
		f, bad := unrepresentable(e)
		if !bad && e.SelfIgnoring {
			f, bad = findSelfIgnoringDirectory(cs, paths[i]), true
		}
		if bad {
			if !copied {
				r.d, copied = slices.Clone(d[:i]), true
			}
			fs = append(fs, f)
			continue
		}
		if copied {
			r.d = append(r.d, e)
		}
		r.paths = append(r.paths, paths[i])
	}
	if !slices.IsSorted(r.paths) {
		// ChangedSet.Entries is sorted by raw path bytes; a changed set built otherwise, as a
		// test's may be, is sorted here with d.
		idx := make([]int, len(r.paths))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(r.paths[a], r.paths[b]) })
		d2, p2 := make([]gitscope.Entry, len(idx)), make([]string, len(idx))
		for i, j := range idx {
			d2[i], p2[i] = r.d[j], r.paths[j]
		}
		r.d, r.paths = d2, p2
	}
	r.fileFields = make([]finding.Field, len(r.paths))
	for i, p := range r.paths {
		r.fileFields[i] = finding.Field{Key: "file", Value: p}
	}
	return r, fs
}

// status returns the status of the changed path p and whether p is in D.
func (r *run) status(p string) (gitscope.Status, bool) {
	if i, ok := slices.BinarySearch(r.paths, p); ok {
		return r.d[i].Status, true
	}
	return "", false
}
