package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/harness"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/scaffold"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// NewCmdHook builds the `mastermind hook` command group.
func NewCmdHook(io *IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Wire mastermind into git hooks and agent-harness stop hooks",
		Long: `Commands that wire mastermind into git hooks (a pre-push hook running the gate) and into
Claude Code or Codex stop hooks (the post-flight of the current task when the agent stops).

Exit status: see the subcommands.`,
		Example: "  mastermind hook install\n  mastermind hook install --harness claude --subagent\n  mastermind hook run --harness codex < hook-input.json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(NewCmdHookInstall(io, nil), NewCmdHookRun(io, nil))
	return cmd
}

// HookInstallOptions holds the flags of `mastermind hook install`.
type HookInstallOptions struct {
	IO      *IOStreams
	Root    string
	Force   bool
	FailOn  string
	Harness string // "git" (default), "claude" or "codex"
	// Subagent also installs a SubagentStop hook (claude, codex).
	Subagent bool
	// FailOpen adds --fail-open to the installed harness hook command.
	FailOpen bool
}

const hookInstallLong = `--harness git (the default): write a git pre-push hook that gates exactly the commits being
pushed. git passes the hook one line per pushed ref on stdin ("<local ref> <local sha> <remote
ref> <remote sha>"); for each, the hook runs the gate against a protected base (trust-model.md §5):
  mastermind gate --base <remote sha> --head <local sha> --fail-on drift
(with --fail-on broken, without --fail-on drift: only broken tasks block). A deleted ref is
skipped; a new branch (remote sha of zeros) is gated against the remote's default branch
(refs/remotes/<remote>/HEAD, else <remote>/main, else <remote>/master; none found blocks the
push); a remote sha this repository does not have blocks the push until you fetch. The work
tree is never consulted: uncommitted files neither block a push nor excuse one, and commits
that are not pushed are not gated. A failing gate blocks the push. The hook runs $MASTERMIND
when set, otherwise mastermind from PATH, and blocks the push when neither is found.

The hooks directory is the one git uses, as git itself reports it (git rev-parse --git-path hooks,
so git evaluates every configuration file, include and includeIf): core.hooksPath when set (a
relative path is taken from the work-tree root), otherwise the hooks folder of the common git
directory, which linked worktrees share. It is created when missing. GIT_CONFIG_GLOBAL,
GIT_CONFIG_SYSTEM and GIT_CONFIG_NOSYSTEM are honoured; other GIT_* variables are ignored. git
must be on PATH.

The hook is written atomically with mode 0755. It carries the marker comment
"# mastermind-hook: pre-push": running install again leaves an identical hook alone ("already
installed") and rewrites an older (v1, which gated the work tree) or differently configured one of
ours. An existing hook without the marker is refused unless --force replaces it. A symbolic link or other non-regular file at the
hook path is always refused, and no symlinked directory between the work tree (or git directory)
and the hook is followed.

--harness claude or --harness codex: merge a Stop hook (with --subagent also a SubagentStop hook)
running "mastermind hook run --harness H" into .claude/settings.json or .codex/hooks.json at the
repository root (integrations.md §2). --fail-on drift and --fail-open are passed on to the hook
command; for these harnesses --fail-on defaults to broken. The SubagentStop entry has no
matcher: every subagent's stop audits the current task, so use --subagent where the subagents
are the executors (add a matcher on agent_type by hand to narrow it; install keeps it). Every
existing key, matcher group and hook is kept; a handler of ours ("mastermind hook run …") is
updated in place, never duplicated, so running install again is idempotent. A file that is not valid JSON (comments
included), has duplicate keys or an unexpected "hooks" shape is refused and left unchanged. The
file is written atomically; a symbolic link at the file or its directory is refused. --force
applies to --harness git only. Codex runs project hooks only when hooks are enabled and the
project is trusted. Install before pre-flight and commit the file: it is a work-tree file, so a
change after a task's baseline counts as that task's executor's change. When the file changes
while tasks are open, install warns (stderr) naming them and what to do.

The entry's "timeout" (seconds; both harnesses' default is 600) covers the verify budget: the
largest sum of one open task's run: true verify command timeouts, plus 3m for the audit and the
hook's 10s reserve, and never less than 600. The command gets the same value as --timeout, so
hook run stops itself before the harness would kill it. With no open task (or none running a
command) it is 600, said on stderr with how to change it: run install again after a spec changes
its verify commands, or raise "timeout" and --timeout together by hand. A larger timeout already
on our handler is kept.

Exit status:
  0  the hook was installed, updated, or already installed
  1  refused: an existing hook that mastermind did not write (use --force), a symbolic link or
     non-regular file at the hook path, or a settings file that is not valid JSON or not of the
     documented shape
  2  usage error (unknown flag, --fail-on other than broken or drift, --harness other than git,
     claude or codex, --subagent or --fail-open with --harness git, --force with claude or
     codex, arguments given)
  3  operational: not a git repository, no git on PATH or git failing (for example on an
     unreadable configuration file), a symlinked hooks directory, I/O error`

// NewCmdHookInstall builds `mastermind hook install [--root DIR] [--force] [--fail-on broken|drift]`.
// runF replaces the run function in tests.
func NewCmdHookInstall(io *IOStreams, runF func(*HookInstallOptions) error) *cobra.Command {
	opts := &HookInstallOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "install [--harness git|claude|codex] [--root DIR] [--force] [--fail-on broken|drift] [--subagent] [--fail-open]",
		Short: "Install the git pre-push hook or a Claude Code / Codex stop hook",
		Long:  hookInstallLong,
		Example: `  mastermind hook install
  mastermind hook install --fail-on broken
  mastermind hook install --force --root ../repo
  mastermind hook install --harness claude --subagent
  mastermind hook install --harness codex --fail-on drift`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.FailOn != "broken" && opts.FailOn != "drift" {
				return usageErrorf("--fail-on must be broken or drift, got %q", opts.FailOn)
			}
			switch opts.Harness {
			case "git":
				for _, name := range []string{"subagent", "fail-open"} {
					if cmd.Flags().Changed(name) {
						return usageErrorf("--%s applies to --harness claude or codex, not git", name)
					}
				}
			case harness.Claude, harness.Codex:
				if opts.Force {
					return usageErrorf("--force applies to --harness git only (a settings file is merged, never replaced)")
				}
				if !cmd.Flags().Changed("fail-on") {
					opts.FailOn = "broken"
				}
			default:
				return usageErrorf("--harness must be git, claude or codex, got %q", opts.Harness)
			}
			if runF != nil {
				return runF(opts)
			}
			return runHookInstall(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Root, "root", "", "repository root (default: discovered from the current directory)")
	f.BoolVar(&opts.Force, "force", false, "replace an existing pre-push hook that mastermind did not write")
	f.StringVar(&opts.FailOn, "fail-on", "drift", "broken or drift: the lowest verdict that blocks (default drift for git, broken for claude and codex)")
	f.StringVar(&opts.Harness, "harness", "git", "git (pre-push hook), claude (.claude/settings.json) or codex (.codex/hooks.json)")
	f.BoolVar(&opts.Subagent, "subagent", false, "claude, codex: also install a SubagentStop hook")
	f.BoolVar(&opts.FailOpen, "fail-open", false, "claude, codex: the installed hook allows the stop when the audit cannot run")
	_ = cmd.RegisterFlagCompletionFunc("harness", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"git", harness.Claude, harness.Codex}, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("fail-on", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"broken", "drift"}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func runHookInstall(ctx context.Context, opts *HookInstallOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	repo, err := openRepo(opts.Root)
	if err != nil {
		return err
	}
	root := repo.Root()
	if opts.Harness == harness.Claude || opts.Harness == harness.Codex {
		return runHarnessInstall(opts, repo)
	}
	res, err := scaffold.InstallHook(ctx, repo, scaffold.HookOptions{FailOn: opts.FailOn, Force: opts.Force})
	display := textsafe.Escape(hookDisplayPath(root, res.Path))
	var re *scaffold.RefusedError
	if errors.As(err, &re) {
		return &NotPassedError{Msg: fmt.Sprintf("refused: %s %s", textsafe.Escape(hookDisplayPath(root, re.Path)), re.Reason)}
	}
	if err != nil {
		return err
	}
	var msg string
	switch res.Action {
	case scaffold.HookUnchanged:
		msg = "pre-push hook already installed: " + display
	case scaffold.HookUpdated:
		msg = "pre-push hook updated: " + display
	case scaffold.HookReplaced:
		msg = "pre-push hook replaced (--force): " + display
	default:
		msg = "pre-push hook installed: " + display
	}
	if res.Location.Source == "core.hooksPath" {
		msg += " (core.hooksPath)"
	}
	_, err = fmt.Fprintln(opts.IO.Out, msg)
	return err
}

// runHarnessInstall merges the stop hook into the harness's settings file of repo, and warns
// when the change lands inside an open task's audit.
func runHarnessInstall(opts *HookInstallOptions, repo *gitscope.Repo) error {
	root := repo.Root()
	events := []string{harness.EventStop}
	if opts.Subagent {
		events = append(events, harness.EventSubagentStop)
	}
	budget := hookVerifyBudget(root)
	res, err := harness.InstallSettings(root, opts.Harness, events, harness.HookOptions{
		FailOnDrift: opts.FailOn == "drift", FailOpen: opts.FailOpen, Timeout: budget.timeout(),
	})
	var ie *harness.InvalidSettingsError
	var re *harness.RefusedPathError
	var pe *fsx.PathError
	if errors.As(err, &ie) || errors.As(err, &re) || errors.As(err, &pe) {
		return &NotPassedError{Msg: "refused: " + textsafe.Escape(err.Error())}
	}
	if err != nil {
		return err
	}
	what := strings.Join(events, " and ") + " hook"
	var msg string
	switch res.Action {
	case harness.SettingsUnchanged:
		msg = what + " already installed: " + res.Rel
	case harness.SettingsUpdated:
		msg = what + " updated: " + res.Rel
	default:
		msg = what + " installed: " + res.Rel
	}
	if _, err := fmt.Fprintf(opts.IO.Out, "%s (runs: %s; timeout %ds)\n", msg, res.Handler.Command, res.Handler.Timeout); err != nil {
		return err
	}
	for _, w := range budget.notes(res) {
		fmt.Fprintf(opts.IO.ErrOut, "mastermind: %s\n", textsafe.Escape(w))
	}
	if res.Action != harness.SettingsUnchanged {
		warnOpenTasks(opts.IO, repo, res.Rel)
	}
	return nil
}

// warnOpenTasks warns when tasks are open while the harness settings file rel changed: each was
// pre-flighted before the change, so its post-flight counts the file as its executor's
// (integrations.md §2). A re-pre-flight keeps the old baseline; only undoing the change or
// starting the task over helps. The check is advisory: a scan that fails warns about nothing.
func warnOpenTasks(io *IOStreams, repo *gitscope.Repo, rel string) {
	gitDir, err := repo.GitDir()
	if err != nil {
		return
	}
	view, err := postflight.OpenStoreView("", gitDir)
	if err != nil {
		return
	}
	defer view.Close()
	infos, err := postflight.ScanTasksWith(repo.Root(), view)
	if err != nil {
		return
	}
	var open, names []string
	for _, in := range infos {
		if in.Err == nil && in.State != nil && in.State.Status != postflight.StatusLearned {
			open = append(open, fmt.Sprintf("%s (%s/%s)", in.Task.Name, in.State.Status, in.State.NextStep))
			names = append(names, in.Task.Name)
		}
	}
	if len(open) == 0 {
		return
	}
	// One task, or several: the same advice in the singular or the plural.
	w := struct{ subj, be, was, its, it, folder, run string }{"task " + open[0], "is", "was", "its", "the task",
		postflight.TasksDir + "/" + names[0], "mastermind run-task " + names[0] + " --pre-only"}
	if len(open) > 1 {
		w.subj, w.be, w.was, w.its, w.it = "tasks "+strings.Join(open, ", "), "are", "were", "their", "each task"
		w.folder, w.run = "its folder", "mastermind run-task <task> --pre-only"
	}
	fmt.Fprintf(io.ErrOut, "mastermind: warning: %s %s open and %s pre-flighted before this change, so %s post-flight will count %s as %s executor's change; install the hook before pre-flight. "+
		"Undo this change until %s is closed, or commit %s and, before the executor has changed anything, start %s over from a baseline that has it (a re-pre-flight keeps the old baseline): move %s out of %s, run mastermind store gc, move it back, then run %s\n",
		textsafe.Escape(w.subj), w.be, w.was, w.its, rel, w.its, w.it, rel, w.it, textsafe.Escape(w.folder), postflight.TasksDir, w.run)
}

// openTask reports whether a scanned task folder may still hold open work: a task folder that
// is not learned, its state unreadable included.
func openTask(in postflight.TaskInfo) bool {
	var nt *postflight.NotTaskFolderError
	return !errors.As(in.Err, &nt) && (in.Err != nil || in.State == nil || in.State.Status != postflight.StatusLearned)
}

// hookAuditAllowance is the part of a hook's timeout kept for the audit around the verify
// commands: run-task's own deadline for the rest of the run (DefaultTimeout) plus a minute.
const hookAuditAllowance = DefaultTimeout + time.Minute

// verifyBudget is what the open tasks' specs ask of a stop hook's time: the largest sum of one
// task's run: true verify timeouts, since the hook audits one task per stop.
type verifyBudget struct {
	need    time.Duration // the largest task's sum, 0 when no task runs a command
	task    string        // that task
	tasks   int           // open tasks whose spec was read
	skipped []string      // open tasks whose spec could not be read
}

// hookVerifyBudget reads the specs of the tasks that are not learned.
func hookVerifyBudget(root string) verifyBudget {
	var b verifyBudget
	infos, err := postflight.ScanTasks(root)
	if err != nil {
		b.skipped = append(b.skipped, postflight.TasksDir)
		return b
	}
	for _, in := range infos {
		if !openTask(in) {
			continue
		}
		s, _, err := spec.Read(root, in.Task.Spec)
		if err != nil || s == nil {
			b.skipped = append(b.skipped, in.Task.Name)
			continue
		}
		b.tasks++
		var sum time.Duration
		for _, d := range s.VerifyDeclared {
			if d.Run {
				sum += d.Timeout
			}
		}
		if sum > b.need {
			b.need, b.task = sum, in.Task.Name
		}
	}
	return b
}

// timeout is the entry's timeout in seconds: the budget plus hookAuditAllowance and
// hookReserve, at least the harnesses' default (harness.DefaultTimeout).
func (b verifyBudget) timeout() int {
	need := b.need + hookAuditAllowance
	need += hookReserve(need)
	return int(max(need, harness.DefaultTimeout).Round(time.Second) / time.Second)
}

// notes are the lines install prints on stderr about the timeout it wrote.
func (b verifyBudget) notes(res harness.InstallResult) []string {
	var out []string
	rel := res.Rel
	if len(b.skipped) > 0 {
		out = append(out, fmt.Sprintf("warning: could not read the spec of %s, so the hook timeout does not count its verify commands; fix the spec and run hook install again", strings.Join(b.skipped, ", ")))
	}
	covers := time.Duration(res.Handler.Timeout)*time.Second - hookAuditAllowance
	covers -= hookReserve(time.Duration(res.Handler.Timeout) * time.Second)
	switch {
	case b.tasks == 0:
		out = append(out, fmt.Sprintf("warning: no open task yet, so the hook timeout is the default %ds, which leaves %s for a task's run: true verify commands; when a spec declares more, run hook install again (it recomputes the timeout), or raise \"timeout\" in %s and --timeout in its command together", res.Handler.Timeout, covers, rel))
	case b.need == 0:
		out = append(out, fmt.Sprintf("note: no open task runs a verify command (run: true), so the hook timeout is the default %ds (%s for verify commands); run hook install again when a spec adds some", res.Handler.Timeout, covers))
	case res.KeptTimeout:
		out = append(out, fmt.Sprintf("note: kept the hook timeout %ds already in %s; task %s's run: true verify commands take up to %s", res.Handler.Timeout, rel, b.task, b.need))
	default:
		out = append(out, fmt.Sprintf("note: hook timeout %ds covers task %s's run: true verify commands (up to %s) plus %s for the audit; run hook install again when a spec changes them", res.Handler.Timeout, b.task, b.need, hookAuditAllowance))
	}
	return out
}

// hookDisplayPath shows p relative to root (slash-separated) when it lies inside it, else absolute.
func hookDisplayPath(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return p
	}
	return filepath.ToSlash(rel)
}
