package cli

import (
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
or read error.`

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
  mastermind gate --fail-on drift                       # pre-merge gate over every open task
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

	// Commands, in help order. Each constructor lives in its own cmd_<name>.go file.
	root.AddCommand(
		NewCmdRunTask(io, nil),
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
	)
	// Unknown subcommands are usage errors (exit 2), not silently the root help.
	root.SuggestionsMinimumDistance = 2
	return root
}
