package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/scaffold"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
	"github.com/spf13/cobra"
)

// RunTaskOptions holds the flags and dependencies of `mastermind run-task`.
type RunTaskOptions struct {
	IO             *IOStreams
	Spec           string
	PreOnly        bool
	PostOnly       bool
	Reset          bool
	Adopt          bool
	MaxIterations  int
	ForceIteration bool
	FailOn         string
	JSON           bool
	// Format is --format: "" (text unless --json), or one of render.Formats.
	Format string
	Root   string
	// Wait is --wait: how long to wait for a busy controller lock (0: exit 3 at once).
	Wait time.Duration
	// Timeout is --timeout: one deadline for the whole run (trust-model.md I5).
	Timeout time.Duration
	// Current takes the spec of the controller store's current task instead of an argument.
	Current bool
	// Now is the clock (started_at, lesson dates); time.Now when nil.
	Now func() time.Time
	// RunVerify (--run-verify) runs every declared verify command at post-flight; RerunVerify
	// (--rerun-verify) runs them again even when receipts for the same inputs exist.
	RunVerify, RerunVerify bool
	// Transcript (--transcript) is a harness transcript post-flight reads as evidence, Harness
	// (--harness) its format: claude (default) or codex (docs/design/transcripts.md).
	Transcript, Harness string
}

// DefaultTimeout is the default --timeout of run-task and gate (trust-model.md I5).
const DefaultTimeout = 120 * time.Second

const runTaskLong = `Run the task lifecycle for one spec (.mastermind/tasks/<NNN>-<slug>/spec.md). The task is given as
its spec, its task folder (.mastermind/tasks/<NNN>-<slug>) or its folder name (<NNN>-<slug>).

Without state, run-task runs pre-flight: it validates the spec, records the baseline (the HEAD
commit, or the empty tree in a repository without commits), writes state.json as
approved/run_executor, makes it the current task (.mastermind/current mirrors it) and prints the hand-off for the
executor, which ends with the command that prints the executor's brief. With state, it runs post-flight:
it checks that the spec is unchanged since approval, validates executor-report.md, computes what
really changed in git since the baseline (committed, staged, unstaged and untracked files alike),
compares that with the report and the spec's declared scope and verification commands, and
writes audit.md and state.json with the verdict held, drift or broken. A held verdict also writes
release notes (.mastermind/releases/<task>.md) and a pending history-review.md.

With --pre-only and existing state, run-task runs a re-pre-flight: the baseline is kept and the
iteration count grows by 1, up to --max-iterations. After a held verdict and a completed
history-review.md, run-task without a phase flag closes the task (learned).

The controller's records live outside the work tree, in the controller store
($MASTERMIND_STATE_DIR, else $XDG_STATE_HOME/mastermind, else ~/.local/state/mastermind):
every decision is made from the store, and the task folder's state.json and audit.md are
mirrors. A mirror someone else rewrote is reported as controller_record_tampered and rewritten
from the store; a task folder with a state.json but no store record is refused (exit 1) until
pre-flight runs on this machine (--adopt keeps that state.json's baseline when it is an ancestor
of HEAD and its spec hash is the current spec's). mastermind status prints the store path.

mastermind never runs the executor, and never runs a command that a report or the repository's
configuration names. At post-flight it runs the spec's own declared verify commands that say
run: true (all of them with --run-verify): each through sh -c (cmd /C on Windows) in the
repository root, stdin the null device, without GIT_* and MASTERMIND_* in the environment, in its
own process group killed at its timeout (default 10m) and on Ctrl-C, after the changed set is
computed and before the verdict. The receipts (exit code, test counts, output tail and hash) are
audited against the report and kept in the controller store; a post-flight on the same inputs
reuses them. A test run executes the repository's code: run post-flight with verification inside
the executor's sandbox or in CI.

--timeout sets one deadline for the whole run (default 2m): a run that has not finished by then
stops with exit 3, so nothing in the repository can stretch it. Controller-run verify commands
are outside it, each bounded by its own timeout.

--transcript PATH (post-flight) reads the harness's own session transcript as evidence of what
the agent ran (--harness claude, the default, for a Claude Code session file, whose subagent files
beside it are read too; codex for a Codex rollout): a report row claiming a pass whose last run in
the transcript failed is broken, a claimed run the transcript never shows is drift, an edit tool
writing outside the repository is drift, and a spec command with run: witnessed that the
transcript shows passing on the unchanged inputs is not run again (docs/design/transcripts.md).
Only entries after the task's pre-flight count. A transcript that is missing, a symbolic link,
unreadable or of an unknown harness version changes nothing (audit.md says so); one inside the
work tree is refused with exit 1.

--current runs the current task instead of a spec argument: the controller store's (an approved
pre-flight sets it, completion clears it), which .mastermind/current only mirrors; a pointer that
says otherwise is a warning naming both.

--format text (default), json (the same as --json), github (::error/::warning annotations, at
most 10 of each, then a ::notice with the number omitted, then the text), sarif (a SARIF 2.1.0
log), rdjson (reviewdog's rdjson) or markdown (a job summary); see integrations.md §4.

Exit status:
  0  pre-flight approved; post-flight held; drift (unless --fail-on drift); history review pending;
     task completed (learned), or already learned
  1  broken; executor report rejected; spec changed since approval; pre-flight refused or required;
     iteration budget exhausted; --post-only without state; drift with --fail-on drift; audited
     inputs changed since the held audit (rerun post-flight); no controller record for a task
     that has a state.json; an --adopt that cannot adopt; a --transcript inside the work tree
  2  usage: bad flags or arguments, conflicting phase flags, a task that is not a spec, task
     folder or folder name of the layout
  3  operational: not a git repository, git failing, controller lock busy (after --wait, when
     given), unreadable or corrupt state.json (never overwritten), the controller store
     unwritable, full or corrupt, the task folder moved or replaced by a symbolic link during the
     run, I/O error, a claim this build cannot check (a Python, JavaScript, TypeScript, Rust or
     Java file in a build without cgo: no verdict is written), a verify command that cannot start,
     interrupted (Ctrl-C) during a verify command, --timeout reached, a FIFO or device where git
     reads, the object store modified since pre-flight, no pre-flight snapshot`

// NewCmdRunTask builds `mastermind run-task`. runF replaces the run function in tests.
func NewCmdRunTask(io *IOStreams, runF func(*RunTaskOptions) error) *cobra.Command {
	opts := &RunTaskOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "run-task (<spec> | --current) [--pre-only [--adopt]|--post-only|--reset] [flags]",
		Short: "Run pre-flight, post-flight or completion for one task",
		Long:  runTaskLong,
		Example: `  mastermind run-task .mastermind/tasks/014-retry-helper/spec.md --pre-only
  mastermind run-task .mastermind/tasks/014-retry-helper/spec.md --post-only
  mastermind run-task .mastermind/tasks/014-retry-helper/spec.md --post-only --fail-on drift --json
  mastermind run-task .mastermind/tasks/014-retry-helper/spec.md --post-only --run-verify
  mastermind run-task --current --post-only --format sarif`,
		Args: specArgs,
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeTaskSpecs(opts.Root), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.Current && len(args) == 1:
				return usageErrorf("give either a spec or --current, not both")
			case !opts.Current && len(args) == 0:
				return usageErrorf("%s takes 1 argument(s), got 0 (a spec path, or --current for the task in %s)", cmd.CommandPath(), currentRel)
			case len(args) == 1:
				opts.Spec = args[0]
			}
			if opts.Adopt && !opts.PreOnly && !opts.Reset {
				return usageErrorf("--adopt needs --pre-only (it applies to the first pre-flight of a task without a controller record)")
			}
			for _, other := range []string{"pre-only", "reset", "force-iteration"} {
				if err := mutuallyExclusive(cmd, "post-only", other); err != nil {
					return err
				}
				for _, v := range []string{"run-verify", "rerun-verify"} {
					if other != "force-iteration" {
						if err := mutuallyExclusive(cmd, v, other); err != nil {
							return usageErrorf("--%s belongs to post-flight and cannot be used with --%s", v, other)
						}
					}
				}
			}
			if opts.FailOn != "broken" && opts.FailOn != "drift" {
				return usageErrorf("--fail-on must be broken or drift, got %q", opts.FailOn)
			}
			if err := transcriptFlags(cmd, opts); err != nil {
				return err
			}
			if opts.MaxIterations < 0 {
				return usageErrorf("--max-iterations must be 0 or more, got %d", opts.MaxIterations)
			}
			if opts.Wait < 0 {
				return usageErrorf("--wait must not be negative, got %s", opts.Wait)
			}
			if opts.Timeout <= 0 {
				return usageErrorf("--timeout must be a positive duration such as 120s, got %s", opts.Timeout)
			}
			if err := formatFlag(cmd, &opts.Format, &opts.JSON); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runRunTask(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.PreOnly, "pre-only", false, "run pre-flight only (a re-pre-flight with existing state: same baseline, iteration + 1)")
	f.BoolVar(&opts.Reset, "reset", false, "synonym of --pre-only")
	f.BoolVar(&opts.Adopt, "adopt", false, "with --pre-only, for a task whose state.json the controller store has no record of: keep that state.json's baseline when it is an ancestor of HEAD and its spec hash matches")
	f.BoolVar(&opts.PostOnly, "post-only", false, "run post-flight only")
	f.IntVar(&opts.MaxIterations, "max-iterations", postflight.DefaultMaxIterations, "pre-flight budget; 0 disables it")
	f.BoolVar(&opts.ForceIteration, "force-iteration", false, "run one pre-flight beyond the budget")
	f.StringVar(&opts.FailOn, "fail-on", "broken", "broken or drift: the lowest verdict that exits 1")
	f.BoolVar(&opts.JSON, "json", false, "print the JSON envelope (schema_version 1) on stdout instead of text")
	f.StringVar(&opts.Format, "format", "", "output format: text (default), json (as --json), github, sarif, rdjson or markdown")
	f.StringVar(&opts.Root, "root", "", "repository root (default: discovered from the current directory)")
	f.DurationVar(&opts.Wait, "wait", 0, "wait up to this long (e.g. 30s, 2m) for a busy controller lock instead of exit 3")
	f.BoolVar(&opts.Current, "current", false, "run the current task (the controller store's, mirrored in .mastermind/current)")
	f.BoolVar(&opts.RunVerify, "run-verify", false, "post-flight runs every declared verify command, as if each had run: true")
	f.BoolVar(&opts.RerunVerify, "rerun-verify", false, "post-flight runs the verify commands again even when receipts for the same inputs exist")
	f.DurationVar(&opts.Timeout, "timeout", DefaultTimeout, "one deadline for the whole run")
	f.StringVar(&opts.Transcript, "transcript", "", "post-flight reads this harness transcript (outside the work tree) as evidence of what the agent ran")
	f.StringVar(&opts.Harness, "harness", "", "the --transcript's format: claude (default) or codex")
	return cmd
}

// completeTaskSpecs lists the task specs under .mastermind/tasks/ for shell completion, as paths
// relative to the current directory. Any failure completes nothing.
func completeTaskSpecs(root string) []string {
	repo, err := openRepo(root)
	if err != nil {
		return nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil
	}
	var out []string
	for _, spec := range scaffold.TaskSpecs(repo.Root()) {
		rel, err := filepath.Rel(wd, filepath.Join(repo.Root(), filepath.FromSlash(spec)))
		if err == nil {
			out = append(out, rel)
		}
	}
	return out
}

// openRepo opens the repository at root, or discovers it from the current directory.
func openRepo(root string) (*gitscope.Repo, error) {
	if root != "" {
		abs, err := filepath.Abs(root)
		if err != nil {
			return nil, err
		}
		return gitscope.Open(abs)
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return gitscope.Discover(wd)
}

func runRunTask(ctx context.Context, opts *RunTaskOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	baseCtx := ctx
	ctx, cancel := withRunDeadline(ctx, opts.Timeout)
	defer cancel()
	mode := opts.mode()
	repo, err := openRepo(opts.Root)
	if err != nil {
		// The envelope names the phase the flags selected (§13.2), not always pre-flight.
		return runTaskError(opts, &postflight.Outcome{Outcome: postflight.OutcomeError, Phase: postflight.PhaseForMode(mode)}, err)
	}
	if opts.Current {
		spec, err := currentSpec(repo, opts.IO.ErrOut)
		var ue *UsageError
		if errors.As(err, &ue) {
			return err
		}
		if err != nil {
			return runTaskError(opts, &postflight.Outcome{Outcome: postflight.OutcomeError, Phase: postflight.PhaseForMode(mode)}, err)
		}
		opts.Spec = spec
	}
	tr, err := transcriptOption(repo.Root(), opts)
	if err != nil {
		return err
	}
	progress := newVerifyProgress(opts.IO)
	res, err := runTaskIn(ctx, baseCtx, repo, opts, tr, progress.callback())
	progress.finish()
	printWarnings(opts.IO, res.Warnings)
	if err != nil {
		return runTaskError(opts, res, err)
	}
	code := runTaskExitCode(res.Outcome, opts.FailOn == "drift" && !res.Accepted)
	if err := show(opts.IO, outputFormat(opts.JSON, opts.Format), runTaskView{o: res, exit: code}); err != nil {
		return err
	}
	if code == ExitOperational {
		return &ExitError{Code: code, Msg: res.Line()}
	}
	return resultError(code, res.Line())
}

// runTaskIn runs the lifecycle of opts (its spec resolved) on repo and returns the outcome with
// the operational error that ended the run, if any; the outcome is never nil. ctx carries the
// run's --timeout deadline and base the caller's context without it, which verify commands run
// under (trust-model.md I5); Ctrl-C and SIGTERM cancel both. run-task and the stop hook call it.
func runTaskIn(ctx, base context.Context, repo *gitscope.Repo, opts *RunTaskOptions, tr *postflight.TranscriptOption, progress func(verifyrun.Progress)) (*postflight.Outcome, error) {
	mode := opts.mode()
	// Ctrl-C and SIGTERM cancel the run: a verify command's process group is killed and
	// post-flight ends as an operational error, recording nothing of the interrupted run.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	base, stopBase := signal.NotifyContext(base, os.Interrupt, syscall.SIGTERM)
	defer stopBase()
	res, err := postflight.Run(ctx, postflight.Options{
		Git: repo, SpecArg: opts.Spec, Mode: mode, MaxIterations: opts.MaxIterations,
		ForceIteration: opts.ForceIteration, Now: opts.Now, Wait: opts.Wait,
		RunVerify: opts.RunVerify, RerunVerify: opts.RerunVerify, VerifyProgress: progress,
		Adopt: opts.Adopt, VerifyContext: base, RestDeadline: runDeadline(opts.Timeout),
		Transcript: tr,
	})
	if errors.Is(err, verifyrun.ErrCanceled) {
		err = fmt.Errorf("interrupted while a verify command ran: its process group was killed and nothing of the run was recorded; the task stays audit_required, rerun post-flight (%w)", err)
	}
	return res, err
}

// mode is the lifecycle mode the phase flags select.
func (opts *RunTaskOptions) mode() postflight.Mode {
	switch {
	case opts.PostOnly:
		return postflight.ModePostOnly
	case opts.PreOnly || opts.Reset:
		return postflight.ModePreOnly
	}
	return postflight.ModeAuto
}

// runTaskError maps an error from the lifecycle to its exit code. For an operational failure it
// prints the error envelope or annotation of the chosen format.
func runTaskError(opts *RunTaskOptions, res *postflight.Outcome, err error) error {
	var spe *postflight.SpecPathError
	if errors.As(err, &spe) {
		return &UsageError{Msg: err.Error()}
	}
	msg := deadlineMessage(err, opts.Timeout)
	if errors.Is(err, gitscope.ErrNotRepository) {
		msg = strings.TrimSpace(msg)
	}
	if res == nil {
		res = &postflight.Outcome{}
	}
	_ = show(opts.IO, outputFormat(opts.JSON, opts.Format), runTaskView{o: res, exit: ExitOperational, err: err, msg: msg})
	return &ExitError{Code: ExitOperational, Msg: msg, Err: err}
}

// withRunDeadline applies --timeout to the whole run, DefaultTimeout when it is unset.
func withRunDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, runDeadline(d))
}

// runDeadline is --timeout, DefaultTimeout when unset.
func runDeadline(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return d
}

// deadlineMessage is err's message, saying so when the --timeout deadline ended the run.
func deadlineMessage(err error, d time.Duration) string {
	if d <= 0 {
		d = DefaultTimeout
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("the run did not finish within --timeout %s and was stopped (%s); find what is slow (a git command on a huge repository) or raise --timeout", d, err)
	}
	return err.Error()
}
