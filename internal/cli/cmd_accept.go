package cli

import (
	"context"
	"errors"
	"time"

	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// AcceptOptions holds the flags and dependencies of `mastermind accept`.
type AcceptOptions struct {
	IO     *IOStreams
	Spec   string
	Reason string
	JSON   bool
	Root   string
	Wait   time.Duration
	// Now is the clock (accepted_at); time.Now when nil.
	Now func() time.Time
}

const acceptLong = `Accept a task's drift verdict as the planner (lifecycle-v2.md §3). The task is given as its
spec, its task folder (.mastermind/tasks/<NNN>-<slug>) or its folder name (<NNN>-<slug>).

A drift audit (files outside the declared scope, a declared file left unchanged, a warning) does
not pass on its own. When the planner has read audit.md and the drift is acceptable, accept
records that decision and the task takes the normal close path: accept writes the release notes,
the history snapshot and a pending history-review.md, and moves the task to
history_review_required / review_history. Complete history-review.md and run
"mastermind run-task <spec>" to close it as learned.

The acceptance is bound to the audited inputs: the spec, the executor report and the work must be
exactly what the drift audit saw (its inputs fingerprint). state.json records accepted_reason,
accepted_at and accepted_snapshot. The gate passes an accepted task while its inputs are unchanged
since acceptance; any later change needs a new post-flight.

Only status drift can be accepted. broken cannot: its fix is a new executor run or a revised spec.

Exit status:
  0  accepted (or accepted and closed, when a complete review for this snapshot exists)
  1  refused: the status is not drift (named in the message), or the inputs changed since the
     drift audit (rerun post-flight first)
  2  usage: no or empty --reason, bad arguments, a task that is not a spec, task folder or
     folder name of the layout
  3  operational: not a git repository, git failing, controller lock busy, corrupt state, I/O error`

// NewCmdAccept builds `mastermind accept`. runF replaces the run function in tests.
func NewCmdAccept(io *IOStreams, runF func(*AcceptOptions) error) *cobra.Command {
	opts := &AcceptOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "accept <spec> --reason TEXT [--json]",
		Short: "Accept a drift verdict (planner) so the task can close",
		Long:  acceptLong,
		Example: `  mastermind accept .mastermind/tasks/014-retry-helper/spec.md --reason "the extra test helper is wanted"
  mastermind accept .mastermind/tasks/014-retry-helper/spec.md --reason "docs follow in 015" --json`,
		Args: exactArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeTaskSpecs(opts.Root), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Spec = args[0]
			if _, err := postflight.CheckAcceptReason(opts.Reason); err != nil {
				return &UsageError{Msg: err.Error()}
			}
			if opts.Wait < 0 {
				return usageErrorf("--wait must not be negative, got %s", opts.Wait)
			}
			if runF != nil {
				return runF(opts)
			}
			return runAccept(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Reason, "reason", "", "why the drift is acceptable (required; recorded as accepted_reason)")
	f.BoolVar(&opts.JSON, "json", false, "print the JSON envelope (schema_version 1) on stdout instead of text")
	f.StringVar(&opts.Root, "root", "", "repository root (default: discovered from the current directory)")
	f.DurationVar(&opts.Wait, "wait", 0, "wait up to this long (e.g. 30s) for a busy controller lock instead of exit 3")
	return cmd
}

func runAccept(ctx context.Context, opts *AcceptOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	format := outputFormat(opts.JSON, "")
	repo, err := openRepo(opts.Root)
	if err != nil {
		return acceptError(opts, &postflight.Outcome{Phase: postflight.PhaseAccept}, err)
	}
	res, err := postflight.Accept(ctx, postflight.AcceptOptions{Git: repo, SpecArg: opts.Spec, Reason: opts.Reason, Wait: opts.Wait, Now: opts.Now})
	if err != nil {
		return acceptError(opts, res, err)
	}
	code := acceptExitCode(res.Outcome)
	if err := show(opts.IO, format, acceptView{o: res, exit: code}); err != nil {
		return err
	}
	return resultError(code, res.Message)
}

func acceptError(opts *AcceptOptions, res *postflight.Outcome, err error) error {
	var spe *postflight.SpecPathError
	var re *postflight.ReasonError
	if errors.As(err, &spe) || errors.As(err, &re) {
		return &UsageError{Msg: err.Error()}
	}
	_ = show(opts.IO, outputFormat(opts.JSON, ""), acceptView{o: res, exit: ExitOperational, err: err})
	return &ExitError{Code: ExitOperational, Msg: err.Error(), Err: err}
}

// acceptView is an accept outcome as text and as the --json envelope.
type acceptView struct {
	o    *postflight.Outcome
	exit int
	err  error
}

func (v acceptView) WriteText(t *render.Text) {
	if v.err != nil {
		return
	}
	o := v.o
	switch o.Outcome {
	case postflight.OutcomeAccepted:
		t.Line(render.TonePass, "✅ "+textsafe.Escape(o.Message))
		t.Printf("  accepted snapshot: %s\n  release notes: %s\n", o.State.AcceptedSnapshot, o.Artifacts.ReleaseNotes)
		t.Printf("  next: complete %s, then run: %s\n", o.Next.Edit, o.Next.Run)
	case postflight.OutcomeCompleted:
		t.Line(render.TonePass, "✅ "+textsafe.Escape(o.Message)+" (learned/close)")
		t.Printf("  history review: %s\n  next: nothing; the task is closed\n", o.Artifacts.HistoryReview)
	default:
		t.Line(render.ToneFail, "❌ "+textsafe.Escape(o.Message))
		if o.Next.Run != "" {
			t.Printf("  next: run: %s\n", o.Next.Run)
		}
	}
}

// acceptEnvelope is the accept --json output: the run-task envelope's keys for this command.
type acceptEnvelope struct {
	render.Header
	Outcome   postflight.OutcomeKind `json:"outcome"`
	ExitCode  int                    `json:"exit_code"`
	Message   string                 `json:"message"`
	Task      string                 `json:"task"`
	Spec      string                 `json:"spec"`
	State     *postflight.State      `json:"state"`
	Artifacts envelopeArtifacts      `json:"artifacts"`
}

func (v acceptView) JSON() any {
	r := v.o
	e := acceptEnvelope{Header: render.NewHeader("accept"), Outcome: r.Outcome, ExitCode: v.exit, Message: r.Message,
		Task: r.Task.Name, Spec: r.Task.Spec, State: r.State,
		Artifacts: artifactsOf(r.Artifacts)}
	if v.err != nil {
		e.Outcome, e.Message = postflight.OutcomeError, v.err.Error()
	}
	return e
}

func (acceptView) Findings() render.Findings { return render.Findings{} }
