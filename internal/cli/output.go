package cli

import (
	"fmt"
	"slices"

	"github.com/mastermind-controller/mastermind/internal/buildinfo"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/postflight"
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

// findingAnnotation annotates a positioned finding (report violation, pre-flight spec rule) at
// its file, line and column, titled with its rule id.
func findingAnnotation(f finding.Finding, prefix string) render.Annotation {
	f.Message = prefix + f.Text()
	return render.Annotation{Finding: f}
}

// errorAnnotation is an error located on file ("" for none), titled title.
func errorAnnotation(title, file, msg string) render.Annotation {
	return render.Annotation{Finding: finding.Finding{Class: finding.ClassError, File: file, Message: msg}, Title: title}
}

// auditAnnotation annotates an audit finding of task: on the file it names (its `file` field,
// except the escaped bytes of changed_path_unrepresentable), otherwise on the task's
// executor-report.md for a kind about the report's own content (finding.Kind.ReportSide) or on
// spec.md. Audit findings carry no line.
func auditAnnotation(f finding.Finding, task postflight.Task, prefix string) render.Annotation {
	file := task.Spec
	if k, ok := finding.KindOf(f.Rule); ok && k.ReportSide {
		file = task.ReportRel()
	}
	if v := f.FieldString("file"); v != "" && f.Rule != finding.KindChangedPathUnrepresentable {
		file = v
	}
	return render.Annotation{Finding: finding.Finding{Rule: f.Rule, Class: f.Class, File: file, Message: prefix + f.Text()}}
}

// checkFormat validates a --format value.
func checkFormat(v string) error {
	if slices.Contains(render.Formats, v) {
		return nil
	}
	return usageErrorf("--format must be text, json, github, sarif, rdjson or markdown, got %q", v)
}

// formatFlag validates --format against --json (they cannot be used together) and folds
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
