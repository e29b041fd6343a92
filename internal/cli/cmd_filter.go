package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mastermind-controller/mastermind/internal/contracts/filter"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// maxBriefBytes is the input-file limit of agent-contracts.md (16 MiB) for briefs and schemas.
const maxBriefBytes = 16 << 20

// FilterOptions holds the flags of `mastermind filter` (agent-contracts.md §2.2).
type FilterOptions struct {
	IO             *IOStreams
	Brief          string
	Schema         string
	RequireHeading []string
	NeedsInput     bool
	Dispatch       string
	Repo           bool
	Root           string
	JSON           bool
	Raw            string // raw-return file, or "-" for stdin
}

// NewCmdFilter builds `mastermind filter (--brief FILE | --schema FILE | --require-heading TEXT …)
// [--needs-input] [--dispatch ID] [--repo] [--root DIR] [--json] <raw-file|->`. runF replaces
// the run function in tests.
func NewCmdFilter(io *IOStreams, runF func(*FilterOptions) error) *cobra.Command {
	opts := &FilterOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "filter (--brief FILE | --schema FILE | --require-heading TEXT ...) [--needs-input] [--dispatch ID] [--repo] [--root DIR] [--json] <raw-file|->",
		Short: "Check a subagent's return against its brief's OUTPUT schema; print clean output or a REJECT block",
		Long: `Apply the report-filter contract to a subagent's raw return: find the structured block (the
whole return when it is JSON, else the last ` + "```json" + ` fence, else the last ` + "```yaml" + ` fence), drop
everything around it, and validate it against the OUTPUT schema the dispatch declared with
exactly one of --brief (the first ` + "```json-schema" + ` or ` + "```headings" + ` block under the brief's OUTPUT
heading; a NEEDS_INPUT heading turns on the status union), --schema (draft 2020-12 unless its
$schema says draft-07) or --require-heading ("## Findings" needs level 2; repeatable).

Formats are asserted; path-line, repo-path, git-sha and git-commit-line are built in. With the
union on (--needs-input or the brief's NEEDS_INPUT heading) a top-level status of "needs_input"
is checked against the built-in needs_input shape. --repo also checks that paths and lines exist
and that SHAs resolve to commits with the claimed subjects.

Accepted: stdout holds the clean output only (JSON re-serialised with keys in order and evidence
byte for byte; in headings mode the return from the first required heading on). Rejected: stdout
holds the REJECT block listing every missing or invalid field. --dispatch ID counts consecutive
rejections in .mastermind/dispatch/<ID>.json under the repository root; the third in a row
prints the ESCALATE block instead. --json prints one versioned envelope instead of the text.

Exit status:
  0  accepted
  1  rejected (REJECT block on stdout)
  2  usage error: flags, a brief without a machine-readable OUTPUT schema, a schema that does not compile
  3  operational: unreadable input, counter lock timeout, --repo outside a repository, git failing
  4  escalate: the third or later consecutive rejection of --dispatch ID; ask the user`,
		Example: `  mastermind filter --brief brief.md return.txt
  agent-output | mastermind filter --schema output.schema.json --dispatch task-7 -
  mastermind filter --require-heading "## Findings" --require-heading "## Evidence" notes.md
  mastermind filter --brief brief.md --repo --json return.txt`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Raw = args[0]
			if err := validateFilterFlags(cmd, opts); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runFilter(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Brief, "brief", "", "Markdown dispatch brief declaring the OUTPUT schema")
	f.StringVar(&opts.Schema, "schema", "", "JSON Schema file for the return")
	f.StringArrayVar(&opts.RequireHeading, "require-heading", nil, `required Markdown heading ("## Findings"); repeatable`)
	f.BoolVar(&opts.NeedsInput, "needs-input", false, "enable the status union (complete | needs_input)")
	f.StringVar(&opts.Dispatch, "dispatch", "", "count consecutive rejections for this dispatch ID")
	f.BoolVar(&opts.Repo, "repo", false, "also check paths, lines and commits against the repository")
	f.StringVar(&opts.Root, "root", "", "repository root for --repo and the dispatch counters (default: git top level of the current directory)")
	f.BoolVar(&opts.JSON, "json", false, "print a versioned JSON envelope")
	return cmd
}

func validateFilterFlags(cmd *cobra.Command, opts *FilterOptions) error {
	if err := mutuallyExclusive(cmd, "brief", "schema", "require-heading"); err != nil {
		return err
	}
	if opts.Brief == "" && opts.Schema == "" && len(opts.RequireHeading) == 0 {
		return usageErrorf("filter needs exactly one of --brief, --schema or --require-heading")
	}
	if cmd.Flags().Changed("dispatch") && !filter.ValidDispatchID(opts.Dispatch) {
		return usageErrorf("--dispatch %q: an ID matches ^[A-Za-z0-9_-]{1,128}$ and does not start with '-'", textsafe.Escape(opts.Dispatch))
	}
	return nil
}

// filterJSON is the --json envelope of agent-contracts.md §2.10.
type filterJSON struct {
	render.Header
	Mode       filter.Mode   `json:"mode"`
	Outcome    string        `json:"outcome"`
	Variant    string        `json:"variant"`
	Output     any           `json:"output"`
	RejectText *string       `json:"reject_text"`
	Items      []filter.Item `json:"items"`
	Notes      []string      `json:"notes"`
	Dispatch   *dispatchJSON `json:"dispatch"`
	Error      string        `json:"error,omitempty"`
}

type dispatchJSON struct {
	ID                    string `json:"id"`
	ConsecutiveRejections int    `json:"consecutive_rejections"`
	TotalRejections       int    `json:"total_rejections"`
	NeedsInputAccepted    int    `json:"needs_input_accepted"`
}

func runFilter(ctx context.Context, opts *FilterOptions) error {
	err := filterRun(ctx, opts)
	if err == nil {
		return err
	}
	var np *NotPassedError
	var ee *ExitError
	if errors.As(err, &np) || (errors.As(err, &ee) && ee.Code == ExitEscalate) {
		return err
	}
	// Operational and usage failures still print a parseable envelope (conventions.md §2).
	if werr := show(opts.IO, outputFormat(opts.JSON, ""), render.Plain{Envelope: filterJSON{Header: render.NewHeader("filter"),
		Outcome: "error", Items: []filter.Item{}, Notes: []string{}, Error: err.Error()}}); werr != nil {
		return werr
	}
	return err
}

func filterRun(ctx context.Context, opts *FilterOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	decl, err := loadDeclaration(opts)
	if err != nil {
		return err
	}
	raw, err := readRaw(opts)
	if err != nil {
		return err
	}

	var repo filter.Repo
	root := ""
	if opts.Repo || opts.Dispatch != "" {
		r, dir, err := filterRoot(opts)
		if err != nil {
			return err
		}
		root = dir
		if opts.Repo {
			repo = r
		}
	}

	res, err := filter.Check(ctx, raw, decl, repo)
	if err != nil {
		return err
	}

	outcome := filter.OutcomeRejected
	if res.Accepted {
		outcome = filter.OutcomeAccepted
	}
	var counter *filter.Counter
	if opts.Dispatch != "" {
		record, closeRec := controllerRecorder(root)
		counter, outcome, err = filter.Record(root, opts.Dispatch, raw, res, record)
		closeRec()
		if err != nil {
			return fmt.Errorf("dispatch counter: %w", err)
		}
	}

	var text string
	switch outcome {
	case filter.OutcomeAccepted:
		text = string(res.Output)
	case filter.OutcomeRejected:
		text = filter.RejectText(res.Items)
	case filter.OutcomeEscalate:
		text = filter.EscalateText(opts.Dispatch, counter.ConsecutiveRejections, res.Items)
	}

	env := filterJSON{Header: render.NewHeader("filter"), Mode: res.Mode, Outcome: outcome, Variant: res.Variant,
		Items: res.Items, Notes: res.Notes}
	if env.Items == nil {
		env.Items = []filter.Item{}
	}
	if res.Accepted {
		if res.Object != nil {
			env.Output = res.Object
		} else {
			env.Output = string(res.Output)
		}
	} else {
		env.RejectText = &text
	}
	if counter != nil {
		env.Dispatch = &dispatchJSON{ID: counter.DispatchID, ConsecutiveRejections: counter.ConsecutiveRejections,
			TotalRejections: counter.TotalRejections, NeedsInputAccepted: counter.NeedsInputAccepted}
	}
	v := render.Plain{Envelope: env, Text: func(t *render.Text) { t.WriteString(text) }, Diagnostics: func(t *render.Text) {
		for _, n := range res.Notes {
			t.Printf("mastermind: note: %s\n", n)
		}
	}}
	if err := show(opts.IO, outputFormat(opts.JSON, ""), v); err != nil {
		return err
	}

	switch outcome {
	case filter.OutcomeRejected:
		return &NotPassedError{Msg: "report rejected", Silent: true}
	case filter.OutcomeEscalate:
		return &ExitError{Code: ExitEscalate, Msg: "dispatch escalated", Silent: true}
	}
	return nil
}

// loadDeclaration reads the OUTPUT schema from --brief, --schema or --require-heading. A brief
// without a schema, a schema that does not compile and a blank heading are usage errors; an
// unreadable file is operational.
func loadDeclaration(opts *FilterOptions) (*filter.Declaration, error) {
	switch {
	case opts.Brief != "":
		data, err := fsx.ReadFile(opts.Brief, maxBriefBytes)
		if err != nil {
			return nil, fmt.Errorf("--brief: %w", err)
		}
		d, err := filter.ParseBrief(data, opts.Brief)
		if err != nil {
			return nil, &UsageError{Msg: textsafe.Escape(err.Error())}
		}
		d.Union = d.Union || opts.NeedsInput
		return d, nil
	case opts.Schema != "":
		data, err := fsx.ReadFile(opts.Schema, maxBriefBytes)
		if err != nil {
			return nil, fmt.Errorf("--schema: %w", err)
		}
		s, err := filter.CompileSchema(trimBOM(data))
		if err != nil {
			return nil, &UsageError{Msg: textsafe.Escape(err.Error())}
		}
		return &filter.Declaration{Mode: filter.ModeJSONSchema, Schema: s, Union: opts.NeedsInput}, nil
	}
	d := &filter.Declaration{Mode: filter.ModeHeadings, Union: opts.NeedsInput}
	for _, h := range opts.RequireHeading {
		req, err := filter.ParseHeading(h)
		if err != nil {
			return nil, usageErrorf("--require-heading %q: %s", textsafe.Escape(h), err)
		}
		d.Headings = append(d.Headings, req)
	}
	return d, nil
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		return b[3:]
	}
	return b
}

// readRaw reads the raw return from the file or stdin, at most filter.MaxRawBytes.
func readRaw(opts *FilterOptions) ([]byte, error) {
	if opts.Raw != "-" {
		data, err := fsx.ReadFile(opts.Raw, filter.MaxRawBytes)
		if err != nil {
			return nil, fmt.Errorf("raw return: %w", err)
		}
		return data, nil
	}
	in := opts.IO.In
	if in == nil {
		in = os.Stdin
	}
	data, err := io.ReadAll(io.LimitReader(in, filter.MaxRawBytes+1))
	if err != nil {
		return nil, fmt.Errorf("raw return: read standard input: %w", err)
	}
	if len(data) > filter.MaxRawBytes {
		return nil, fmt.Errorf("raw return on standard input is larger than the limit (%d bytes)", filter.MaxRawBytes)
	}
	return data, nil
}

// filterRoot finds the repository root of §2.2: --root DIR, else the git top level of the current
// directory, else the current directory itself when --repo is not set.
func filterRoot(opts *FilterOptions) (*gitscope.Repo, string, error) {
	if opts.Root != "" {
		abs, err := filepath.Abs(opts.Root)
		if err != nil {
			return nil, "", err
		}
		if !opts.Repo {
			return nil, abs, nil
		}
		r, err := gitscope.Open(abs)
		if err != nil {
			return nil, "", fmt.Errorf("--repo: %w", err)
		}
		return r, r.Root(), nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, "", err
	}
	r, err := gitscope.Discover(wd)
	if err != nil {
		if errors.Is(err, gitscope.ErrNotRepository) && !opts.Repo {
			return nil, wd, nil
		}
		if opts.Repo {
			return nil, "", fmt.Errorf("--repo: %w", err)
		}
		return nil, "", err
	}
	return r, r.Root(), nil
}
