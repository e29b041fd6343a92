package cli

import (
	"errors"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/scaffold"
	"github.com/spf13/cobra"
)

// NewSpecOptions holds the flags of `mastermind new-spec`.
type NewSpecOptions struct {
	IO    *IOStreams
	Title string
	Mode  string
	Root  string
	JSON  bool
}

const newSpecLong = `Create the next numbered task folder, .mastermind/tasks/<NNN>-<slug>/, with a spec.md skeleton
for the planner to fill in.

NNN is 1 + the highest number already used under .mastermind/tasks (at least 3 digits). The slug is
the title in lowercase ASCII letters and digits joined by "-" (at most 48 bytes); a title without
any ASCII letter or digit is a usage error. An existing folder is never reused or overwritten: if
the name is taken the next number is tried. .mastermind and .mastermind/tasks are created when
missing and refused when they are symbolic links. .mastermind/.gitignore is written (or, when it
exists without it, given the line *.lock) so the lock files are never committed.

The skeleton has YAML frontmatter (id, title, mode, risk, the scope keys touches, creates and
expected_docs, the optional deletes: [] and forbids: [] with a comment each, and a commented
verify example) and every mandatory section of the mode:
  verified            Goals, Scope, Acceptance Criteria, Tests Plan, Final Verification
  standard, strict    Goals, Alternatives Considered, Tests Plan, Documentation Plan,
                      Observability Plan, Performance Considerations
  lite                Goals

The skeleton is not approvable as written, on purpose: each section holds only an HTML comment
(which counts as empty) and the scope keys are empty, so "run-task --pre-only" refuses it with
spec.section_missing and spec.frontmatter_invalid findings until the planner has written every
section and listed the paths in scope (deleting the scope keys it does not need). A strict spec
also needs a verify command. An unfilled spec can therefore never be approved by accident.

Output: the new spec path, relative to the repository root. --json prints {"schema_version": 1,
"command": "new-spec", "outcome": "created", "task", "spec"}; on failure outcome is "error" with
an "error" message.

Exit status:
  0  the task folder and spec.md were created
  2  usage error: empty title, a title with no ASCII letter or digit, control characters in the
     title, an unknown --mode, wrong argument count
  3  operational: not a git repository, a symlinked .mastermind or tasks folder, I/O error`

// NewCmdNewSpec builds `mastermind new-spec "title" [--mode MODE] [--root DIR] [--json]`. runF
// replaces the run function in tests.
func NewCmdNewSpec(io *IOStreams, runF func(*NewSpecOptions) error) *cobra.Command {
	opts := &NewSpecOptions{IO: io}
	cmd := &cobra.Command{
		Use:   `new-spec "title" [--mode verified|strict|standard|lite] [--root DIR] [--json]`,
		Short: "Create the next numbered task folder with a spec skeleton",
		Long:  newSpecLong,
		Example: `  mastermind new-spec "Add retry helper"
  mastermind new-spec "Harden the config loader" --mode strict
  mastermind new-spec "Fix typo in README" --mode lite --json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Title = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runNewSpec(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Mode, "mode", "standard", "spec mode: "+strings.Join(scaffold.Modes, ", "))
	f.StringVar(&opts.Root, "root", "", "repository root (default: discovered from the current directory)")
	f.BoolVar(&opts.JSON, "json", false, "print {schema_version, command, outcome, task, spec} as JSON")
	_ = cmd.RegisterFlagCompletionFunc("mode", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return scaffold.Modes, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// newSpecJSON is the --json envelope of new-spec.
type newSpecJSON struct {
	render.Header
	Outcome string `json:"outcome"` // "created" | "error"
	Task    string `json:"task,omitempty"`
	Spec    string `json:"spec,omitempty"`
	Error   string `json:"error,omitempty"`
}

func runNewSpec(opts *NewSpecOptions) error {
	task, err := newSpec(opts)
	if err != nil {
		var ie *scaffold.InputError
		if errors.As(err, &ie) {
			return &UsageError{Msg: ie.Msg}
		}
		_ = show(opts.IO, outputFormat(opts.JSON, ""), render.Plain{
			Envelope: newSpecJSON{Header: render.NewHeader("new-spec"), Outcome: "error", Error: err.Error()}})
		return &ExitError{Code: ExitOperational, Msg: err.Error(), Err: err}
	}
	return show(opts.IO, outputFormat(opts.JSON, ""), render.Plain{
		Envelope: newSpecJSON{Header: render.NewHeader("new-spec"), Outcome: "created", Task: task.Name, Spec: task.Spec},
		Text:     func(t *render.Text) { t.WriteString(task.Spec + "\n") }})
}

// newSpec validates the inputs before touching the repository, so a usage error wins over a
// missing repository.
func newSpec(opts *NewSpecOptions) (scaffold.Task, error) {
	if err := scaffold.CheckMode(opts.Mode); err != nil {
		return scaffold.Task{}, err
	}
	if _, err := scaffold.CheckTitle(opts.Title); err != nil {
		return scaffold.Task{}, err
	}
	repo, err := openRepo(opts.Root)
	if err != nil {
		return scaffold.Task{}, err
	}
	return scaffold.CreateTask(repo.Root(), scaffold.CreateOptions{Title: opts.Title, Mode: opts.Mode})
}
