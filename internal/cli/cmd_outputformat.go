package cli

import (
	"fmt"
	"io"

	"github.com/mastermind-controller/mastermind/internal/contracts/outputformat"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/spf13/cobra"
)

// outputFormatLimit is the 16 MiB input limit shared by the agent contracts.
const outputFormatLimit = 16 << 20

// OutputFormatOptions holds the flags of `mastermind output-format check|lint`.
type OutputFormatOptions struct {
	IO     *IOStreams
	Lint   bool
	Skill  string
	Output string // file, "-" or "" (stdin)
	Mode   string // "" | strict | lenient
	JSON   bool
}

// NewCmdOutputFormat builds `mastermind output-format check|lint`. runF replaces the run function
// in tests.
func NewCmdOutputFormat(io *IOStreams, runF func(*OutputFormatOptions) error) *cobra.Command {
	run := func(opts *OutputFormatOptions) error {
		if opts.Mode != "" && opts.Mode != string(outputformat.Strict) && opts.Mode != string(outputformat.Lenient) {
			return usageErrorf("--mode must be strict or lenient, got %q", opts.Mode)
		}
		if runF != nil {
			return runF(opts)
		}
		return runOutputFormat(opts)
	}
	parent := &cobra.Command{
		Use:   "output-format",
		Short: "Check a skill's output against the output_format regex in its SKILL.md",
		Long: `A SKILL.md frontmatter may declare output_format (a Go RE2 regex the skill's output must
match, searched unanchored) and output_format_mode (strict or lenient, default lenient).

Exit status: 0 match, not declared or lenient deviation; 1 strict deviation or invalid
configuration; 2 usage; 3 unreadable SKILL.md or output.

` + outputFormatDifferencesHelp,
		Example: "  mastermind output-format check --skill skills/architect/SKILL.md out.txt",
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	copts := &OutputFormatOptions{IO: io}
	check := &cobra.Command{
		Use:   "check --skill SKILL.md [<output-file>|-]",
		Short: "Check one output against a skill's output_format",
		Long: `Match the output (a file, or stdin when omitted or "-", as raw bytes) against the skill's
output_format. A deviation prints
  output_format deviation (<mode>): expected output matching /<pattern>/, got: "<output>"
on stderr, the output cut to 200 code points. The mode is --mode, else output_format_mode,
else lenient.

Exit status:
  0  match, not declared, or a lenient deviation / invalid regex (a warning)
  1  strict deviation or invalid regex, or invalid output_format configuration
  2  usage error
  3  unreadable SKILL.md or output`,
		Example: "  mastermind output-format check --skill SKILL.md out.txt\n  skill-run | mastermind output-format check --skill SKILL.md --mode strict --json",
		Args:    rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				copts.Output = args[0]
			}
			return run(copts)
		},
	}
	check.Flags().StringVar(&copts.Skill, "skill", "", "the skill's `SKILL.md` (required)")
	check.Flags().StringVar(&copts.Mode, "mode", "", "override output_format_mode: strict or lenient")
	check.Flags().BoolVar(&copts.JSON, "json", false, "print the result as a JSON envelope")
	_ = check.MarkFlagRequired("skill")

	lopts := &OutputFormatOptions{IO: io, Lint: true}
	lint := &cobra.Command{
		Use:   "lint --skill SKILL.md",
		Short: "Report output_format configuration problems without an output",
		Long: `Report an unknown output_format_mode, a non-string output_format, frontmatter that is not
valid YAML, or a pattern Go's RE2 cannot compile (look-around, back-references, \cX).

Exit status: 0 fine or not declared, 1 configuration problem, 2 usage, 3 unreadable SKILL.md.`,
		Example: "  mastermind output-format lint --skill skills/architect/SKILL.md",
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return run(lopts) },
	}
	lint.Flags().StringVar(&lopts.Skill, "skill", "", "the skill's `SKILL.md` (required)")
	lint.Flags().BoolVar(&lopts.JSON, "json", false, "print the result as a JSON envelope")
	_ = lint.MarkFlagRequired("skill")
	for _, c := range []*cobra.Command{check, lint} {
		c.PreRunE = func(cmd *cobra.Command, args []string) error {
			if err := cmd.ValidateRequiredFlags(); err != nil {
				return &UsageError{Msg: err.Error()}
			}
			return nil
		}
	}
	parent.AddCommand(check, lint)
	return parent
}

// outputFormatEnvelope is the --json output of agent-contracts.md §3.5.
type outputFormatEnvelope struct {
	render.Header
	Skill      string  `json:"skill"`
	Declared   bool    `json:"declared"`
	Pattern    *string `json:"pattern"`
	Mode       string  `json:"mode"`
	Outcome    string  `json:"outcome"`
	Passed     bool    `json:"passed"`
	Message    string  `json:"message,omitempty"`
	RegexError string  `json:"regex_error,omitempty"`
	Note       string  `json:"note,omitempty"`
}

func runOutputFormat(opts *OutputFormatOptions) error {
	skill, err := fsx.ReadFile(opts.Skill, outputFormatLimit)
	if err != nil {
		return fmt.Errorf("could not read SKILL.md: %w", err)
	}
	cfg := outputformat.ParseSkill(skill)
	mode := outputformat.Mode(opts.Mode)
	var res outputformat.Result
	command := "output-format check"
	if opts.Lint {
		command = "output-format lint"
		res = outputformat.Lint(cfg, mode)
	} else {
		var output []byte
		if opts.Output == "" || opts.Output == "-" {
			output, err = io.ReadAll(io.LimitReader(opts.IO.In, outputFormatLimit+1))
			if err == nil && len(output) > outputFormatLimit {
				err = fmt.Errorf("stdin is larger than the limit (more than %d bytes)", outputFormatLimit)
			}
		} else {
			output, err = fsx.ReadFile(opts.Output, outputFormatLimit)
		}
		if err != nil {
			return fmt.Errorf("could not read output: %w", err)
		}
		res = outputformat.Check(cfg, output, mode)
	}
	env := outputFormatEnvelope{Header: render.NewHeader(command), Skill: opts.Skill, Declared: res.Declared,
		Mode: string(res.Mode), Outcome: string(res.Outcome), Passed: res.Passed, Message: res.Message,
		RegexError: res.RegexError, Note: res.Note}
	if res.Declared {
		env.Pattern = &res.Pattern
	}
	v := render.Plain{Envelope: env, Diagnostics: func(t *render.Text) {
		switch res.Outcome {
		case outputformat.ConfigError:
			t.Printf("output_format configuration invalid: %s\n", res.Message)
		case outputformat.InvalidRegex:
			if opts.Lint {
				t.Printf("output_format configuration invalid: %s\n", res.Message)
			} else {
				t.Printf("%s\n", res.Line())
			}
			t.Printf("  regex error: %s\n", res.RegexError)
		case outputformat.Deviation:
			t.Printf("%s\n", res.Line())
		case outputformat.NotDeclared:
			if res.Note != "" {
				t.Printf("note: %s\n", res.Note)
			}
		}
	}, Text: func(t *render.Text) {
		if opts.Lint && res.Passed {
			if res.Declared {
				t.Printf("output_format OK: /%s/ (%s)\n", res.Pattern, res.Mode)
			} else {
				t.WriteString("output_format not declared\n")
			}
		}
	}}
	if err := show(opts.IO, outputFormat(opts.JSON, ""), v); err != nil {
		return err
	}
	if !res.Passed {
		return &NotPassedError{Msg: string(res.Outcome), Silent: true}
	}
	return nil
}
