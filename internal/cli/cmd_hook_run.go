package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/harness"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/scaffold"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// HookRunOptions holds the flags of `mastermind hook run`.
type HookRunOptions struct {
	IO       *IOStreams
	Harness  string
	Task     string
	FailOn   string
	FailOpen bool
	Root     string
	// Timeout is the harness's timeout for this hook (--timeout); the run stops itself
	// hookReserve(Timeout) before it.
	Timeout time.Duration
	// Now is the clock of the loop-guard record; time.Now when nil.
	Now func() time.Time
}

const hookRunLong = `The command a Claude Code or Codex Stop / SubagentStop hook runs (integrations.md §2). It
reads the hook's JSON from stdin, runs the post-flight of the current task, and prints the
hook's decision on stdout with exit status 0:

  {}                                       allow the stop: the task holds (or drifts, unless
                                           --fail-on drift), or there is no current task
  {"decision":"block","reason":"..."}      keep the agent working: the reason is the verdict
                                           line, up to 20 findings and the next step
  {"systemMessage":"..."}                  allow, with a note for the user (loop guard,
                                           --fail-open, no git repository)

Task: --task (a spec or task folder, relative to the hook's cwd, or a folder name), else the
current task: the controller store's (an approved pre-flight sets it, completion clears it),
which .mastermind/current only mirrors; a pointer that says otherwise is a warning naming both.
No task means nothing to audit: allow. A folder with no git repository (none there or above it) has no
task either: allow, with a systemMessage saying so.

Repository: --root, else (Claude Code) the repository of the project directory
$CLAUDE_PROJECT_DIR, else that of the hook input's cwd, else of the current directory. Claude
Code's cwd follows the agent's cd, so it wins over the project only when it is a linked worktree
of the project's repository (a claude --worktree session): an agent that cds into a repository it
created, or out of the work tree, is still audited in the project. Codex gives the session's
working directory as cwd (its commands do not move it) and no project directory: cwd decides.

Loop guard: when the input's stop_hook_active is true and the audited inputs (spec, report and
changed set) are the same as at the last block, the stop is allowed and the task goes back to the
planner (next_step: planner_review), so an agent that cannot fix its work hands back instead of
looping. The record is hook-block.json in the task's controller-store folder; nothing is written
in the work tree.

Fail closed: malformed hook JSON, an unreadable controller store, a repository that is there but cannot be
used (a broken .git, a bare repository), git failing or any other operational error blocks with
the error text. --fail-open allows the stop instead (with a systemMessage).

Deadline: --timeout is the harness's timeout for this hook, the "timeout" of its entry in
.claude/settings.json or .codex/hooks.json (hook install writes both; without the flag, 600s, both
harnesses' default). The run stops itself shortly before it (10s, or a tenth of a shorter
timeout), killing a verify command still running, and answers as for an operational error,
saying the run was cut short and how to give the hook more time: a harness that times a hook out
discards its output and lets the stop through unaudited.

Usage errors: a mistake in the hook's own command line (an unknown flag, --harness other than
claude or codex, --fail-on other than broken or drift, a --timeout that is not a positive
duration, arguments) is not exit 2, which both harnesses treat as a block that feeds the usage
text to the agent on every stop. It prints {"systemMessage":"..."} naming the mistake and the
settings file to fix, lets the stop through, and exits 0.

Exit status:
  0  a decision was printed (allow or block), a usage error included
  3  the decision could not be written to stdout`

// NewCmdHookRun builds `mastermind hook run --harness claude|codex [--task SPEC] [--fail-on
// broken|drift] [--fail-open] [--root DIR]`. runF replaces the run function in tests.
func NewCmdHookRun(io *IOStreams, runF func(*HookRunOptions) error) *cobra.Command {
	opts := &HookRunOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "run --harness claude|codex [--task SPEC] [--fail-on broken|drift] [--fail-open]",
		Short: "Run the post-flight as a Claude Code or Codex stop hook",
		Long:  hookRunLong,
		Example: `  # .claude/settings.json: {"hooks":{"Stop":[{"hooks":[{"type":"command","command":"mastermind hook run --harness claude"}]}]}}
  echo '{"hook_event_name":"Stop","cwd":".","stop_hook_active":false}' | mastermind hook run --harness claude
  mastermind hook run --harness codex --task .mastermind/tasks/001-retry/spec.md --fail-on drift`,
		// Usage errors are decisions (hookUsageError), never exit 2.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) > 0:
				return hookUsageError(opts, fmt.Sprintf("mastermind hook run takes no arguments, got %q", args[0]))
			case opts.Harness == "":
				return hookUsageError(opts, "--harness is required: claude or codex")
			case opts.Harness != harness.Claude && opts.Harness != harness.Codex:
				return hookUsageError(opts, fmt.Sprintf("--harness must be claude or codex, got %q", opts.Harness))
			case opts.FailOn != "broken" && opts.FailOn != "drift":
				return hookUsageError(opts, fmt.Sprintf("--fail-on must be broken or drift, got %q", opts.FailOn))
			case opts.Timeout < time.Second:
				return hookUsageError(opts, fmt.Sprintf("--timeout must be at least 1s, got %s", opts.Timeout))
			}
			if runF != nil {
				return runF(opts)
			}
			return runHookRun(cmd.Context(), opts)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return hookUsageError(opts, err.Error())
	})
	f := cmd.Flags()
	f.StringVar(&opts.Harness, "harness", "", "the harness running the hook: claude or codex (required)")
	f.StringVar(&opts.Task, "task", "", "the task to audit: a spec, a task folder or a folder name (default: the current task)")
	f.StringVar(&opts.FailOn, "fail-on", "broken", "broken or drift: the lowest verdict that blocks the stop")
	f.BoolVar(&opts.FailOpen, "fail-open", false, "allow the stop when the audit cannot run (default: block)")
	f.StringVar(&opts.Root, "root", "", "repository root (default: $CLAUDE_PROJECT_DIR's repository under Claude Code, else the hook input's cwd, else the current directory)")
	f.DurationVar(&opts.Timeout, "timeout", harness.DefaultTimeout, "the harness's timeout for this hook (its entry's \"timeout\"); the run stops itself just before it")
	for name, vals := range map[string][]string{"harness": {harness.Claude, harness.Codex}, "fail-on": {"broken", "drift"}} {
		_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return vals, cobra.ShellCompDirectiveNoFileComp
		})
	}
	return cmd
}

func runHookRun(ctx context.Context, opts *HookRunOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	limit := opts.limit()
	ctx, cancel := context.WithTimeout(ctx, limit-hookReserve(limit))
	defer cancel()
	d := hookDecide(ctx, opts)
	_, err := opts.IO.Out.Write(d.JSON())
	return err
}

// limit is the harness's timeout for this hook: --timeout, or the harnesses' default when unset.
func (opts *HookRunOptions) limit() time.Duration {
	if opts.Timeout <= 0 {
		return harness.DefaultTimeout
	}
	return opts.Timeout
}

// hookReserve is the time the hook keeps before the harness's timeout to print its decision:
// 10s, or a tenth of a timeout under 100s.
func hookReserve(timeout time.Duration) time.Duration {
	return min(10*time.Second, timeout/10)
}

// hookUsageError prints the decision for a mistake in the hook's command line, which lets the stop
// through with a note, and the mistake on stderr.
func hookUsageError(opts *HookRunOptions, msg string) error {
	fmt.Fprintf(opts.IO.ErrOut, "mastermind: %s\n", textsafe.Escape(msg))
	_, err := opts.IO.Out.Write(harness.DecideUsageError(msg, opts.Harness).JSON())
	return err
}

// cutShortError is the error of a run its own deadline stopped.
func cutShortError(opts *HookRunOptions) error {
	limit := opts.limit()
	return fmt.Errorf("the run was cut short at the hook's own deadline (%s, %s before the harness's timeout of %s, --timeout) and nothing of it was recorded; the spec's verify commands need more time than the hook has: run `mastermind hook install --harness %s` again to write a timeout that covers them, or raise \"timeout\" in %s and --timeout in the hook command together",
		limit-hookReserve(limit), hookReserve(limit), limit, opts.Harness, harness.SettingsRel(opts.Harness))
}

// hookDecide computes the decision; it never fails, every error becomes a decision.
func hookDecide(ctx context.Context, opts *HookRunOptions) harness.Decision {
	hopts := harness.Options{FailOnDrift: opts.FailOn == "drift", FailOpen: opts.FailOpen}
	in, err := harness.ParseInput(opts.IO.In)
	if err != nil {
		return harness.DecideError("", err, hopts)
	}
	repo, dir, err := hookRepo(opts, in)
	if errors.Is(err, gitscope.ErrNoRepository) {
		return harness.AllowNoRepository(dir) // no repository, so no task
	}
	if err != nil {
		return harness.DecideError("", err, hopts)
	}
	root := repo.Root()
	spec, task, err := hookTaskSpec(repo, in.Cwd, opts.Task, opts.IO.ErrOut)
	if err != nil {
		return harness.DecideError(task, err, hopts)
	}
	if spec == "" {
		return harness.Allow() // no current task: nothing to audit
	}
	tr, note := hookTranscript(root, in, opts.Harness)
	out, err := hookPostflight(ctx, repo, spec, tr)
	if err != nil && ctx.Err() != nil {
		err = cutShortError(opts)
	}
	if err != nil {
		return harness.WithNote(harness.DecideError(task, err, hopts), note)
	}
	// The record lives in the task's controller-store folder (trust-model.md I4).
	recFile, closeRec, err := openHookRecord(repo, out.Task)
	if err != nil {
		fmt.Fprintf(opts.IO.ErrOut, "mastermind: warning: loop-guard record unavailable: %s\n", textsafe.Escape(err.Error()))
		return harness.WithNote(harness.Decide(in, out, nil, hopts), note)
	}
	defer closeRec()
	last, warn := harness.LoadBlockRecord(recFile)
	if warn != nil {
		fmt.Fprintf(opts.IO.ErrOut, "mastermind: warning: %s\n", textsafe.Escape(warn.Error()))
	}
	d := harness.WithNote(harness.Decide(in, out, last, hopts), note)
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	switch {
	case d.Record != nil:
		err = harness.SaveBlockRecord(recFile, *d.Record, now())
	case d.HandBack && last != nil:
		rec := *last
		rec.HandedBack, rec.NextStep = true, postflight.NextPlannerReview
		err = harness.SaveBlockRecord(recFile, rec, now())
	}
	if err != nil {
		// The decision stands; only the loop guard loses its memory, so it blocks again.
		fmt.Fprintf(opts.IO.ErrOut, "mastermind: warning: loop-guard record not written: %s\n", textsafe.Escape(err.Error()))
	}
	return d
}

// claudeProjectDirEnv is the project directory Claude Code sets for the hook commands it runs.
const claudeProjectDirEnv = "CLAUDE_PROJECT_DIR"

// hookRepo opens the repository the hook audits and names the directory it was found from, in the
// order of integrations.md §2: --root, the project directory, then the input's cwd. The cwd wins
// over the project only as a linked worktree of the project's repository.
func hookRepo(opts *HookRunOptions, in harness.Input) (*gitscope.Repo, string, error) {
	if opts.Root != "" {
		r, err := openRepoAt(opts.Root)
		return r, opts.Root, err
	}
	cwd := in.Cwd
	if cwd == "" {
		d, err := os.Getwd()
		if err != nil {
			return nil, "", err
		}
		cwd = d
	}
	var p *gitscope.Repo
	if opts.Harness == harness.Claude {
		if proj := os.Getenv(claudeProjectDirEnv); proj != "" {
			var err error
			if p, err = openRepoAt(proj); err != nil && !errors.Is(err, gitscope.ErrNoRepository) {
				return nil, proj, err
			}
		}
	}
	c, err := openRepoAt(cwd)
	if p == nil || (err == nil && c.Root() != p.Root() && c.SameRepository(p)) {
		return c, cwd, err
	}
	return p, p.Root(), nil
}

// openRepoAt opens the repository containing dir.
func openRepoAt(dir string) (*gitscope.Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return gitscope.Discover(abs)
}

// hookTaskSpec resolves the task to audit: flag as postflight.ResolveTask takes it, else the
// controller store's current task. It returns the absolute spec path and the task name, or "" for
// both when there is no task.
func hookTaskSpec(repo *gitscope.Repo, cwd, flag string, warn io.Writer) (spec, task string, err error) {
	root := repo.Root()
	if flag == "" {
		task, err = readCurrentTask(repo, warn)
		if err != nil || task == "" {
			return "", "", err
		}
		return filepath.Join(root, filepath.FromSlash(specForTask(task))), task, nil
	}
	p := flag
	if !filepath.IsAbs(p) && !scaffold.TaskNamePattern.MatchString(p) { // a folder name has no "/"
		base := cwd
		if base == "" {
			if base, err = os.Getwd(); err != nil {
				return "", "", err
			}
		}
		p = filepath.Join(base, p)
	}
	t, err := postflight.ResolveTask(root, p)
	if err != nil {
		return "", "", err
	}
	return t.Abs(t.Spec), t.Name, nil
}

// hookPostflight runs the post-flight of spec in-process, as `run-task <spec> --post-only` with
// its default flags would (runTaskIn), and turns its outcome into the hook's. An operational
// failure, a panic included, is an error.
func hookPostflight(ctx context.Context, repo *gitscope.Repo, spec string, tr *postflight.TranscriptOption) (out harness.Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = harness.Outcome{}, fmt.Errorf("internal error (a bug; please report it): %v", r)
		}
	}()
	opts := &RunTaskOptions{Spec: spec, PostOnly: true, MaxIterations: postflight.DefaultMaxIterations, Timeout: DefaultTimeout}
	base := ctx
	ctx, cancel := withRunDeadline(ctx, opts.Timeout)
	defer cancel()
	res, err := runTaskIn(ctx, base, repo, opts, tr, nil)
	if err != nil {
		return harness.Outcome{}, err
	}
	return hookOutcome(res)
}

// hookOutcome is a post-flight outcome as the hook decides on it: its verdict, its reason when
// the verdict line does not say it all, and the findings as run-task --json lists them. An
// outcome a post-flight does not end with is an error.
func hookOutcome(o *postflight.Outcome) (harness.Outcome, error) {
	// The loop guard compares the fingerprint of the inputs the post-flight decided from.
	out := harness.Outcome{Task: o.Task.Name, Audit: o.Artifacts.Audit, InputsFingerprint: o.InputsFingerprint}
	if !o.VerdictLine {
		out.Reason = o.Line()
	}
	switch o.Outcome {
	case postflight.OutcomePostHeld:
		out.Verdict = harness.VerdictHeld
	case postflight.OutcomeCompleted:
		// The post-flight of a learned task reads its closed record: its stop is allowed while
		// its inputs are those it closed on. Work since is no task's, so the agent is told, and
		// the loop guard hands back once nothing changes.
		out.Verdict = harness.VerdictHeld
		if o.State != nil && o.InputsFingerprint != o.State.InputsFingerprint {
			out.Verdict = harness.VerdictRefused
		}
	case postflight.OutcomePostDrift:
		out.Verdict, out.Accepted = harness.VerdictDrift, o.Accepted
	case postflight.OutcomePostBroken:
		out.Verdict = harness.VerdictBroken
	case postflight.OutcomePostRefused:
		out.Verdict = harness.VerdictRefused
	case postflight.OutcomePreReady, postflight.OutcomePreRefused, postflight.OutcomeHistoryPending,
		postflight.OutcomeError, postflight.OutcomeAccepted, postflight.OutcomeAcceptRefused:
		return out, errors.New(o.Line())
	default:
		return out, errors.New(o.Line())
	}
	for f := range o.AllFindings() {
		if o.Phase == postflight.PhasePostflight {
			// The audit shape of run-task --json: no position of its own.
			f = finding.Finding{Rule: f.Rule, Class: f.Class, Message: f.Text(), Fields: f.Fields}
		}
		out.Findings = append(out.Findings, f.Expand())
	}
	for _, f := range o.ReportViolations {
		out.Findings = append(out.Findings, f.Expand())
	}
	return out, nil
}
