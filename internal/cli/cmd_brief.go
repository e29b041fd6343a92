package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mastermind-controller/mastermind/internal/brief"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// BriefOptions holds the flags of `mastermind brief`.
type BriefOptions struct {
	IO      *IOStreams
	Spec    string
	Format  string
	Root    string
	Current bool
}

const briefLong = `Print the executor's brief for one task (integrations.md §1): what an orchestrator pastes into
the executor's prompt so its report can pass the post-flight. The task is given as its spec, its
task folder (.mastermind/tasks/<NNN>-<slug>) or its folder name (<NNN>-<slug>).

The brief holds the task id and title, the spec's goals, the declared scope (touches, creates,
deletes, expected_docs: the only files the executor may change; forbids: patterns no change may
match), the verify commands (run_by executor: the executor runs it and reports what it observed;
run_by mastermind: the spec marks it run: true and the controller runs it at post-flight,
verification-receipts.md), the report path with a report template pre-filled with
schema_version, spec and empty lists, and one line per rule that makes a report pass, from the
same finding-kind table the audit uses.

The output depends only on the spec's bytes: the same spec gives the same brief. Nothing is
written; the task needs no state (run it before or after pre-flight).

--format markdown (default) prints Markdown; --format json prints {schema_version: 1, command:
"brief", task, title, spec, spec_hash, mode, risk, goals, scope: {source, touches, creates,
deletes, expected_docs, forbids, declared}, verify: [{cmd, run_by}], report: {path, template},
rules: [{id, class, text}]}.

Exit status:
  0  the brief was printed
  1  the spec cannot be read or does not pass the pre-flight spec rules (the findings are printed
     on stderr): there is no contract to brief
  2  usage error (bad flags, a task that is not a spec, task folder or
     folder name of .mastermind/tasks/<NNN>-<slug>)
  3  operational: not a git repository, I/O error`

// NewCmdBrief builds `mastermind brief (<spec> | --current) [--format markdown|json]`.
func NewCmdBrief(io *IOStreams, runF func(*BriefOptions) error) *cobra.Command {
	opts := &BriefOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "brief (<spec> | --current) [--format markdown|json] [--root DIR]",
		Short: "Print the executor's brief: scope, verify commands, report template and pass rules",
		Long:  briefLong,
		Example: `  mastermind brief .mastermind/tasks/014-retry-helper/spec.md
  mastermind brief --current --format json`,
		Args: specArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.Current && len(args) == 1:
				return usageErrorf("give either a spec or --current, not both")
			case !opts.Current && len(args) == 0:
				return usageErrorf("%s takes 1 argument(s), got 0 (a spec path, or --current)", cmd.CommandPath())
			case len(args) == 1:
				opts.Spec = args[0]
			}
			if opts.Format != "markdown" && opts.Format != "json" {
				return usageErrorf("--format must be markdown or json, got %q", opts.Format)
			}
			if runF != nil {
				return runF(opts)
			}
			return runBrief(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Format, "format", "markdown", "output format: markdown or json")
	f.StringVar(&opts.Root, "root", "", "repository root (default: discovered from the current directory)")
	f.BoolVar(&opts.Current, "current", false, "brief the current task (the controller store's, mirrored in .mastermind/current)")
	_ = cmd.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"markdown", "json"}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func runBrief(_ context.Context, opts *BriefOptions) error {
	b, err := buildBrief(opts.Root, opts.Spec, opts.Current, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		return render.WriteJSON(opts.IO.Out, briefEnvelope{Header: render.NewHeader("brief"), Brief: b})
	}
	_, err = io.WriteString(opts.IO.Out, b.Markdown())
	return err
}

// briefEnvelope is brief --format json: the header, then the brief's keys.
type briefEnvelope struct {
	render.Header
	brief.Brief
}

// auditRules are the rows of the finding-kind table the executor answers for, as the brief states
// them. Reserved kinds and the planner's are left out.
func auditRules() []brief.Rule {
	var out []brief.Rule
	for _, k := range finding.Kinds {
		if !k.Reserved && !k.Planner {
			out = append(out, brief.Rule{ID: k.ID, Class: k.Class, Text: k.Help})
		}
	}
	return out
}

// buildBrief resolves the task and builds its brief. Spec findings go to errOut, dropped when it is
// nil, and make a *NotPassedError.
func buildBrief(root, specArg string, current bool, errOut io.Writer) (brief.Brief, error) {
	repo, err := openRepo(root)
	if err != nil {
		return brief.Brief{}, err
	}
	if current {
		if specArg, err = currentSpec(repo, errOut); err != nil {
			return brief.Brief{}, err
		}
	}
	task, err := postflight.ResolveTask(repo.Root(), specArg)
	if err != nil {
		var spe *postflight.SpecPathError
		if errors.As(err, &spe) {
			return brief.Brief{}, &UsageError{Msg: err.Error()}
		}
		return brief.Brief{}, err
	}
	s, fs, err := spec.Read(repo.Root(), task.Spec)
	if err != nil {
		return brief.Brief{}, err
	}
	var errs []finding.Finding
	for _, f := range fs {
		if f.Class != finding.ClassWarning {
			errs = append(errs, f)
		}
	}
	if s == nil || len(errs) > 0 {
		if errOut != nil {
			for _, f := range errs {
				fmt.Fprintln(errOut, textsafe.Escape(f.String()))
			}
		}
		return brief.Brief{}, &NotPassedError{Msg: fmt.Sprintf("%s does not pass the spec rules (%d finding(s)); fix the spec before briefing an executor", task.Spec, len(errs))}
	}
	return brief.Build(s, task.Name, task.Spec, auditRules()), nil
}
