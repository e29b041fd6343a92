package cli

import (
	"os"

	"github.com/spf13/cobra"
)

const rootLong = `mastermind is a git-aware, fail-closed post-flight controller for AI coding agents.

A planner writes a task spec (.mastermind/tasks/<NNN>-<slug>/spec.md). An executor agent edits the
repository and writes executor-report.md. mastermind never trusts that report: it reads it
fail-closed, computes what really changed in git since the task's baseline, compares that with the
report and the spec's declared scope, and writes audit.md and state.json for the planner.

Exit status:
  0  passes (pre-flight approved; held; drift unless --fail-on drift; report valid; filter accepted)
  1  does not pass (broken; report rejected or invalid; spec changed; pre-flight refused; ...)
  2  usage error (unknown command or flag, wrong argument count, conflicting flags)
  3  operational failure (not a git repository, git failing, lock busy, corrupt state, I/O error)
  4  filter only: third consecutive rejection of one dispatch; escalate to the user
Any other code is a failure. forge-report keeps its contract's codes: 0 valid, 2 invalid, 1 usage
or read error.

Colour (--color, accepted by every command):
  auto      the default: colour when stdout is a terminal, unless NO_COLOR is set to a non-empty
            value or TERM=dumb
  always    colour even when stdout is not a terminal, whatever NO_COLOR and TERM say
  never     no colour
Only the verdict and summary lines of the text output of run-task and gate, and the status and
verdict columns of status, are coloured: green for approved, held, learned or passed, yellow for
drift and warnings, red for broken, refused, failed or corrupt. The ANSI SGR codes are reset at
the end of each line. JSON, --format github output, stderr and the files mastermind writes
(audit.md, state.json, ...) are never coloured.

Environment:
  NO_COLOR  a non-empty value turns colour off under --color auto
  TERM      dumb turns colour off under --color auto`

// NewRootCmd builds the command tree. Every subcommand is added here, in help order.
func NewRootCmd(io *IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "mastermind",
		Short: "Git-aware post-flight controller for AI coding agents",
		Long:  rootLong,
		Example: `  mastermind demo                                      # the whole lifecycle on a scratch repository
  mastermind new-spec "Add a retry helper"              # create .mastermind/tasks/NNN-add-a-retry-helper/spec.md
  mastermind run-task .mastermind/tasks/001-add-a-retry-helper/spec.md --pre-only
  mastermind run-task .mastermind/tasks/001-add-a-retry-helper/spec.md --post-only
  mastermind gate --fail-on drift                       # pre-merge gate: the branch and its tasks
  mastermind status --json                              # the planner's view`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &UsageError{Msg: err.Error()}
	})
	root.CompletionOptions.HiddenDefaultCmd = false
	color := colorAuto
	root.PersistentFlags().Var(&color, "color", "colour the text verdict and summary lines: auto, always or never")
	// Colour is decided once, after flag parsing and before any command runs. No subcommand may
	// set its own PersistentPreRun(E): cobra would then skip this one.
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		io.ColorEnabled = decideColor(color, io.IsStdoutTTY, os.Getenv)
		return nil
	}

	// Commands, in help order. Each constructor lives in its own cmd_<name>.go file.
	root.AddCommand(
		NewCmdRunTask(io, nil),
		NewCmdAccept(io, nil),
		NewCmdDemo(io, nil),
		NewCmdReport(io),
		NewCmdSchema(io, nil),
		NewCmdVersion(io, nil),
		NewCmdChanges(io, nil),
		NewCmdFilter(io, nil),
		NewCmdForgeReport(io, nil),
		NewCmdOutputFormat(io, nil),
		NewCmdNewSpec(io, nil),
		NewCmdHook(io),
		NewCmdGate(io, nil),
		NewCmdStatus(io, nil),
		NewCmdBrief(io, nil),
		NewCmdMCP(io, nil),
		NewCmdStore(io),
	)
	// Unknown subcommands are usage errors (exit 2), not silently the root help.
	root.SuggestionsMinimumDistance = 2
	return root
}
