package cli

import (
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/store"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// NewCmdStore builds the `mastermind store` command group.
func NewCmdStore(io *IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Maintain the controller store (the records mastermind decides from)",
		Long: `The controller store holds mastermind's own records of every task: baseline, spec hash,
iteration, streak, status, history snapshot and the hashes of the mirrors it writes into the
task folder (docs/design/trust-model.md §3). It lives outside the work tree, so that an agent
whose writes are confined to the work tree cannot rewrite it:

  $MASTERMIND_STATE_DIR, else $XDG_STATE_HOME/mastermind, else ~/.local/state/mastermind
  (Windows: %LocalAppData%\mastermind)

mastermind status prints the store folder of the current repository.

Exit status: see the subcommands.`,
		Example: "  mastermind store gc --dry-run\n  mastermind store gc",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(NewCmdStoreGC(io, nil))
	return cmd
}

// StoreGCOptions holds the flags of `mastermind store gc`.
type StoreGCOptions struct {
	IO     *IOStreams
	DryRun bool
	JSON   bool
}

// NewCmdStoreGC builds `mastermind store gc`. runF replaces the run function in tests.
func NewCmdStoreGC(io *IOStreams, runF func(*StoreGCOptions) error) *cobra.Command {
	opts := &StoreGCOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "gc [--dry-run] [--json]",
		Short: "Remove the records of repositories and tasks that no longer exist",
		Long: `Remove from the controller store the records of repositories whose git directory no longer
exists (or now resolves to another directory) and of tasks whose task folder no longer exists.
A task whose store lock is held (a mastermind is running on it) is skipped, and so is a record
gc cannot read; both are listed. A removed record is first renamed, so an interrupted gc
leaves either the whole record or a leftover the next gc removes.

--dry-run lists what would be removed and removes nothing. --json prints {schema_version: 1,
command: "store gc", outcome, exit_code, store, dry_run, removed: [{path, repo, task, reason}],
skipped: [...], kept}.

Exit status:
  0  done (also when nothing was removed)
  2  usage error
  3  the store cannot be opened or listed, or a removal failed`,
		Example: "  mastermind store gc --dry-run\n  mastermind store gc --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runStoreGC(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "list what would be removed; remove nothing")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	return cmd
}

// storeGCJSON is the --json envelope of `store gc`.
type storeGCJSON struct {
	render.Header
	Outcome  string          `json:"outcome"` // ok | error
	ExitCode int             `json:"exit_code"`
	Message  *string         `json:"message"`
	Store    string          `json:"store"`
	DryRun   bool            `json:"dry_run"`
	Removed  []store.GCEntry `json:"removed"`
	Skipped  []store.GCEntry `json:"skipped"`
	Kept     int             `json:"kept"`
}

func runStoreGC(opts *StoreGCOptions) error {
	env := storeGCJSON{Header: render.NewHeader("store gc"), Outcome: "ok", DryRun: opts.DryRun,
		Removed: []store.GCEntry{}, Skipped: []store.GCEntry{}}
	fail := func(err error) error {
		msg := err.Error()
		env.Outcome, env.ExitCode, env.Message = "error", ExitOperational, &msg
		_ = show(opts.IO, outputFormat(opts.JSON, ""), render.Plain{Envelope: env})
		return &ExitError{Code: ExitOperational, Msg: msg, Err: err}
	}
	root, err := store.Location()
	if err != nil {
		return fail(err)
	}
	env.Store = root
	s, err := store.Open(root)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	rep, err := s.GC(opts.DryRun)
	if rep != nil {
		env.Removed, env.Skipped, env.Kept = rep.Removed, rep.Skipped, rep.Kept
	}
	if err != nil {
		return fail(err)
	}
	verb, passive := "removed", "removed"
	if opts.DryRun {
		verb, passive = "would remove", "would be removed"
	}
	return show(opts.IO, outputFormat(opts.JSON, ""), render.Plain{Envelope: env, Text: func(t *render.Text) {
		t.Printf("controller store: %s\n", textsafe.Escape(root))
		for _, e := range rep.Removed {
			t.Printf("%s %s: %s\n", verb, textsafe.Escape(gcName(e)), textsafe.Escape(e.Reason))
		}
		for _, e := range rep.Skipped {
			t.Printf("kept %s: %s\n", textsafe.Escape(gcName(e)), textsafe.Escape(e.Reason))
		}
		t.Printf("%d record(s) %s, %d skipped, %d task record(s) kept\n", len(rep.Removed), passive, len(rep.Skipped), rep.Kept)
	}})
}

// gcName names a record for the text output: "<work tree> task <task>", or the store folder.
func gcName(e store.GCEntry) string {
	name := e.Path
	if e.Repo != "" {
		name = e.Repo
	}
	if e.Task != "" {
		name += " task " + e.Task
	}
	return name
}
