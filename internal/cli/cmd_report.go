package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// NewCmdReport builds the `mastermind report` command group.
func NewCmdReport(io *IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Work with executor reports (executor-report.md)",
		Long: `Commands for the executor report contract (schema v1).

Exit status: see the subcommands.`,
		Example: "  mastermind report validate .mastermind/tasks/014-retry-helper/executor-report.md",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(NewCmdReportValidate(io, nil))
	return cmd
}

// ReportValidateOptions holds the arguments and flags of `mastermind report validate`.
type ReportValidateOptions struct {
	IO   *IOStreams
	File string // path, or "-" for standard input
	JSON bool
	// Format is --format: "" (text unless --json), or one of render.Formats.
	Format string
	// root, set by the MCP server, confines File to that repository root: File is then relative
	// to it and read without following links.
	root string
}

// NewCmdReportValidate builds `mastermind report validate FILE|- [--json]`. runF replaces the run
// function in tests.
func NewCmdReportValidate(io *IOStreams, runF func(*ReportValidateOptions) error) *cobra.Command {
	opts := &ReportValidateOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "validate <file|->",
		Short: "Check one executor report against the v1 contract",
		Long: `Check one executor report against the executor report contract, schema v1: transport
(regular file, no symlink, at most 1 MiB, stable while read), UTF-8, the sentinel or bare form,
strict YAML/JSON values, the JSON Schema and the consistency rules, and the post-flight rules
that need neither git nor the spec: a verification reported as pass whose observed exit code is
not 0 (observed_exit_code_non_zero), that observed 0 tests for a recognised test runner
(observed_zero_tests), or whose output_excerpt shows the runner's failure summary
(verification_pass_contradicted). No git comparison is made. "-" reads the report from standard
input.

Each finding prints as "file:line:column: message [rule]" on stdout; a valid report prints
one line, "file: valid executor report (sentinel form, schema_version 1)". --json (or --format json) prints {schema_version, command, file, form, valid,
findings}. --format github prints a GitHub Actions ::error annotation per finding (at most 10,
then a ::notice with the number omitted), then the text lines. --format sarif, rdjson and
markdown write the violations as a SARIF 2.1.0 log, reviewdog rdjson or a job summary
(integrations.md §4). --format and --json cannot be
used together.

When the file lies inside a git repository, it must also be reachable from the repository root
without passing through a symbolic link.

Exit status:
  0  the report is valid
  1  one or more findings (including report.missing)
  2  usage error
  3  I/O error other than the transport refusals (for example permission denied)`,
		Example: "  mastermind report validate .mastermind/tasks/014-retry-helper/executor-report.md\n" +
			"  mastermind report validate --json executor-report.md\n" +
			"  cat executor-report.md | mastermind report validate -",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if err := formatFlag(cmd, &opts.Format, &opts.JSON); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runReportValidate(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {schema_version, command, file, form, valid, findings} as JSON")
	cmd.Flags().StringVar(&opts.Format, "format", "", "output format: text (default), json, github, sarif, rdjson or markdown")
	return cmd
}

// reportValidateJSON is the --json envelope of executor-report-v1.md §6.
type reportValidateJSON struct {
	render.Header
	File     string            `json:"file"`
	Form     *string           `json:"form"`
	Valid    bool              `json:"valid"`
	Findings []finding.Finding `json:"findings"`
	Outcome  string            `json:"outcome,omitempty"`
	Error    string            `json:"error,omitempty"`
}

// reportView is a report validation in every output format; err is a read error (exit 3).
// file is the report's path in the machine formats (reportFile), "" for standard input.
type reportView struct {
	display string
	file    string
	res     report.Result
	err     error
}

func (v reportView) WriteText(t *render.Text) {
	if v.err != nil {
		return
	}
	all := v.res.All()
	for _, f := range all {
		t.Printf("%s\n", textsafe.Escape(f.String()))
	}
	if len(all) == 0 && v.res.Report != nil {
		t.Printf("%s: valid executor report (%s form, schema_version %d)\n", textsafe.Escape(v.display), v.res.Form, v.res.Report.SchemaVersion)
	}
}

func (v reportView) JSON() any {
	env := reportValidateJSON{Header: render.NewHeader("report validate"), File: v.display, Findings: []finding.Finding{}}
	if v.err != nil {
		env.Outcome, env.Error = "error", v.err.Error()
		return env
	}
	if all := v.res.All(); len(all) > 0 {
		env.Findings = all
	}
	env.Valid = len(env.Findings) == 0
	if v.res.Form != "" {
		f := string(v.res.Form)
		env.Form = &f
	}
	return env
}

func runReportValidate(opts *ReportValidateOptions) error {
	display, file := opts.File, ""
	var res report.Result
	var err error
	if opts.File == "-" {
		display = "<stdin>"
		res, err = report.ReadFrom(opts.IO.In, display)
	} else if opts.root != "" {
		file = opts.File
		res, err = report.ReadInRoot(opts.root, opts.File, opts.File)
	} else {
		res, file, err = readReportFile(opts.File)
	}
	format := outputFormat(opts.JSON, opts.Format)
	if err != nil {
		_ = show(opts.IO, format, reportView{display: display, file: file, err: err})
		return &ExitError{Code: ExitOperational, Msg: textsafe.Escape(err.Error()), Err: err}
	}
	// Findings and the audit rules that need no git or spec (lifecycle-v2.md §6).
	all := res.All()
	if err := show(opts.IO, format, reportView{display: display, file: file, res: res}); err != nil {
		return err
	}
	if len(all) > 0 {
		return &NotPassedError{Msg: fmt.Sprintf("%d finding(s)", len(all)), Silent: true}
	}
	return nil
}

// readReportFile applies executor-report-v1.md §1.1 to a user-given path: checks 1 and 3–5
// always, and the containment part of check 2 when the file lies inside a git repository (found
// with gitscope.Discover from the file's directory). Findings name the path as given. file is the
// report's path for the machine formats (integrations.md §4): relative to the repository root
// when the file lies in the repository whose root is the current directory, as run-task and gate
// name files, else absolute, which SARIF writes as a file URI and reviewdog resolves itself.
func readReportFile(path string) (res report.Result, file string, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return report.Result{}, "", err
	}
	file = filepath.ToSlash(abs)
	if fi, err := os.Stat(filepath.Dir(abs)); err == nil && fi.IsDir() {
		if repo, err := gitscope.Discover(filepath.Dir(abs)); err == nil {
			if rel, err := fsx.Rel(repo.Root(), abs); err == nil {
				if wd, err := os.Getwd(); err == nil && sameDir(wd, repo.Root()) {
					file = rel
				}
				res, err := report.ReadInRoot(repo.Root(), rel, path)
				return res, file, err
			}
		} else if !errors.Is(err, gitscope.ErrNotRepository) {
			// A repository that cannot be inspected: still apply checks 1 and 3–5.
			res, err := report.ReadPath(path, path)
			return res, file, err
		}
	}
	res, err = report.ReadPath(path, path)
	return res, file, err
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}
