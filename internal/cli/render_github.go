package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// Output formats of --format (gate, run-task, report validate).
const (
	formatText   = "text"
	formatJSON   = "json"
	formatGitHub = "github"
)

// ghMaxPerLevel is the number of error and of warning annotations GitHub Actions shows per step;
// further annotations are dropped by GitHub, so mastermind omits them and says how many.
const ghMaxPerLevel = 10

// ghAnnotation is one GitHub Actions workflow command: ::error or ::warning (or ::notice)
// with file/line/col/title properties. Empty properties and zero positions are omitted.
type ghAnnotation struct {
	Level   string // "error", "warning" or "notice"
	File    string
	Line    int
	Col     int
	Title   string
	Message string
}

// ghEscapeData escapes a workflow command's message: % as %25, CR as %0D, LF as %0A.
func ghEscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghEscapeProperty escapes a workflow command property value: the data escapes plus : as %3A
// and , as %2C.
func ghEscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// String renders the workflow command line (without a trailing newline).
func (a ghAnnotation) String() string {
	var props []string
	if a.File != "" {
		props = append(props, "file="+ghEscapeProperty(a.File))
	}
	if a.Line > 0 {
		props = append(props, "line="+strconv.Itoa(a.Line))
		if a.Col > 0 {
			props = append(props, "col="+strconv.Itoa(a.Col))
		}
	}
	if a.Title != "" {
		props = append(props, "title="+ghEscapeProperty(a.Title))
	}
	s := "::" + a.Level
	if len(props) > 0 {
		s += " " + strings.Join(props, ",")
	}
	return s + "::" + ghEscapeData(a.Message)
}

// writeGitHubAnnotations writes the annotations in order, at most ghMaxPerLevel errors and
// ghMaxPerLevel warnings; when some are omitted, a ::notice line says how many. Messages and
// properties are textsafe-escaped first, then escaped per the workflow-command rules.
func writeGitHubAnnotations(w io.Writer, anns []ghAnnotation) error {
	shown := map[string]int{}
	omitted := map[string]int{}
	var b strings.Builder
	for _, a := range anns {
		if a.Level != "notice" && shown[a.Level] >= ghMaxPerLevel {
			omitted[a.Level]++
			continue
		}
		shown[a.Level]++
		a.File, a.Title, a.Message = textsafe.Escape(a.File), textsafe.Escape(a.Title), textsafe.Escape(a.Message)
		b.WriteString(a.String())
		b.WriteByte('\n')
	}
	if omitted["error"]+omitted["warning"] > 0 {
		n := ghAnnotation{Level: "notice", Title: "mastermind",
			Message: fmt.Sprintf("%d error and %d warning annotations omitted (GitHub shows at most %d of each per step); see the full log",
				omitted["error"], omitted["warning"], ghMaxPerLevel)}
		b.WriteString(n.String())
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ghLevel maps a finding class to an annotation level.
func ghLevel(c finding.Class) string {
	if c == finding.ClassWarning {
		return "warning"
	}
	return "error"
}

// findingAnnotation annotates a positioned finding (report violation, pre-flight spec rule) at
// its file, line and column, titled with its rule id.
func findingAnnotation(f finding.Finding, prefix string) ghAnnotation {
	return ghAnnotation{Level: ghLevel(f.Class), File: f.File, Line: f.Line, Col: f.Column, Title: f.Rule,
		Message: prefix + f.Message}
}

// reportSideKinds are audit kinds about the executor report's own content; without a file
// field they are annotated on executor-report.md, every other kind on spec.md.
var reportSideKinds = map[string]bool{
	postflight.KindExecutorReportRejected: true, postflight.KindReportMissingChangedFile: true,
	postflight.KindReportUnexpectedFile: true, postflight.KindObservedExitCodeNonZero: true,
	postflight.KindObservedZeroTests: true, postflight.KindVacuousTestClaim: true,
	postflight.KindClaimedSymbolMissing: true, postflight.KindClaimedSymbolNotAdded: true,
	postflight.KindClaimedSignatureMismatch: true, postflight.KindHallucinatedSymbol: true,
	postflight.KindMissingCallEdge: true, postflight.KindExecutorClaimUnresolved: true,
}

// auditAnnotation annotates an audit finding of task: on the file it names (its `file` field,
// except the escaped bytes of changed_path_unrepresentable), otherwise on the task's
// executor-report.md or spec.md. Audit findings carry no line.
func auditAnnotation(f finding.Finding, task postflight.Task, prefix string) ghAnnotation {
	file := task.Spec
	if reportSideKinds[f.Rule] {
		file = task.ReportRel()
	}
	if v := f.FieldString("file"); v != "" && f.Rule != postflight.KindChangedPathUnrepresentable {
		file = v
	}
	return ghAnnotation{Level: ghLevel(f.Class), File: file, Title: f.Rule, Message: prefix + f.Message}
}

// resultAnnotations annotates one run-task result: audit findings and report violations in
// post-flight (a rejected report is annotated by its violations alone), rule findings in
// pre-flight, and a refusal without findings on the spec.
func resultAnnotations(res *postflight.Result, prefix string) []ghAnnotation {
	var anns []ghAnnotation
	for _, f := range res.Findings {
		if f.Rule == postflight.KindExecutorReportRejected && len(res.ReportViolations) > 0 {
			continue // the violations below carry the detail, with positions
		}
		if res.Phase == postflight.PhasePostflight {
			anns = append(anns, auditAnnotation(f, res.Task, prefix))
		} else {
			if f.File == "" {
				f.File = res.Task.Spec
			}
			anns = append(anns, findingAnnotation(f, prefix))
		}
	}
	for _, f := range res.ReportViolations {
		anns = append(anns, findingAnnotation(f, prefix))
	}
	if len(anns) == 0 && res.ExitCode == ExitNotPassed && res.Message != "" {
		anns = append(anns, ghAnnotation{Level: "error", File: res.Task.Spec, Title: "mastermind " + res.Outcome, Message: prefix + res.Message})
	}
	return anns
}

// checkFormat validates a --format value.
func checkFormat(v string) error {
	switch v {
	case formatText, formatJSON, formatGitHub, formatSARIF, formatRDJSON, formatMarkdown:
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
