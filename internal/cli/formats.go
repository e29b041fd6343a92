package cli

import (
	"bytes"
	"errors"
	"iter"
	"os"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/spec"
)

// projectURI is the project home page named in SARIF tool.driver and rdjson source.
const projectURI = "https://github.com/mastermind-controller/mastermind"

// maxSourceBytes bounds a file read for its findings' columns: no positioned finding lies in a
// larger spec or report.
const maxSourceBytes = max(spec.MaxBytes, report.MaxBytes)

// sourceLines is the render.LineSource of files read once each by read, split at LF without a
// leading BOM as the findings' positions count them (executor-report-v1.md §1.2).
func sourceLines(read func(path string) ([]byte, error)) render.LineSource {
	files := map[string][]string{}
	return func(path string, n int) (string, bool) {
		lines, ok := files[path]
		if !ok {
			if data, err := read(path); err == nil {
				lines = strings.Split(string(bytes.TrimPrefix(data, []byte("\uFEFF"))), "\n")
			}
			files[path] = lines
		}
		if n < 1 || n > len(lines) {
			return "", false
		}
		return lines[n-1], true
	}
}

// repoLines is the sourceLines of the work tree at root, read without following a symlink.
func repoLines(root string) render.LineSource {
	return sourceLines(func(rel string) ([]byte, error) { return fsx.ReadInRoot(root, rel, maxSourceBytes) })
}

// outcomeVerdict is the verdict word of a run-task outcome in the finding sets; an outcome with
// no verdict word of its own is named by itself, and one it does not know is "error".
func outcomeVerdict(outcome postflight.OutcomeKind) string {
	switch outcome {
	case postflight.OutcomePostHeld:
		return "held"
	case postflight.OutcomePostDrift:
		return "drift"
	case postflight.OutcomePostBroken:
		return "broken"
	case postflight.OutcomePreReady:
		return "approved"
	case postflight.OutcomePreRefused, postflight.OutcomePostRefused:
		return "refused"
	case postflight.OutcomeError:
		return "error"
	case postflight.OutcomeHistoryPending, postflight.OutcomeCompleted, postflight.OutcomeAccepted, postflight.OutcomeAcceptRefused:
		return string(outcome)
	}
	return "error"
}

// auditResults are an audit's findings as results: a rejected report by its violations alone,
// which carry the detail with positions, then the violations.
func auditResults(fs iter.Seq[finding.Finding], violations []finding.Finding) iter.Seq[finding.Finding] {
	return func(yield func(finding.Finding) bool) {
		for f := range fs {
			if f.Rule == finding.KindExecutorReportRejected && len(violations) > 0 {
				continue
			}
			if !yield(f) {
				return
			}
		}
		for _, f := range violations {
			if !yield(f) {
				return
			}
		}
	}
}

// Findings is the run-task outcome as one task's results: its audit or rule findings, or for a
// refusal or an error without findings one result on the spec carrying the message.
func (v runTaskView) Findings() render.Findings {
	o := v.o
	s := render.FindingSet{Task: o.Task.Name, Spec: o.Task.Spec, Verdict: outcomeVerdict(o.Outcome), Message: o.Line(),
		Lines: repoLines(o.Task.Root)}
	if o.Task.Dir != "" {
		s.Report = o.Task.ReportRel()
	}
	command := "mastermind run-task"
	if v.err != nil {
		s.Verdict, s.Message = "error", v.msg
	} else {
		for f := range auditResults(o.AllFindings(), o.ReportViolations) {
			if o.Phase != postflight.PhasePostflight && f.File == "" {
				f.File = o.Task.Spec
			}
			s.Findings = append(s.Findings, f)
		}
	}
	if len(s.Findings) == 0 && (s.Verdict == "refused" || s.Verdict == "error") && s.Message != "" {
		rule := render.RuleTaskError
		if s.Verdict == "refused" {
			rule, command = render.RuleRefused, "mastermind "+string(o.Outcome)
		}
		s.Findings = append(s.Findings, finding.Finding{Rule: rule, Class: finding.ClassError, File: o.Task.Spec, Message: s.Message})
	}
	return render.Findings{Title: "mastermind run-task", Command: command, Sets: []render.FindingSet{s}}
}

// Findings is one set per gated task, then the range findings as a set without a task. A gate that
// could not run at all has one result located nowhere, which SARIF and rdjson leave out and
// GitHub shows.
func (v gateView) Findings() render.Findings {
	fs := render.Findings{Title: "mastermind gate", Footer: v.summary, Command: "mastermind gate", NameTasks: true}
	if v.res != nil && v.res.Since != "" {
		fs.Title = "mastermind gate --since " + postflight.ShortOID(v.res.Since)
	}
	if v.err != "" {
		fs.NameTasks = false
		fs.Sets = []render.FindingSet{{Task: "gate", Verdict: "error", Message: v.err,
			Findings: []finding.Finding{{Rule: render.RuleTaskError, Class: finding.ClassError, Message: v.err}}}}
		return fs
	}
	for _, t := range v.res.Tasks {
		fs.Sets = append(fs.Sets, gateSet(t))
	}
	if len(v.res.Findings) > 0 {
		var rs render.FindingSet
		for _, f := range v.res.Findings {
			f.File = rangeFile(f)
			rs.Findings = append(rs.Findings, f)
		}
		fs.Sets = append(fs.Sets, rs)
	}
	return fs
}

// gateSet is one gated task's results.
func gateSet(t postflight.GateTask) render.FindingSet {
	s := render.FindingSet{Task: t.Task.Name, Spec: t.Task.Spec, Verdict: string(t.Status), Message: t.Reason,
		Lines: repoLines(t.Task.Root)}
	if t.Task.Dir != "" {
		s.Report = t.Task.ReportRel()
	}
	one := func(rule, file string) {
		s.Findings = append(s.Findings, finding.Finding{Rule: rule, Class: finding.ClassError, File: file, Message: t.Reason})
	}
	switch t.Status {
	case postflight.GateDrift, postflight.GateBroken:
		s.Findings = slices.Collect(auditResults(slices.Values(t.Findings), t.ReportViolations))
	case postflight.GateRefused:
		one(render.RuleRefused, t.Task.Spec)
	case postflight.GateNotStarted:
		one(render.RuleNotStarted, t.Task.Spec)
	case postflight.GateError:
		file := t.Task.StateRel()
		var ntf *postflight.NotTaskFolderError
		if errors.As(t.Err, &ntf) {
			file = t.Task.Dir // a misnamed directory has no state.json
		}
		one(render.RuleTaskError, file)
	case postflight.GateLearned:
		if !t.Passed {
			one(render.RuleUnbacked, t.Task.HistoryReviewRel())
		} else {
			s.Message = ""
		}
	}
	return s
}

// Findings is the validated report as one set: its violations at their lines, or the read
// error, located at the report's machine path (v.file).
func (v reportView) Findings() render.Findings {
	const command = "mastermind report validate"
	file := v.file
	if file == "" {
		file = v.display
	}
	s := render.FindingSet{Task: file, Spec: file, Report: file, Verdict: "valid"}
	if v.file != "" {
		s.Lines = sourceLines(func(path string) ([]byte, error) {
			if path != v.file {
				return nil, os.ErrNotExist
			}
			return fsx.ReadFile(v.display, maxSourceBytes)
		})
	}
	fs := render.Findings{Title: command, Command: command}
	if v.err != nil {
		s.Verdict = "error"
		s.Findings = []finding.Finding{{Rule: render.RuleTaskError, Class: finding.ClassError, File: file, Message: v.err.Error()}}
		fs.Sets = []render.FindingSet{s}
		return fs
	}
	for _, f := range v.res.All() {
		f.File = file
		s.Findings = append(s.Findings, f)
	}
	if len(s.Findings) > 0 {
		s.Verdict = "invalid"
	}
	fs.Sets = []render.FindingSet{s}
	return fs
}
