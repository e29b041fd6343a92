package postflight

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"time"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// Git is the part of *gitscope.Repo the lifecycle uses. *gitscope.Repo implements it. No audit
// reads the repository through it: an audit's inputs come from the task's source (sourceFor).
type Git interface {
	Root() string
	Head(ctx context.Context) (oid string, unborn bool, err error)
	ValidateBaseline(ctx context.Context, oid string) error
	// ChangedSet is the live changed set, without the pre-flight snapshots: pre-flight's
	// pre-existing changes and the selection of gate --since, never an audit.
	ChangedSet(ctx context.Context, baseline string) (*gitscope.ChangedSet, error)
	// BaselineEntries serves pre-flight's check of the declared creations and deletions.
	BaselineEntries(ctx context.Context, baseline string, paths []string) (map[string]gitscope.EntryType, error)
	// GitDir keys the controller store (trust-model.md §3); IsAncestor checks an adopted
	// baseline and the gates' baselines.
	GitDir() (string, error)
	IsAncestor(ctx context.Context, ancestor, descendant string) (bool, error)
	// TakeSnapshot takes the pre-flight snapshots of trust-model.md §4 into the controller store;
	// SnapshotView is the repository under them, the source of every audit of the task.
	TakeSnapshot(ctx context.Context, baseline string, store gitscope.SnapshotStore) error
	SnapshotView(ctx context.Context, baseline string, store gitscope.SnapshotStore) (*gitscope.SnapshotView, error)
	// GitBinary names the git that runs and why it may not be the system's own, as
	// trust-model.md §6 says.
	GitBinary(ctx context.Context) (path, version string, risk gitscope.GitBinaryRisk)
	// CheckToolCaches validates the planner's tool-cache table at the baseline (gitscope.md §4.7).
	CheckToolCaches(ctx context.Context, baseline string) error
	// IgnoredSince and FileSystemNow give the files the audit does not see that were written
	// since a time (verification-receipts.md §2.1).
	IgnoredSince(ctx context.Context, baseline string, store gitscope.SnapshotStore, caches []gitscope.IgnoredDir, sinceNs int64) ([]string, error)
	FileSystemNow() (int64, error)
}

// Mode selects the phase flags of run-task (§2).
type Mode int

// Phase flag modes: no flag, --pre-only (or --reset), --post-only.
const (
	ModeAuto Mode = iota
	ModePreOnly
	ModePostOnly
)

// PhaseForMode is the --json phase of a run that fails before the state decides the phase: the
// phase its flag selects, or pre-flight without a flag.
func PhaseForMode(m Mode) Phase {
	if m == ModePostOnly {
		return PhasePostflight
	}
	return PhasePreflight
}

// DefaultMaxIterations is the default pre-flight budget (§2 --max-iterations).
const DefaultMaxIterations = 3

// Phase is the lifecycle phase a run went through (the --json "phase", §13.2).
type Phase string

// OutcomeKind is what a run decided (the --json "outcome", §13.2).
type OutcomeKind string

// Phases and outcomes of the --json envelope (§13.2).
const (
	PhasePreflight  Phase = "preflight"
	PhasePostflight Phase = "postflight"
	PhaseCompletion Phase = "completion"

	OutcomePreReady       OutcomeKind = "pre_ready"
	OutcomePreRefused     OutcomeKind = "pre_refused"
	OutcomePostHeld       OutcomeKind = "post_held"
	OutcomePostDrift      OutcomeKind = "post_drift"
	OutcomePostBroken     OutcomeKind = "post_broken"
	OutcomePostRefused    OutcomeKind = "post_refused"
	OutcomeHistoryPending OutcomeKind = "history_pending"
	OutcomeCompleted      OutcomeKind = "completed"
	OutcomeError          OutcomeKind = "error"
)

// Options configure one run-task invocation.
type Options struct {
	Git            Git
	SpecArg        string // the spec argument, relative to the current directory
	Mode           Mode
	MaxIterations  int // 0 disables the budget
	ForceIteration bool
	// Now is the clock for started_at and lesson dates; time.Now when nil.
	Now func() time.Time
	// Wait is how long to wait for a busy controller lock, lifecycle-v2.md §9; 0 fails at once
	// with a *LockBusyError.
	Wait time.Duration
	// RunVerify runs every declared verify command at post-flight as if each had run: true;
	// RerunVerify runs them again even when receipts for the same inputs exist
	// (verification-receipts.md §1).
	RunVerify, RerunVerify bool
	// VerifyProgress, when set, is told about a running verification command, for a terminal's
	// progress line. It is called from another goroutine.
	VerifyProgress func(verifyrun.Progress)
	// VerifyContext, when set, is the context verify commands run under: the caller's without
	// the run's deadline (trust-model.md I5). RestDeadline then bounds the rest of the run; 0
	// leaves the run's context as it is.
	VerifyContext context.Context
	RestDeadline  time.Duration
	// ReceiptsDir is the folder that keeps the task's receipts; "" uses ReceiptsDir(task).
	ReceiptsDir string
	// StateDir is the controller store root (trust-model.md §3); "" uses store.Location().
	StateDir string
	// Transcript, when set, is the harness transcript post-flight reads as evidence
	// (docs/design/transcripts.md).
	Transcript *TranscriptOption
	// Adopt lets the first pre-flight of a task without a store record keep the baseline of the
	// task folder's state.json, when that commit is an ancestor of HEAD and the spec hash matches.
	Adopt bool
}

// openTaskFilesWait is openTaskFiles, retried every 20 ms for at most wait while a controller lock
// is busy (lifecycle-v2.md §9). A lock still busy is a *LockBusyError naming the wait; the wait
// also ends with ctx.
func openTaskFilesWait(ctx context.Context, task Task, stateDir, gitDir string, wait time.Duration) (*taskFiles, error) {
	deadline := time.Now().Add(wait)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	for {
		tf, err := openTaskFiles(task, stateDir, gitDir)
		var busy *LockBusyError
		if err == nil || !errors.As(err, &busy) || wait <= 0 {
			return tf, err
		}
		if !time.Now().Before(deadline) {
			busy.Waited = wait
			return nil, busy
		}
		select {
		case <-ctx.Done():
			busy.Waited = wait
			return nil, busy
		case <-time.After(min(20*time.Millisecond, time.Until(deadline))):
		}
	}
}

// Artifacts are the artifact paths of the --json envelope; empty means null.
type Artifacts struct {
	State         string
	Audit         string
	ReleaseNotes  string
	HistoryReview string
}

// Outcome is what one run-task decided (§13): the phase that ran, the --json outcome, the
// verdict of an audit, the findings, the next step and the artifacts written. It carries no exit
// code and no terminal text: internal/cli maps an Outcome to both (cli/exitcode.go).
type Outcome struct {
	Phase   Phase
	Outcome OutcomeKind
	// Verdict is the audit verdict when a post-flight reached one, "" otherwise.
	Verdict Verdict
	// Message is the one-line result, the --json "message": the state's blocking reason when
	// there is one.
	Message string
	// VerdictLine is true when Message is the verdict sentence (verdictSentence): it says the
	// verdict and its counts, and no reason of its own such as a rejection's or a refusal's.
	VerdictLine bool
	// Notes are pre-flight's observations that are no finding, such as a tool cache it left out;
	// each is also appended to Message.
	Notes []string
	Task  Task
	State *State
	// Findings are pre-flight's rule findings, the audit findings, or what a history review still
	// lacks. A rejected report's violations are in ReportViolations.
	Findings         []finding.Finding
	ReportViolations []finding.Finding
	// PathRuns are the audit's per-path findings held out of Findings; AllFindings yields both in
	// audit order.
	PathRuns []finding.PathRun
	// Next is the caller's next step.
	Next      Next
	Artifacts Artifacts
	// AuditSummary is the human part of the audit.md this run wrote or repeated, capped at
	// MaxSummaryFindings finding lines; "" when there is none.
	AuditSummary string
	// Budget is the pre-flight iteration budget in force, 0 for none, for the pre-flight hand-off.
	Budget int
	// Review lists what a history review still lacks, each as "<file>:<line>: <message>".
	Review []string
	// InputsFingerprint identifies what a post-flight decided from: the inputs fingerprint of
	// lifecycle-v2.md §5, or refusalFingerprint for a refusal; "" for the other phases. Every door
	// that needs one reads this one.
	InputsFingerprint string
	// Repeated is true when the post-flight's inputs fingerprint equalled the recorded one: the
	// outcome is the recorded one and nothing was written.
	Repeated bool
	// Accepted is true when the outcome is a drift verdict the planner accepted, which passes like
	// held, also under --fail-on drift.
	Accepted bool
	// Warnings are advisory messages for the user; the run's result does not depend on them. They
	// are set on every return, errors included.
	Warnings []string
	// Receipts are the verification runs of a post-flight (verification-receipts.md §3); nil
	// when none was planned.
	Receipts []verifyrun.ReceiptEvidence
	// StorePath is the task's folder in the controller store, "" when the run did not reach it.
	StorePath string
	// Adopted is the baseline a --pre-only --adopt took over from the task folder's state.json.
	Adopted string
}

// Next is the step the caller takes after an outcome.
type Next struct {
	// Step is in the state's next_step vocabulary, such as NextRunExecutor.
	Step string
	// Edit is a file to write or complete first, "" for none.
	Edit string
	// Run is the command to run then, "" for none.
	Run string
	// Adopt is true when the pre-flight to run may adopt the task folder's state.json and keep
	// its baseline.
	Adopt bool
}

// LockBusyError is the busy controller lock of §12.1 (exit 3).
type LockBusyError struct {
	Path string
	// Waited is how long the lock was waited for (--wait); 0 when not at all.
	Waited time.Duration
}

func (e *LockBusyError) Error() string {
	if e.Waited > 0 {
		return fmt.Sprintf("task controller is busy (another mastermind held the lock on %s for all of --wait %s)", e.Path, e.Waited)
	}
	return fmt.Sprintf("task controller is busy (another mastermind holds the lock on %s); retry, or pass --wait DURATION to wait for it", e.Path)
}

// Unwrap returns fsx.ErrLockBusy.
func (e *LockBusyError) Unwrap() error { return fsx.ErrLockBusy }

// taskRef names a task and how a command reaches its controller record: what run-task, accept
// and gate --record share to open a task (openTask).
type taskRef struct {
	git      Git
	specArg  string // the spec argument, relative to the current directory
	stateDir string // the controller store root, "" for store.Location()
	wait     time.Duration
	now      func() time.Time // time.Now when nil
}

func (o Options) ref() taskRef {
	return taskRef{git: o.Git, specArg: o.SpecArg, stateDir: o.StateDir, wait: o.Wait, now: o.Now}
}

// openTask is the set-up run-task and accept share: it resolves the task r names, opens its
// task folder and store record under the controller locks and loads the record. It fills in
// res's task and store path as they become known; resolved, when set, sees the task before any
// lock is taken. The caller closes the controller it returns.
func openTask(ctx context.Context, r taskRef, res *Outcome, resolved func(Task)) (*controller, *loaded, error) {
	if r.git == nil {
		return nil, nil, errors.New("internal error: no repository")
	}
	task, err := ResolveTask(r.git.Root(), r.specArg)
	if err != nil {
		return nil, nil, err
	}
	res.Task = task
	if resolved != nil {
		resolved(task)
	}
	gitDir, err := r.git.GitDir()
	if err != nil {
		return nil, nil, err
	}
	tf, err := openTaskFilesWait(ctx, task, r.stateDir, gitDir, r.wait)
	if err != nil {
		return nil, nil, err
	}
	res.StorePath = tf.storePath
	c := &controller{clock: r.now, git: r.git, task: task, res: res, files: tf}
	// The decision is read from the controller store (trust-model.md I2), never from the mirror.
	ld, err := tf.load(c.now())
	if err != nil {
		c.close()
		return nil, nil, err
	}
	c.warnRewritten(ld)
	return c, ld, nil
}

// controller carries one run's context.
type controller struct {
	// opts are the run-task options; accept runs with none.
	opts  Options
	clock func() time.Time
	git   Git
	task  Task
	res   *Outcome
	// src is the task's source for this run, opened by c.source; nil until an audit input is read.
	src source
	// inputsFP is the inputs fingerprint of the post-flight in progress, stored with its verdict.
	inputsFP string
	// files is the task folder and store record of the run.
	files *taskFiles
	// adoptBaseline replaces HEAD as the first pre-flight's baseline (adopt).
	adoptBaseline string
	// recordedAudit is the SHA-256 of the audit.md as read when repeated last rebuilt an outcome,
	// for accept's history snapshot.
	recordedAudit string
	// reaudit is set when a post-flight audits inputs equal to the last audited ones because
	// the record holds no result to repeat; the streak then does not count it.
	reaudit bool
}

// source returns the run's source for state st, the snapshot view of the task's store record,
// opened once per run.
func (c *controller) source(ctx context.Context, st *State) (source, error) {
	if c.src != nil {
		return c.src, nil
	}
	var snap gitscope.SnapshotStore
	if c.files != nil && c.files.st != nil && c.files.rec != nil {
		snap = c.files.st
	}
	src, err := builder{git: c.git}.sourceFor(ctx, st.BaselineRef, snap)
	if err != nil {
		return nil, err
	}
	c.src = src
	return src, nil
}

func (c *controller) now() time.Time {
	if c.clock != nil {
		return c.clock()
	}
	return time.Now()
}

// close releases the run's source, locks and store record.
func (c *controller) close() {
	if c.src != nil {
		c.src.Close()
	}
	c.files.close()
}

func (c *controller) warnf(format string, a ...any) {
	c.res.Warnings = append(c.res.Warnings, fmt.Sprintf(format, a...))
}

// Run executes run-task: the path, lock and state guards, then pre-flight, post-flight or
// completion as the state and Mode select. A *SpecPathError is a usage error; any other error is
// operational, and the returned Outcome, never nil, then has Outcome "error".
func Run(ctx context.Context, opts Options) (*Outcome, error) {
	return runTask(ctx, opts.ref(), opts)
}

// runTask is Run on the task r names, with the phase options of opts.
func runTask(ctx context.Context, r taskRef, opts Options) (*Outcome, error) {
	res := &Outcome{Outcome: OutcomeError, Phase: PhaseForMode(opts.Mode)}
	if opts.MaxIterations < 0 {
		return res, fmt.Errorf("--max-iterations must be >= 0, got %d", opts.MaxIterations)
	}
	c, ld, err := openTask(ctx, r, res, func(task Task) {
		if opts.Mode != ModeAuto {
			return
		}
		if _, err := os.Lstat(task.Abs(task.StateRel())); err == nil {
			// With state, run-task without a phase flag runs post-flight or completion, so an
			// early operational failure belongs to that phase, not to pre-flight.
			res.Phase = PhasePostflight
		}
	})
	if err != nil {
		return res, err
	}
	defer c.close()
	c.opts = opts
	out, err := c.dispatch(ctx, ld)
	if err == nil && out.Outcome == OutcomePostRefused && out.InputsFingerprint == "" {
		out.InputsFingerprint = refusalFingerprint(out.Line(), "")
	}
	if err == nil {
		err = c.syncCurrent(out)
	}
	if err == nil {
		// Every write checked the folder; a swap after the last one still fails the run.
		err = c.files.check()
	}
	if err != nil {
		res.Outcome = OutcomeError
		return res, err
	}
	return out, nil
}

// dispatch picks the phase from the authoritative state (the store's) and the mode.
func (c *controller) dispatch(ctx context.Context, ld *loaded) (*Outcome, error) {
	opts, task, res := c.opts, c.task, c.res
	st := ld.State
	if st != nil {
		res.Artifacts.State = task.StateRel()
		res.State = st
	}
	switch {
	case st == nil && ld.Mirror != nil && opts.Mode != ModePreOnly:
		out := c.refuse(PhasePostflight, OutcomePostRefused, MsgNoRecord+
			fmt.Sprintf(" (%s has none; the state.json in the task folder is not used)", c.files.storePath))
		out.Next = preflightNext(task, nil, 0)
		out.Next.Adopt = true
		return out, nil
	case st == nil && ld.Mirror != nil && opts.Adopt:
		return c.adopt(ctx, ld.Mirror)
	case st == nil && ld.Mirror != nil:
		c.warnf("%s has no controller record on this machine (%s); its state.json is replaced by a first pre-flight (rerun with --adopt to keep its baseline instead)", task.Dir, c.files.storePath)
		return c.preflight(ctx, nil)
	case opts.Adopt:
		return c.refuseAdopt(fmt.Sprintf("--adopt applies only to a task the controller store has no record for; %s has one (%s)", task.Name, c.files.storePath)), nil
	case st == nil && opts.Mode == ModePostOnly:
		return c.refusePreflight(fmt.Sprintf("no state for %s; run pre-flight first", task.Name), nil), nil
	case st == nil || opts.Mode == ModePreOnly:
		return c.preflight(ctx, st)
	case st.NextStep == NextRunPreflight:
		return c.refusePreflight("pre-flight is required: "+st.BlockingReason, st), nil
	case opts.Mode == ModeAuto && (st.Status == StatusHistoryReviewRequired || st.Status == StatusLearned):
		return c.completion(ctx, st)
	case st.Status == StatusLearned:
		return c.closedRead(ctx, st)
	}
	// A return to design (§6) is said in audit.md, whose text part is the printed result.
	return c.postflight(ctx, st)
}

// refusePreflight ends a post-flight with a refusal whose next step is pre-flight; st is nil
// without state.
func (c *controller) refusePreflight(msg string, st *State) *Outcome {
	out := c.refuse(PhasePostflight, OutcomePostRefused, msg)
	out.Next = preflightNext(c.task, st, c.opts.MaxIterations)
	return out
}

// preflightNext is the step "mastermind run-task <spec> --pre-only", with --force-iteration when
// st's iteration count has reached limit. limit 0 is no budget and st nil no state.
func preflightNext(t Task, st *State, limit int) Next {
	cmd := "mastermind run-task " + t.Spec + " --pre-only"
	if st != nil && limit > 0 && st.Iteration >= limit {
		cmd += " --force-iteration"
	}
	return Next{Step: NextRunPreflight, Run: cmd}
}

// clause is a pre-flight step as a refusal's line ends with it: "; next: <Run>", or for a task
// whose state.json can be adopted ". next: <Run>, with --adopt to keep that state.json's
// baseline".
func (n Next) clause() string {
	if n.Adopt {
		return ". next: " + n.Run + ", with --adopt to keep that state.json's baseline"
	}
	return "; next: " + n.Run
}

// Line is the one-line result as the --json "message", the hook and the gate say it: Message,
// followed by the next step of a post-flight refused until pre-flight runs.
func (o *Outcome) Line() string {
	if o.Outcome == OutcomePostRefused && o.Next.Step == NextRunPreflight {
		return o.Message + o.Next.clause()
	}
	return o.Message
}

// refuse ends the run with a refusal outcome and msg, changing nothing.
func (c *controller) refuse(phase Phase, outcome OutcomeKind, msg string) *Outcome {
	c.res.Phase, c.res.Outcome, c.res.Message = phase, outcome, msg
	return c.res
}

// writeState writes st to the controller store and then to the task's state.json mirror, and
// records it in the result.
func (c *controller) writeState(st *State) error {
	if err := c.files.saveState(st, c.now()); err != nil {
		return err
	}
	cp := *st
	c.res.State = &cp
	c.res.Artifacts.State = c.task.StateRel()
	return nil
}

// refusalFingerprint identifies a post-flight refusal: the SHA-256 of its message and, when the
// refusal was decided from the spec's bytes, their hash. An unchanged refusal has the same one.
func refusalFingerprint(msg, specSHA string) string {
	return fsx.SHA256Hex([]byte("mastermind-refusal v1\nspec " + specSHA + "\nmessage " + msg + "\n"))
}

// AllFindings yields every finding of the outcome, Findings and PathRuns, in audit order.
func (o *Outcome) AllFindings() iter.Seq[finding.Finding] { return audit.All(o.Findings, o.PathRuns) }

// FindingCount is the number of findings AllFindings yields.
func (o *Outcome) FindingCount() int { return audit.Len(o.Findings, o.PathRuns) }
