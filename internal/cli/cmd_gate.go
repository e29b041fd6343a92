package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// GateOptions holds the flags of `mastermind gate`.
type GateOptions struct {
	IO     *IOStreams
	Since  string
	Base   string
	Head   string
	Root   string
	Format string
	FailOn string
	Record bool
	// Wait is --wait: with --record, how long each task's post-flight waits for a busy controller
	// lock; with 0 that task is an error at once.
	Wait time.Duration
	// Timeout is --timeout: one deadline for the whole gate (trust-model.md I5).
	Timeout time.Duration
	// JSON is --json, the short form of --format json.
	JSON bool
}

// debugGateEnv turns on the gate's work counters on stderr.
const debugGateEnv = "MASTERMIND_DEBUG_GATE"

const gateLong = `Pre-merge gate: is everything on this branch owned by a task and audited? Passes only when
every gated task passes and every change is owned.

Every task is audited with exactly the checks of post-flight (run-task --post-only) and from the
same inputs: its controller-store record (baseline, spec hash, status) and its pre-flight
snapshots, so an edit hidden from git after pre-flight (assume-unchanged, skip-worktree, a forged
index, a new ignore rule) is as visible to the gate as to post-flight: spec binding, executor
report, changed set since the task's baseline, scope, declared files, verification evidence and
claims. A task that needs an audit but has no record on this machine is refused (it cannot be
audited under its snapshots; its state.json is not used). Nothing is written and no lifecycle
state changes, unless --record is given: then each audited task goes through the normal
post-flight, which writes audit.md and state.json (and release notes and history-review.md for
held) under the task's controller lock. Each spec and report is read and parsed once. mastermind
never runs a command that a spec or report names.

Without --base, the gate gates the branch against its upstream: the current branch's
@{upstream}, else the remote's default branch (refs/remotes/origin/HEAD, or that of the only
remote). With B = merge-base(upstream, HEAD) it checks B..HEAD plus the work tree the way --base
does (below): every changed path must be owned, task folders changed on the branch are
re-audited (each from its record), closed tasks own nothing, and deleted or rewritten task records
fail; the tasks the range does not touch are gated as open tasks. The upstream and the merge base
are printed: refs and configuration are the executor's to write, so a pushed branch is gated
again with --base against the protected base (CI, the pre-push hook). Without an upstream the
gate gates the open tasks (every task folder that is not learned) and prints that it could not
check whether every change is owned.

With --since REV only the tasks whose folder, or one of whose declared scope files, changed
since the commit REV are gated (committed, staged, unstaged or untracked alike). A task whose
spec cannot be read is always selected. --since is a convenience for a trusted work tree, not a
gate: a change that touches neither a task folder nor a declared scope file selects no task and
passes, and the output says that ownership was not checked. --record gates the open tasks
likewise. Use mastermind gate (with an upstream) or --base to gate a branch.

With --base REV (CI, pre-push; trust-model.md §5) the gate trusts only the protected base REV
and reads committed content only — the work tree, the index and uncommitted files are never
audited, in CI or not: the head commit's tree is written to a temporary directory. Only in CI
(CI=true, where the checkout and its .git are the runner's), a work tree that holds exactly that
commit (HEAD is it; nothing modified, untracked, ignored, assume-unchanged or skip-worktree — a
fresh checkout) is audited in place instead. B = merge-base(REV, HEAD), or of REV and --head REV, and:
  - every path changed between B and the head commit, except the controller's artifact names
    (spec.md, executor-report.md, state.json, audit.md, history-review*.md, locks,
    .mastermind/releases/<task>.md, .mastermind/tasks/_lessons.md), must be owned: in the
    declared scope of a task folder changed in the range and listed in that task's report;
    otherwise gate.unowned_change (error) names the path and the tasks whose scope is nearest;
  - a task closed at B (held, accepted or in history review, or learned: read from B's
    committed state.json) owns nothing: a path in its scope that no open task owns is
    gate.closed_task_changed (error); its record is final — a learned task's folder must not
    change, a held one may only be closed (its review and state.json), anything else
    (its spec, its report, a hook-block.json) is gate.task_record_changed (error);
  - every other task folder added or changed in the range is re-audited from its committed spec
    and report against the head commit, whatever state.json says (learned exempts nothing), with
    the recorded baseline only when it is an ancestor of the head commit, otherwise
    gate.baseline_not_ancestor (error); a path another re-audited task owns is that task's
    change and is left out of this task's changed set;
  - a drift accepted on the branch (mastermind accept, committed) passes as accepted when the
    re-audit reproduces the accepted findings on the accepted inputs (its history snapshot is
    the accepted one); its reported paths then count as owned by it. Any other change since the
    acceptance makes it a normal drift;
  - a task folder present at B and missing at the head commit, or release notes of a task
    closed at B that changed, is gate.task_record_changed (error).
Tasks untouched by the range are not listed. The range findings are printed after the tasks
and fail the gate. Notes then name the tasks the range adds, the specs it rewrites, every task
folder it touches, the controller's files outside the task folders it changes (lessons, release
notes, dispatch records: not audited) and the drifts accepted on it with their reasons: those contracts and
decisions come from the branch itself, and only a reviewer can approve them. CI must fetch
enough history for the merge base (actions/checkout with fetch-depth: 0). In CI (CI=true) a gate
without --base prints a warning: there, every task record on the branch is the executor's to
write.

One line per task, sorted by task name, then a summary line:
  <icon> <task>: <status> — <first blocking reason>
Statuses and whether they pass:
  held         the audit verdict is held                                  passes
  accepted     a drift the planner accepted (mastermind accept) whose inputs are unchanged
               since the acceptance                                       passes
  drift        the audit verdict is drift                passes unless --fail-on drift
  broken       the audit verdict is broken; also a rejected executor report, whose
               state.json status is blocked (verdict broken)              fails
  refused      the spec changed since approval, pre-flight is required, or
               no controller record on this machine to audit it from       fails
  learned      closed and not re-audited; passes only when history-review.md is a complete
               review whose Audit snapshot equals the state's history_snapshot_sha256
               (otherwise, for example a hand-written "learned" state, it fails)
  not started  a task folder with a spec but without state.json: pre-flight never ran (or
               the state was deleted), so there is no approved contract and no baseline to
               audit against                                              fails
  error        unreadable or corrupt state.json, a task folder that is a symbolic link, a
               directory under .mastermind/tasks whose name is not <NNN>-<slug>, git
               failing for the task's baseline, or a claim this build cannot check (a
               non-Go claim in a build without cgo); the other tasks are still audited
The gate is fail-closed: every task folder is open work until it is learned. A task that is
approved but has no executor report yet is audited like any other and is broken (executor
report missing). A task the planner does not want is closed or removed, not left behind: delete
its folder (or move it out of .mastermind/tasks), then run mastermind store gc, before merging.
The local gate (not --base) reads this work tree's controller-store records: a task recorded open
(not learned) whose folder is missing is gate.task_folder_missing (error) until its folder is
restored or store gc forgets the record. Files under .mastermind/tasks, such as _lessons.md, are
not tasks and are ignored.

--format text (default) prints the lines. --format json prints {schema_version: 1, command:
"gate", outcome, exit_code, message, since, fail_on, record, tasks: [{task, spec, status,
passed, state_status, baseline, verdict, counts, reason, findings, report_violations, error,
recorded}], summary, ownership_checked, note}, and over a range (--base, or an upstream) also
range: {base, head, merge_base, changed_paths, added_tasks, changed_specs, touched_tasks,
controller_files, accepted: [{task, reason}], in_place, upstream, work_tree} and findings (the range findings, in
the audit-finding shape of tasks[].findings); --json is the same. --format github prints GitHub Actions ::error /
::warning annotations (at most 10 of each, then a ::notice with the number omitted) followed by
the text log. --format sarif prints a SARIF 2.1.0 log for code scanning, --format rdjson
reviewdog's rdjson, --format markdown a job summary for $GITHUB_STEP_SUMMARY rendered from the
gate's own result (never from audit.md files, which the branch could have written); see
integrations.md §4.

--timeout DURATION (default 2m0s) is one deadline for the whole gate, all tasks together: a gate
that has not finished by then stops with exit 3.

MASTERMIND_DEBUG_GATE=1 prints the work counters (tasks, audits, baselines, changed-set
computations, spec reads) to stderr.

Exit status:
  0  every gated task passes (also when there are no tasks)
  1  at least one task does not pass (and no task has an error)
  2  usage error (unknown flag, bad --format or --fail-on, malformed --since, --base or --head
     REV, --head without --base, --base with --since or --record)
  3  operational: not a git repository, --since, --base or --head REV does not name a commit,
     no merge base, .git/info/grafts present with --base, .mastermind/tasks
     cannot be listed, or any task has status error — fail closed: 3 wins over 1, and every
     other task is still audited and printed`

// NewCmdGate builds `mastermind gate`. runF replaces the run function in tests.
func NewCmdGate(io *IOStreams, runF func(*GateOptions) error) *cobra.Command {
	opts := &GateOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "gate [--base REV [--head REV] | --since REV] [--root DIR] [--format text|json|github|sarif|rdjson|markdown] [--json] [--fail-on broken|drift] [--record]",
		Short: "Pre-merge gate: the branch against its upstream (or --base), every task audited",
		Long:  gateLong,
		Example: `  mastermind gate
  mastermind gate --base origin/main --fail-on drift
  mastermind gate --base "$BASE_SHA" --head "$HEAD_SHA" --format markdown >> "$GITHUB_STEP_SUMMARY"
  mastermind gate --format github >> "$GITHUB_STEP_SUMMARY"
  mastermind gate --record --format json
  mastermind gate --format markdown >> "$GITHUB_STEP_SUMMARY"
  mastermind gate --format sarif > mastermind.sarif`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := mutuallyExclusive(cmd, "json", "format"); err != nil {
				return err
			}
			if opts.JSON {
				opts.Format = formatJSON
			}
			if err := checkFormat(opts.Format); err != nil {
				return err
			}
			if err := checkGateBaseFlags(cmd, opts); err != nil {
				return err
			}
			if opts.FailOn != "broken" && opts.FailOn != "drift" {
				return usageErrorf("--fail-on must be broken or drift, got %q", opts.FailOn)
			}
			if opts.Wait < 0 {
				return usageErrorf("--wait must not be negative, got %s", opts.Wait)
			}
			if cmd.Flags().Changed("since") && opts.Since == "" {
				return usageErrorf("--since needs a revision")
			}
			if opts.Timeout <= 0 {
				return usageErrorf("--timeout must be a positive duration such as 120s, got %s", opts.Timeout)
			}
			if runF != nil {
				return runF(opts)
			}
			return runGate(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Since, "since", "", "gate only tasks whose folder or declared scope changed since this commit (no ownership check)")
	f.StringVar(&opts.Base, "base", "", "gate the commits since merge-base(REV, head) against the protected base REV, from committed content only")
	f.StringVar(&opts.Head, "head", "", "with --base: the commit to gate (default HEAD)")
	f.StringVar(&opts.Root, "root", "", "repository root (default: discovered from the current directory)")
	f.StringVar(&opts.Format, "format", formatText, "output format: text, json, github, sarif, rdjson or markdown")
	f.BoolVar(&opts.JSON, "json", false, "the same as --format json")
	f.StringVar(&opts.FailOn, "fail-on", "broken", "broken or drift: with drift, drift tasks fail too")
	f.BoolVar(&opts.Record, "record", false, "persist each audit through the normal post-flight (writes state)")
	f.DurationVar(&opts.Wait, "wait", 0, "with --record: wait up to this long (e.g. 30s) for a task's busy controller lock instead of failing it (the read-only gate takes no lock)")
	f.DurationVar(&opts.Timeout, "timeout", DefaultTimeout, "one deadline for the whole gate")
	return cmd
}

func runGate(ctx context.Context, opts *GateOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := withRunDeadline(ctx, opts.Timeout)
	defer cancel()
	repo, err := openRepo(opts.Root)
	if err != nil {
		return gateError(opts, "", err)
	}
	if opts.Base != "" {
		return runGateBase(ctx, opts, repo)
	}
	if os.Getenv("CI") == "true" {
		fmt.Fprintln(opts.IO.ErrOut, ciWithoutBase)
	}
	since := ""
	if opts.Since != "" {
		since = opts.Since
		if !gitscope.IsFullOID(since) {
			since, err = repo.ResolveRevision(ctx, opts.Since)
			if errors.Is(err, gitscope.ErrInvalidRevision) {
				return usageErrorf("--since: %s", textsafe.Escape(err.Error()))
			}
			if err != nil {
				return gateError(opts, "", fmt.Errorf("--since %s", textsafe.Escape(err.Error())))
			}
		}
	}
	// Without --since and --record the gate gates the branch against its upstream (trust-model.md
	// §5): merge-base..HEAD plus the work tree, every path owned.
	note := ""
	switch {
	case since != "":
		note = fmt.Sprintf(sinceNote, postflight.ShortOID(since))
	case opts.Record:
		note = recordNote
	default:
		name, oid, err := repo.Upstream(ctx)
		if err != nil {
			return gateError(opts, "", fmt.Errorf("finding the upstream: %w; fix the git error and rerun, or name the base: mastermind gate --base <base>", err))
		}
		head, unborn, herr := repo.Head(ctx)
		if herr != nil {
			return gateError(opts, "", fmt.Errorf("HEAD: %w", herr))
		}
		if name != "" && !unborn {
			res, err := postflight.GateBranch(ctx, postflight.BranchGateOptions{Git: repo, Base: oid, Head: head, Upstream: name,
				FailOnDrift: opts.FailOn == "drift"})
			if err != nil {
				return gateError(opts, "", err)
			}
			return finishGate(opts, res, "")
		}
		note = noUpstreamNote
	}
	res, err := postflight.Gate(ctx, postflight.GateOptions{Git: repo, Since: since, FailOnDrift: opts.FailOn == "drift",
		Record: opts.Record, Wait: opts.Wait})
	if res != nil {
		for _, t := range res.Tasks {
			printWarnings(opts.IO, t.Warnings)
		}
	}
	if errors.Is(err, gitscope.ErrBaselineUnavailable) && since != "" {
		err = fmt.Errorf("--since %q %w", since, gitscope.ErrRevisionNotFound)
	}
	if err != nil {
		return gateError(opts, since, err)
	}
	return finishGate(opts, res, note)
}

// The notes of a gate that could not check that every change is owned (trust-model.md §5).
const (
	noUpstreamNote = "note: no upstream (no @{upstream}, no refs/remotes/origin/HEAD): the open tasks were gated, but not whether every change on the branch is owned by a task; set one (git branch --set-upstream-to origin/main) or run mastermind gate --base <base>"
	sinceNote      = "note: --since %s gates only the tasks whose folder or declared scope changed since then; it does not check that every change is owned (run mastermind gate, or gate --base <base>)"
	recordNote     = "note: --record gates the open tasks; it does not check that every change on the branch is owned (run mastermind gate without --record, or gate --base <base>)"
)

// finishGate prints a gate result and returns its exit error. note, when non-empty, says what
// the gate could not check.
func finishGate(opts *GateOptions, res *postflight.GateResult, note string) error {
	if os.Getenv(debugGateEnv) == "1" {
		s := res.Stats
		fmt.Fprintf(opts.IO.ErrOut, "mastermind: debug: gate: tasks %d, selected %d, audited %d, baselines %d, changed-set computations %d, spec reads %d, spec parses %d\n",
			s.Tasks, s.Selected, s.Audited, s.Baselines, s.ChangedSets, s.SpecReads, s.SpecParses)
	}
	code := gateExitCode(res)
	summary := gateSummary(res, opts, code)
	if err := show(opts.IO, opts.Format, gateView{res: res, opts: opts, summary: summary, exit: code, note: note}); err != nil {
		return err
	}
	return resultError(code, summary)
}

// gateError reports an operational failure of the whole gate (exit 3); with --format json the
// envelope is still printed, with outcome "error".
func gateError(opts *GateOptions, since string, err error) error {
	msg := strings.TrimSpace(deadlineMessage(err, opts.Timeout))
	_ = show(opts.IO, opts.Format, gateView{res: &postflight.GateResult{Since: since}, opts: opts, exit: ExitOperational, err: msg})
	return &ExitError{Code: ExitOperational, Msg: msg, Err: err}
}

// gateSummary is the last text line: "gate: <passed|failed|error> — <N> task(s): <counts>".
func gateSummary(res *postflight.GateResult, opts *GateOptions, code int) string {
	word := gateWord(code)
	head := "gate: " + word
	if res.Range != nil {
		return baseSummary(res, opts, word)
	}
	if res.Since != "" {
		head = fmt.Sprintf("gate --since %s: %s", postflight.ShortOID(res.Since), word)
	}
	findings := ""
	if n := len(res.Findings); n > 0 {
		findings = fmt.Sprintf("; %d finding(s)", n)
	}
	if len(res.Tasks) == 0 {
		if res.Since != "" {
			return fmt.Sprintf("%s — no task changed since %s (%d task(s) in %s)%s", head, postflight.ShortOID(res.Since), res.Stats.Tasks, postflight.TasksDir, findings)
		}
		return head + " — no tasks under " + postflight.TasksDir + findings
	}
	var parts []string
	for _, s := range postflight.GateStatuses {
		if n := res.Count(s); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, statusWord(s)))
		}
	}
	s := fmt.Sprintf("%s — %d task(s): %s", head, len(res.Tasks), strings.Join(parts, ", "))
	if res.Since != "" {
		s += fmt.Sprintf(" (%d of %d selected)", len(res.Tasks), res.Stats.Tasks)
	}
	s += findings
	if opts.FailOn == "drift" {
		s += "; --fail-on drift"
	}
	return s
}

// gateView is a gate result in every output format. err, when non-empty, is the operational
// error that stopped the whole gate.
type gateView struct {
	res     *postflight.GateResult
	opts    *GateOptions
	summary string
	exit    int
	err     string
	// note says what the gate could not check, such as ownership without an upstream. It is
	// printed before the summary, with ownership_checked false in JSON.
	note string
}

// gateTone is the colour of a task line: passing green, open work yellow, failing red. It is the
// same decision as the line's icon.
func gateTone(t postflight.GateTask) render.Tone {
	switch {
	case !t.Passed:
		return render.ToneFail
	case t.Status == postflight.GateDrift || t.Status == postflight.GateNotStarted:
		return render.ToneWarn
	}
	return render.TonePass
}

// gateWord is the outcome of a gate by its exit code: passed, failed or error.
func gateWord(code int) string {
	switch code {
	case ExitOK:
		return "passed"
	case ExitNotPassed:
		return "failed"
	}
	return "error"
}

// gateReason is a task's reason as the gate's lines and rows give it: a learned task that passes
// says why it was not re-audited.
func gateReason(t postflight.GateTask) string {
	if t.Status == postflight.GateLearned && t.Passed {
		return postflight.LearnedReason
	}
	return t.Reason
}

// statusWord is a gate status as the text and summary lines say it: "not started".
func statusWord(s postflight.GateStatus) string { return strings.ReplaceAll(string(s), "_", " ") }

// gateLine renders one task as the gate's text line "<icon> <task>: <status> — <reason>", with
// control characters escaped. The reason part is there only when there is one.
func gateLine(t postflight.GateTask) string {
	icon := gateTone(t).Icon()
	status := statusWord(t.Status)
	s := fmt.Sprintf("%s %s: %s", icon, t.Task.Name, status)
	if reason := gateReason(t); reason != "" {
		s += " — " + textsafe.Escape(reason)
	}
	if t.Recorded {
		s += " [recorded]"
	}
	return s
}

// WriteText prints one line per task and the summary: each task line in its tone, the summary
// green when the gate passes and red otherwise.
func (v gateView) WriteText(t *render.Text) {
	if v.err != "" {
		return
	}
	for _, task := range v.res.Tasks {
		t.Line(gateTone(task), gateLine(task))
	}
	for _, f := range v.res.Findings {
		t.Line(render.ToneFail, rangeLine(f))
	}
	if r := v.res.Range; r != nil {
		for _, l := range contractLines(r) {
			t.Line(render.ToneWarn, l)
		}
	}
	if v.note != "" {
		t.Line(render.ToneWarn, v.note)
	}
	tone := render.ToneFail
	if v.exit == ExitOK {
		tone = render.TonePass
	}
	t.Line(tone, v.summary)
}

// gateJSON is the --format json envelope of `gate` (schema_version 1).
type gateJSON struct {
	render.Header
	Outcome  string         `json:"outcome"` // pass | fail | error
	ExitCode int            `json:"exit_code"`
	Message  string         `json:"message"`
	Since    *string        `json:"since"`
	FailOn   string         `json:"fail_on"`
	Record   bool           `json:"record"`
	Tasks    []gateTaskJSON `json:"tasks"`
	Summary  *gateSummaryJS `json:"summary,omitempty"`
	// Range and Findings are present only for a gate over a range.
	Range    *gateRangeJSON `json:"range,omitempty"`
	Findings *render.Array  `json:"findings,omitempty"`
	// OwnershipChecked: every change of the range was checked to be owned by a task. When it is
	// false, Note says why not.
	OwnershipChecked bool    `json:"ownership_checked"`
	Note             *string `json:"note,omitempty"`
}

type gateTaskJSON struct {
	Task             string                `json:"task"`
	Spec             string                `json:"spec"`
	Status           postflight.GateStatus `json:"status"`
	Passed           bool                  `json:"passed"`
	StateStatus      *string               `json:"state_status"`
	Baseline         *string               `json:"baseline"`
	Verdict          *string               `json:"verdict"`
	Counts           *postflight.Counts    `json:"counts"`
	Reason           *string               `json:"reason"`
	Findings         render.Array          `json:"findings"`
	ReportViolations []finding.Finding     `json:"report_violations"`
	Error            *string               `json:"error"`
	Recorded         bool                  `json:"recorded"`
}

type gateSummaryJS struct {
	Total  int `json:"total"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	Held   int `json:"held"`
	// Accepted counts accepted drift tasks (lifecycle-v2.md §3); absent when 0.
	Accepted   int `json:"accepted,omitempty"`
	Drift      int `json:"drift"`
	Broken     int `json:"broken"`
	Refused    int `json:"refused"`
	Learned    int `json:"learned"`
	NotStarted int `json:"not_started"`
	Error      int `json:"error"`
	// Available counts every task folder, gated or not; with --since it differs from total.
	Available int `json:"available"`
}

func strOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// JSON is the gate envelope; after an operational error, outcome "error" with no tasks.
func (v gateView) JSON() any {
	res, opts := v.res, v.opts
	if v.err != "" {
		return gateJSON{Header: render.NewHeader("gate"), Outcome: "error", ExitCode: ExitOperational, Message: v.err,
			Since: strOrNull(res.Since), FailOn: opts.FailOn, Record: opts.Record, Tasks: []gateTaskJSON{}}
	}
	outcome := map[int]string{ExitOK: "pass", ExitNotPassed: "fail", ExitOperational: "error"}[v.exit]
	env := gateJSON{Header: render.NewHeader("gate"), Outcome: outcome, ExitCode: v.exit, Message: v.summary,
		Since: strOrNull(res.Since), FailOn: opts.FailOn, Record: opts.Record, Tasks: []gateTaskJSON{}}
	sum := &gateSummaryJS{Total: len(res.Tasks), Available: res.Stats.Tasks,
		Held: res.Count(postflight.GateHeld), Accepted: res.Count(postflight.GateAccepted), Drift: res.Count(postflight.GateDrift), Broken: res.Count(postflight.GateBroken),
		Refused: res.Count(postflight.GateRefused), Learned: res.Count(postflight.GateLearned),
		NotStarted: res.Count(postflight.GateNotStarted), Error: res.Count(postflight.GateError)}
	for _, t := range res.Tasks {
		j := gateTaskJSON{Task: t.Task.Name, Spec: t.Task.Spec, Status: t.Status, Passed: t.Passed,
			StateStatus: strOrNull(t.StateStatus), Baseline: strOrNull(t.Baseline), Verdict: strOrNull(string(t.Verdict)),
			Counts: t.Counts, Reason: strOrNull(gateReason(t)), Findings: auditArray(t.Findings),
			ReportViolations: t.ReportViolations, Recorded: t.Recorded}
		if j.ReportViolations == nil {
			j.ReportViolations = []finding.Finding{}
		}
		if t.Err != nil {
			msg := t.Err.Error()
			j.Error = &msg
		}
		if t.Passed {
			sum.Passed++
		} else {
			sum.Failed++
		}
		env.Tasks = append(env.Tasks, j)
	}
	env.Summary = sum
	env.Range, env.Findings = rangeJSON(res)
	env.OwnershipChecked, env.Note = res.Range != nil, strOrNull(v.note)
	return env
}
