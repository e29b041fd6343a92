package cli

import (
	"fmt"
	"slices"

	"github.com/mastermind-controller/mastermind/internal/buildinfo"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/spf13/cobra"
)

// Output formats of --format (gate, run-task, report validate).
const (
	formatText     = render.FormatText
	formatJSON     = render.FormatJSON
	formatGitHub   = render.FormatGitHub
	formatSARIF    = render.FormatSARIF
	formatRDJSON   = render.FormatRDJSON
	formatMarkdown = render.FormatMarkdown
)

// checkFormat validates a --format value.
func checkFormat(v string) error {
	if slices.Contains(render.Formats, v) {
		return nil
	}
	return usageErrorf("--format must be text, json, github, sarif, rdjson or markdown, got %q", v)
}

// formatFlag refuses --format together with --json and folds
// --format json into json, so the command keeps one JSON switch. format "" means text.
func formatFlag(cmd *cobra.Command, format *string, json *bool) error {
	if err := mutuallyExclusive(cmd, "json", "format"); err != nil {
		return err
	}
	if *format == "" {
		return nil
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if *format == formatJSON {
		*json = true
	}
	return nil
}

// outputFormat is the format a command's --json and --format flags select.
func outputFormat(jsonFlag bool, format string) string {
	if jsonFlag {
		return formatJSON
	}
	if format == "" {
		return formatText
	}
	return format
}

// show renders v in format to the command's stdout, coloured when io allows it.
func show(io *IOStreams, format string, v render.View) error {
	r, err := render.For(format, render.Options{Color: io.ColorEnabled,
		Tool: render.ToolMeta{Name: "mastermind", Version: buildinfo.Get().Version, InformationURI: projectURI}})
	if err != nil {
		return err
	}
	return r.Render(render.Streams{Out: io.Out, Err: io.ErrOut}, v)
}

// printWarnings writes advisory warnings to stderr, one "mastermind: warning: " line each.
func printWarnings(io *IOStreams, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintln(io.ErrOut, "mastermind: warning: "+w)
	}
}
