package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// StatusOptions holds the flags of `mastermind status`.
type StatusOptions struct {
	IO   *IOStreams
	Root string
	JSON bool
	// Store prints only the repository's folder in the controller store.
	Store bool
	// Now is the clock for ages; when nil, SOURCE_DATE_EPOCH (if set) or time.Now.
	Now func() time.Time
}

const statusLong = `The planner's view: every task under .mastermind/tasks/, sorted by task name, with its
state.json status, next_step, verdict, iteration (pre-flights run), baseline (the first 12 hex
digits of baseline_ref), last_artifact (the file to open next) and age (time since state.json was
last written; started_at when its modification time is unknown). Nothing is written.

A task folder without state.json shows as not_started. A task whose state.json is unreadable or
corrupt (spec-and-lifecycle.md §5.3) shows as corrupt, and its error is printed after the table;
every other task is still listed. A directory under .mastermind/tasks whose name is not
<NNN>-<slug> shows as not_a_task, with a line after the table saying to rename it or move it out
(it is not an error for status, but the gate fails on it).

--json prints {schema_version: 1, command: "status", outcome, exit_code, message, store,
tasks: [{task, spec, status, next_step, verdict, findings, risk, outcome_risk, iteration, baseline,
baseline_ref, last_artifact, blocking_reason, blocking_streak, started_at, updated_at,
age_seconds, error, source}]}; times are RFC 3339 in UTC, age_seconds is an integer, and absent
values are null.

When SOURCE_DATE_EPOCH is set (the reproducible-builds convention), it is used as the current
time for ages.

Each task's state is the controller store's record when this machine has one (trust-model.md
§3), and the task folder's state.json otherwise (a task pre-flighted elsewhere); --json says which
in "source" ("store" or "mirror"). A state.json that holds content mastermind never wrote is
listed with a controller_record_tampered line. The last line names the repository's folder in
the controller store ($MASTERMIND_STATE_DIR, else $XDG_STATE_HOME/mastermind, else
~/.local/state/mastermind); --json has it as "store". --store prints only that path.

Exit status:
  0  the tasks were listed (also when there are none)
  2  usage error
  3  not a git repository, .mastermind/tasks cannot be listed, or any task's state is corrupt`

// NewCmdStatus builds `mastermind status`. runF replaces the run function in tests.
func NewCmdStatus(io *IOStreams, runF func(*StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: io}
	cmd := &cobra.Command{
		Use:     "status [--root DIR] [--json | --store]",
		Short:   "Show every task's lifecycle state",
		Long:    statusLong,
		Example: "  mastermind status\n  mastermind status --json | jq '.tasks[] | select(.next_step == \"planner_review\")'",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := mutuallyExclusive(cmd, "json", "store"); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runStatus(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Root, "root", "", "repository root (default: discovered from the current directory)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the tasks as JSON")
	cmd.Flags().BoolVar(&opts.Store, "store", false, "print only this repository's folder in the controller store")
	return cmd
}

// statusJSON is the --json envelope of `status`.
type statusJSON struct {
	render.Header
	Outcome  string                   `json:"outcome"` // ok | error
	ExitCode int                      `json:"exit_code"`
	Message  *string                  `json:"message"`
	Store    *string                  `json:"store"`
	Tasks    []postflight.StatusEntry `json:"tasks"`
}

// statusNow returns the clock: opts.Now, SOURCE_DATE_EPOCH, or time.Now.
func statusNow(opts *StatusOptions) (time.Time, error) {
	if opts.Now != nil {
		return opts.Now(), nil
	}
	if v, ok := os.LookupEnv("SOURCE_DATE_EPOCH"); ok && v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return time.Time{}, usageErrorf("SOURCE_DATE_EPOCH must be a non-negative integer of seconds, got %q", v)
		}
		return time.Unix(n, 0), nil
	}
	return time.Now(), nil
}

func runStatus(opts *StatusOptions) error {
	now, err := statusNow(opts)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		msg := strings.TrimSpace(err.Error())
		_ = show(opts.IO, outputFormat(opts.JSON, ""), render.Plain{Envelope: statusJSON{Header: render.NewHeader("status"),
			Outcome: "error", ExitCode: ExitOperational, Message: &msg, Tasks: []postflight.StatusEntry{}}})
		return &ExitError{Code: ExitOperational, Msg: msg, Err: err}
	}
	repo, err := openRepo(opts.Root)
	if err != nil {
		return fail(err)
	}
	gitDir, err := repo.GitDir()
	if err != nil {
		return fail(err)
	}
	view, err := postflight.OpenStoreView("", gitDir)
	if err != nil {
		return fail(err)
	}
	defer view.Close()
	storePath := view.Path()
	if opts.Store {
		_, err := fmt.Fprintln(opts.IO.Out, storePath)
		return err
	}
	infos, err := postflight.ScanTasksWith(repo.Root(), view)
	if err != nil {
		return fail(err)
	}
	rows := postflight.StatusEntries(infos, now)
	corrupt := 0
	for _, r := range rows {
		if r.Status == postflight.StatusCorrupt {
			corrupt++
		}
	}
	var exitErr error
	var msg *string
	if corrupt > 0 {
		m := fmt.Sprintf("%d task(s) with a corrupt or unreadable state", corrupt)
		msg = &m
		exitErr = &ExitError{Code: ExitOperational, Msg: m}
	}
	env := statusJSON{Header: render.NewHeader("status"), Outcome: "ok", ExitCode: ExitOK, Message: msg, Store: &storePath, Tasks: rows}
	if corrupt > 0 {
		env.Outcome, env.ExitCode = "error", ExitOperational
	}
	if err := show(opts.IO, outputFormat(opts.JSON, ""), render.Plain{Envelope: env, Text: func(t *render.Text) {
		if len(rows) == 0 {
			t.Printf("no tasks under %s yet; create one with: mastermind new-spec \"title\"\n", postflight.TasksDir)
		} else {
			writeStatusText(t, rows)
		}
		t.Printf("controller store: %s\n", textsafe.Escape(storePath))
	}}); err != nil {
		return err
	}
	return exitErr
}

// writeStatusText writes the aligned table, then one "<task>: <error>" line per corrupt task or
// misnamed folder.
func writeStatusText(t *render.Text, rows []postflight.StatusEntry) {
	tw := tabwriter.NewWriter(t, 0, 0, 2, ' ', 0)
	// With colour on, the STATUS and VERDICT cells take statusTone.
	cell := func(s string) string { return render.Cell(t.Color, statusTone(s), s) }
	fmt.Fprintf(tw, "TASK\t%s\tNEXT_STEP\t%s\tITER\tBASELINE\tLAST_ARTIFACT\tAGE\n", cell("STATUS"), cell("VERDICT"))
	dash := func(p *string) string {
		if p == nil {
			return "-"
		}
		return *p
	}
	for _, r := range rows {
		iter, age := "-", "-"
		if r.Iteration != nil {
			iter = strconv.Itoa(*r.Iteration)
		}
		if r.AgeSeconds != nil {
			age = postflight.FormatAge(*r.AgeSeconds)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Task, cell(r.Status), dash(r.NextStep), cell(dash(r.Verdict)), iter,
			dash(r.Baseline), dash(r.LastArtifact), age)
	}
	tw.Flush() // writes into t, which cannot fail
	for _, r := range rows {
		if r.Error != nil {
			t.Printf("%s: %s\n", r.Task, textsafe.Escape(*r.Error))
		}
	}
}
