package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mastermind-controller/mastermind/internal/contracts/forge"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// Forge contract exit codes (agent-contracts.md §1.5): they differ from the global table.
const (
	forgeExitValid   = 0
	forgeExitFailed  = 1 // usage, read and write failures
	forgeExitInvalid = 2
)

// forgeInputLimit is the 16 MiB input limit that agent-contracts.md sets for all three contracts.
const forgeInputLimit = 16 << 20

const (
	forgeUsageValidate = "Usage: mastermind forge-report validate <file|->"
	forgeUsageIngest   = `Usage: mastermind forge-report ingest <run_id> <file|-> --agent "<name>" [--root DIR]`
	forgeUsageVerify   = "Usage: mastermind forge-report verify <run_id> [--root DIR]"
)

// ForgeOptions holds the flags and arguments of the forge-report subcommands.
type ForgeOptions struct {
	IO    *IOStreams
	Sub   string // "validate", "ingest" or "verify"
	RunID string
	Input string // file path or "-"
	Agent string
	Root  string
	Since string
	JSON  bool
	Getwd func() (string, error)
	Now   func() time.Time
	Ctx   context.Context
}

// forgeFail prints lines to stderr and returns a silent error with the forge exit code.
func forgeFail(io *IOStreams, code int, lines ...string) error {
	for _, l := range lines {
		fmt.Fprintln(io.ErrOut, l)
	}
	return &ExitError{Code: code, Msg: strings.Join(lines, "\n"), Silent: true}
}

// forgeRun is the run function of the forge-report subcommands: runF in tests, runForge
// otherwise.
func forgeRun(runF func(*ForgeOptions) error) func(*ForgeOptions) error {
	if runF != nil {
		return runF
	}
	return runForge
}

// forgeFlagErrors makes a flag error print the subcommand's usage line and exit with the forge
// contract's usage code.
func forgeFlagErrors(io *IOStreams, cmd *cobra.Command, usage string) {
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return forgeFail(io, forgeExitFailed, err.Error(), usage)
	})
}

// NewCmdForgeReport builds `mastermind forge-report` with its validate, ingest and verify
// subcommands. runF replaces the run function in tests.
func NewCmdForgeReport(io *IOStreams, runF func(*ForgeOptions) error) *cobra.Command {
	parent := &cobra.Command{
		Use:   "forge-report",
		Short: "Validate or ingest a forge-report block from an agent's final message",
		Long: `Validate the last complete ` + "```forge-report" + ` fenced block of an agent's final message
against the forge contract (agent-contracts.md §1), or ingest it: redact secrets and append an
agent_output and an agent_evidence_added event, hash-chained, to
<root>/.claude/forge-runs/<run_id>/events.jsonl in one locked, fsynced append.

Exit status (the forge contract's own codes):
  0  valid / ingested / chain intact
  2  report invalid (nothing written) / chain damaged
  1  usage, read or write failure

` + forgeDifferencesHelp,
		Example: "  mastermind forge-report validate final-message.md\n  mastermind forge-report ingest run-42 - --agent build-boss < message.md",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return forgeFail(io, forgeExitFailed, fmt.Sprintf("unknown subcommand %q", args[0]), forgeUsageValidate, forgeUsageIngest)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return forgeFail(io, forgeExitFailed, forgeUsageValidate, forgeUsageIngest)
		},
	}
	forgeFlagErrors(io, parent, forgeUsageValidate)
	parent.AddCommand(NewCmdForgeValidate(io, runF), NewCmdForgeIngest(io, runF), NewCmdForgeVerify(io, runF))
	return parent
}

// NewCmdForgeValidate builds `mastermind forge-report validate`. runF replaces the run function
// in tests.
func NewCmdForgeValidate(io *IOStreams, runF func(*ForgeOptions) error) *cobra.Command {
	opts := &ForgeOptions{IO: io, Sub: "validate"}
	cmd := &cobra.Command{
		Use:   "validate <file|->",
		Short: "Validate the last forge-report block of a message",
		Long: `Print "VALID — <work_package> (<status>)" and any notes, or "INVALID:" and one line per
error on stderr. "-" reads the message from stdin. With --since REV, files_changed is also
compared with the paths git shows as changed since REV in the repository at --root.

Exit status: 0 valid, 2 invalid, 1 usage or read error.`,
		Example: "  mastermind forge-report validate reply.md\n  mastermind forge-report validate - --json < reply.md",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return forgeFail(io, forgeExitFailed, forgeUsageValidate)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Input = args[0]
			return forgeRun(runF)(opts)
		},
	}
	forgeFlagErrors(io, cmd, forgeUsageValidate)
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as a JSON envelope")
	cmd.Flags().StringVar(&opts.Root, "root", "", "repository root for --since (default: git top level of the current directory)")
	cmd.Flags().StringVar(&opts.Since, "since", "", "also compare files_changed with git's changed set since `REV`")
	return cmd
}

// NewCmdForgeIngest builds `mastermind forge-report ingest`. runF replaces the run function in
// tests.
func NewCmdForgeIngest(io *IOStreams, runF func(*ForgeOptions) error) *cobra.Command {
	opts := &ForgeOptions{IO: io, Sub: "ingest"}
	cmd := &cobra.Command{
		Use:   "ingest <run_id> <file|-> --agent NAME",
		Short: "Validate, redact and append a forge-report to a run's events.jsonl",
		Long: `Validate the report; if it is valid, redact it and append exactly two events in one locked,
write-ahead-logged, fsynced append to <root>/.claude/forge-runs/<run_id>/events.jsonl. An invalid
report writes nothing, not even the run directory. A log whose hash chain does not verify is
refused. --root defaults to the git top level of the current directory, or the current directory
outside a repository.

Exit status: 0 ingested, 2 report invalid, 1 usage, read or write failure.`,
		Example: `  mastermind forge-report ingest run-42 reply.md --agent "Build Boss"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return forgeFail(io, forgeExitFailed, forgeUsageIngest)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunID, opts.Input = args[0], args[1]
			if !cmd.Flags().Changed("agent") || strings.TrimSpace(opts.Agent) == "" {
				return forgeFail(io, forgeExitFailed, forgeUsageIngest)
			}
			return forgeRun(runF)(opts)
		},
	}
	forgeFlagErrors(io, cmd, forgeUsageIngest)
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "the agent's `NAME` (folded to its registry display name when one matches)")
	cmd.Flags().StringVar(&opts.Root, "root", "", "project root (default: git top level of the current directory, or the current directory)")
	cmd.Flags().StringVar(&opts.Since, "since", "", "refuse unless files_changed matches git's changed set since `REV`")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as a JSON envelope")
	return cmd
}

// NewCmdForgeVerify builds `mastermind forge-report verify`. runF replaces the run function in
// tests.
func NewCmdForgeVerify(io *IOStreams, runF func(*ForgeOptions) error) *cobra.Command {
	opts := &ForgeOptions{IO: io, Sub: "verify"}
	cmd := &cobra.Command{
		Use:   "verify <run_id>",
		Short: "Check the hash chain of a run's events.jsonl",
		Long: `Read <root>/.claude/forge-runs/<run_id>/events.jsonl and verify it in the writer view of the
forge contract: every line is a JSON object with an event_type, and every chained entry links to
the previous one and recomputes to its entry_hash. Nothing is written.

Exit status: 0 intact, 2 damaged (PARTIAL or CORRUPT), 1 usage or read error.`,
		Example: "  mastermind forge-report verify run-42",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return forgeFail(io, forgeExitFailed, forgeUsageVerify)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunID = args[0]
			return forgeRun(runF)(opts)
		},
	}
	forgeFlagErrors(io, cmd, forgeUsageVerify)
	cmd.Flags().StringVar(&opts.Root, "root", "", "project root (default: git top level of the current directory)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as a JSON envelope")

	return cmd
}

// forgeEnvelope is the --json output of agent-contracts.md §1.5.
type forgeEnvelope struct {
	render.Header
	Valid       bool          `json:"valid"`
	WorkPackage *string       `json:"work_package"`
	Status      *string       `json:"status"`
	Errors      []forge.Error `json:"errors"`
	Notes       []string      `json:"notes"`
	RunID       *string       `json:"run_id,omitempty"`
	EventsPath  *string       `json:"events_path,omitempty"`
	Written     *int          `json:"written,omitempty"`
	Error       string        `json:"error,omitempty"`
}

func runForge(opts *ForgeOptions) error {
	if opts.Getwd == nil {
		opts.Getwd = os.Getwd
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Ctx == nil {
		opts.Ctx = context.Background()
	}
	switch opts.Sub {
	case "ingest":
		return runForgeIngest(opts)
	case "verify":
		return runForgeVerify(opts)
	}
	return runForgeValidate(opts)
}

// readForgeInput reads FILE, a regular file of at most 16 MiB reached without a link, or stdin
// for "-".
func readForgeInput(opts *ForgeOptions) ([]byte, error) {
	if opts.Input == "-" {
		data, err := io.ReadAll(io.LimitReader(opts.IO.In, forgeInputLimit+1))
		if err == nil && len(data) > forgeInputLimit {
			err = fmt.Errorf("stdin is larger than the limit (more than %d bytes)", forgeInputLimit)
		}
		return data, err
	}
	return fsx.ReadFile(opts.Input, forgeInputLimit)
}

// forgeRoot resolves --root: as given, else the git top level of the working directory, else
// the working directory itself.
func forgeRoot(opts *ForgeOptions) (string, error) {
	if opts.Root != "" {
		return filepath.Abs(opts.Root)
	}
	wd, err := opts.Getwd()
	if err != nil {
		return "", err
	}
	repo, err := gitscope.Discover(wd)
	if errors.Is(err, gitscope.ErrNotRepository) {
		return wd, nil
	}
	if err != nil {
		return "", err
	}
	return repo.Root(), nil
}

// checkSince compares files_changed with git's changed set since opts.Since.
func checkSince(opts *ForgeOptions, res *forge.Result) error {
	if opts.Since == "" || res.Report == nil {
		return nil
	}
	root, err := forgeRoot(opts)
	if err != nil {
		return err
	}
	repo, err := gitscope.Discover(root)
	if err != nil {
		return fmt.Errorf("--since needs a git repository at %s: %w", root, err)
	}
	oid, err := repo.ResolveRevision(opts.Ctx, opts.Since)
	if err != nil {
		return fmt.Errorf("--since %s: %w", opts.Since, err)
	}
	cs, err := repo.ChangedSet(opts.Ctx, oid)
	if err != nil {
		return err
	}
	gitDir, err := repo.GitDir()
	if err != nil {
		return err
	}
	rule, closeRule := postflight.ControlRuleFor(repo.Root(), gitDir, "", "")
	defer closeRule()
	var changed []string
	for _, e := range cs.WithoutControl(rule) {
		changed = append(changed, string(e.Path))
	}
	for _, e := range forge.CompareFiles(res.Report, changed, opts.Since) {
		e.Line = res.Line
		res.Errors = append(res.Errors, e)
	}
	return nil
}

func newForgeEnvelope(command string, res *forge.Result) *forgeEnvelope {
	env := &forgeEnvelope{Header: render.NewHeader(command), Valid: res.Valid(),
		Errors: res.Errors, Notes: res.Notes}
	if res.Report != nil {
		if _, ok := res.Report.Get("work_package"); ok && res.WorkPackage != "" {
			env.WorkPackage = &res.WorkPackage
		}
		if res.Status != "" {
			env.Status = &res.Status
		}
	}
	if env.Errors == nil {
		env.Errors = []forge.Error{}
	}
	if env.Notes == nil {
		env.Notes = []string{}
	}
	return env
}

func errorLines(res *forge.Result) []string {
	var out []string
	for _, e := range res.Errors {
		out = append(out, "  - "+textsafe.Escape(e.Message))
	}
	return out
}

func runForgeValidate(opts *ForgeOptions) error {
	data, err := readForgeInput(opts)
	if err != nil {
		return forgeFail(opts.IO, forgeExitFailed, "could not read input: "+textsafe.Escape(err.Error()))
	}
	res := forge.Check(data)
	if err := checkSince(opts, res); err != nil {
		return forgeFail(opts.IO, forgeExitFailed, "could not check --since: "+textsafe.Escape(err.Error()))
	}
	v := render.Plain{Envelope: newForgeEnvelope("forge-report validate", res)}
	if res.Valid() {
		v.Text = func(t *render.Text) {
			t.Printf("VALID — %s (%s)\n", textsafe.Escape(res.WorkPackage), textsafe.Escape(res.Status))
			for _, n := range res.Notes {
				t.Printf("  note: %s\n", n)
			}
		}
	} else {
		v.Diagnostics = func(t *render.Text) {
			t.WriteString("INVALID:\n")
			for _, l := range errorLines(res) {
				t.WriteString(l + "\n")
			}
		}
	}
	if err := show(opts.IO, outputFormat(opts.JSON, ""), v); err != nil {
		return err
	}
	if !res.Valid() {
		return &ExitError{Code: forgeExitInvalid, Silent: true, Msg: "INVALID"}
	}
	return nil
}

func runForgeIngest(opts *ForgeOptions) error {
	if !forge.ValidRunID(opts.RunID) {
		return forgeFail(opts.IO, forgeExitFailed, "invalid run_id (allowed: A-Z a-z 0-9 _ -): "+textsafe.Escape(opts.RunID))
	}
	data, err := readForgeInput(opts)
	if err != nil {
		return forgeFail(opts.IO, forgeExitFailed, "could not read input: "+textsafe.Escape(err.Error()))
	}
	res := forge.Check(data)
	if err := checkSince(opts, res); err != nil {
		return forgeFail(opts.IO, forgeExitFailed, "could not check --since: "+textsafe.Escape(err.Error()))
	}
	env := newForgeEnvelope("forge-report ingest", res)
	env.RunID = &opts.RunID
	zero, two := 0, 2
	env.Written = &zero
	agent := textsafe.Escape(opts.Agent)
	format := outputFormat(opts.JSON, "")
	if !res.Valid() {
		// The refusal goes to stderr in every format; with --json the envelope says it too.
		if err := show(opts.IO, format, render.Plain{Envelope: env}); err != nil {
			return err
		}
		return forgeFail(opts.IO, forgeExitInvalid, append([]string{"INGEST REFUSED — report invalid, send it back to " + agent + ":"}, errorLines(res)...)...)
	}
	root, err := forgeRoot(opts)
	var ing *forge.Ingested
	if err == nil {
		ing, err = forge.Ingest(root, opts.RunID, opts.Agent, res.Report, opts.Now())
	}
	if err != nil {
		msg := "INGEST FAILED — " + textsafe.Escape(err.Error()) + "; nothing was written"
		var lt *forge.LockTimeoutError
		if errors.As(err, &lt) {
			msg = "INGEST FAILED — " + textsafe.Escape(err.Error())
		}
		env.Error = msg
		if werr := show(opts.IO, format, render.Plain{Envelope: env}); werr != nil {
			return werr
		}
		return forgeFail(opts.IO, forgeExitFailed, msg)
	}
	env.EventsPath = &ing.EventsPath
	env.Written = &two
	return show(opts.IO, format, render.Plain{Envelope: env, Text: func(t *render.Text) {
		t.Printf("INGESTED — %s · %s · %s -> run %s\n", textsafe.Escape(ing.Agent),
			textsafe.Escape(res.Status), textsafe.Escape(res.WorkPackage), opts.RunID)
	}})
}

// forgeVerifyEnvelope is the --json output of `forge-report verify`.
type forgeVerifyEnvelope struct {
	render.Header
	RunID      string `json:"run_id"`
	EventsPath string `json:"events_path"`
	Intact     bool   `json:"intact"`
	Entries    int    `json:"entries"`
	Chained    int    `json:"chained"`
	Damage     string `json:"damage,omitempty"`
	Line       int    `json:"line,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

func runForgeVerify(opts *ForgeOptions) error {
	if !forge.ValidRunID(opts.RunID) {
		return forgeFail(opts.IO, forgeExitFailed, "invalid run_id (allowed: A-Z a-z 0-9 _ -): "+textsafe.Escape(opts.RunID))
	}
	root, err := forgeRoot(opts)
	if err != nil {
		return forgeFail(opts.IO, forgeExitFailed, "could not read events log: "+textsafe.Escape(err.Error()))
	}
	rel := forge.EventsPath(opts.RunID)
	data, err := fsx.ReadInRoot(root, rel, 1<<30)
	if err != nil {
		return forgeFail(opts.IO, forgeExitFailed, "could not read events log: "+textsafe.Escape(err.Error()))
	}
	tail, verr := forge.VerifyLog(data, opts.RunID)
	env := forgeVerifyEnvelope{Header: render.NewHeader("forge-report verify"), RunID: opts.RunID,
		EventsPath: rel, Intact: verr == nil, Entries: tail.Entries, Chained: tail.Chained}
	var ce *forge.ChainError
	if errors.As(verr, &ce) {
		env.Damage, env.Line, env.Reason = string(ce.Class), ce.Line, ce.Reason
	}
	v := render.Plain{Envelope: env}
	if verr != nil {
		v.Diagnostics = func(t *render.Text) { t.WriteString("CHAIN BROKEN — " + textsafe.Escape(verr.Error()) + "\n") }
	} else {
		v.Text = func(t *render.Text) {
			t.Printf("CHAIN INTACT — run %s: %d entries, %d chained\n", opts.RunID, tail.Entries, tail.Chained)
		}
	}
	if err := show(opts.IO, outputFormat(opts.JSON, ""), v); err != nil {
		return err
	}
	if verr != nil {
		return &ExitError{Code: forgeExitInvalid, Silent: true, Msg: verr.Error()}
	}
	return nil
}
