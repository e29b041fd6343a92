package cli

import (
	"bytes"
	"errors"
	"os"
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

// Rule ids of results that are not findings (a refusal, a task the gate could not audit). They
// appear as SARIF rules and as the code of rdjson diagnostics (integrations.md §4).
const (
	ruleRefused    = render.RuleRefused
	ruleNotStarted = render.RuleNotStarted
	ruleTaskError  = render.RuleTaskError
	ruleUnbacked   = render.RuleUnbacked
)

// maxSourceBytes bounds a file read for its findings' columns: no positioned finding lies in a
// larger spec or report.
const maxSourceBytes = max(spec.MaxBytes, report.MaxBytes)

// sourceLines is the render.LineSource of files read by read (each once): their lines split at LF
// as the findings' positions count them (executor-report-v1.md §1.2), without a leading BOM.
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

// outcomeVerdict is the verdict word of a run-task outcome in the job summary.
func outcomeVerdict(outcome string) string {
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
	}
	return outcome
}

// FindingSets is the run-task outcome as one task's results (render.TaskResults): the audit
// findings (a rejected report by its violations alone, which carry positions) and report
// violations in post-flight, the rule findings in pre-flight (on the spec when they name no
// file), and for a refusal or an error without findings one result carrying the message.
func (v runTaskView) FindingSets() []render.FindingSet {
	o := v.o
	s := render.FindingSet{Task: o.Task.Name, Spec: o.Task.Spec, Verdict: outcomeVerdict(o.Outcome), Message: o.Message,
		Lines: repoLines(o.Task.Root)}
	if v.err != nil {
		s.Verdict, s.Message = "error", v.msg
	}
	if o.Task.Dir != "" {
		s.Report = o.Task.ReportRel()
	}
	if v.err == nil && o.Outcome != postflight.OutcomeHistoryPending && o.Outcome != postflight.OutcomeCompleted {
		for f := range o.AllFindings() {
			if f.Rule == finding.KindExecutorReportRejected && len(o.ReportViolations) > 0 {
				continue
			}
			if o.Phase != postflight.PhasePostflight && f.File == "" {
				f.File = o.Task.Spec
			}
			s.Findings = append(s.Findings, f)
		}
		s.Findings = append(s.Findings, o.ReportViolations...)
	}
	if len(s.Findings) == 0 && (s.Verdict == "refused" || s.Verdict == "error") && s.Message != "" {
		rule := ruleRefused
		if s.Verdict == "error" {
			rule = ruleTaskError
		}
		s.Findings = append(s.Findings, finding.Finding{Rule: rule, Class: finding.ClassError, File: o.Task.Spec, Message: s.Message})
	}
	return []render.FindingSet{s}
}

// SummaryTitle heads run-task's job summary.
func (runTaskView) SummaryTitle() string { return "mastermind run-task" }

// SummaryFooter: run-task's summary has none.
func (runTaskView) SummaryFooter() string { return "" }

// FindingSets is one set per gated task, with the same results as the gate's annotations: every
// finding of a drift or broken task, one result for a refused, not started or errored task, or
// a learned task whose history review does not back its closure. A gate that could not run at
// all has no sets (a valid SARIF log without results; the error is on stderr).
func (v gateView) FindingSets() []render.FindingSet {
	if v.err != "" {
		return []render.FindingSet{{Task: "gate", Verdict: "error", Message: v.err}}
	}
	sets := make([]render.FindingSet, 0, len(v.res.Tasks))
	for _, t := range v.res.Tasks {
		s := render.FindingSet{Task: t.Task.Name, Spec: t.Task.Spec, Verdict: t.Status, Message: t.Reason,
			Lines: repoLines(t.Task.Root)}
		if t.Task.Dir != "" {
			s.Report = t.Task.ReportRel()
		}
		one := func(rule, file string) {
			s.Findings = append(s.Findings, finding.Finding{Rule: rule, Class: finding.ClassError, File: file, Message: t.Reason})
		}
		switch t.Status {
		case postflight.GateDrift, postflight.GateBroken:
			for _, f := range t.Findings {
				if f.Rule == finding.KindExecutorReportRejected && len(t.ReportViolations) > 0 {
					continue
				}
				s.Findings = append(s.Findings, f)
			}
			s.Findings = append(s.Findings, t.ReportViolations...)
		case postflight.GateRefused:
			one(ruleRefused, t.Task.Spec)
		case postflight.GateNotStarted:
			one(ruleNotStarted, t.Task.Spec)
		case postflight.GateError:
			file := t.Task.StateRel()
			var ntf *postflight.NotTaskFolderError
			if errors.As(t.Err, &ntf) {
				file = t.Task.Dir
			}
			one(ruleTaskError, file)
		case postflight.GateLearned:
			if !t.Passed {
				one(ruleUnbacked, t.Task.HistoryReviewRel())
			} else {
				s.Message = ""
			}
		}
		sets = append(sets, s)
	}
	return sets
}

// SummaryTitle heads the gate's job summary.
func (v gateView) SummaryTitle() string {
	if v.res != nil && v.res.Since != "" {
		return "mastermind gate --since " + postflight.ShortOID(v.res.Since)
	}
	return "mastermind gate"
}

// SummaryFooter ends the gate's job summary with its summary line.
func (v gateView) SummaryFooter() string { return v.summary }

// FindingSets is the validated report as one set: its violations at their lines, or the read
// error, located at the report's machine path (v.file).
func (v reportView) FindingSets() []render.FindingSet {
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
	if v.err != nil {
		s.Verdict = "error"
		s.Findings = []finding.Finding{{Rule: ruleTaskError, Class: finding.ClassError, File: file, Message: v.err.Error()}}
		return []render.FindingSet{s}
	}
	for _, f := range v.res.All() {
		f.File = file
		s.Findings = append(s.Findings, f)
	}
	if len(s.Findings) > 0 {
		s.Verdict = "invalid"
	}
	return []render.FindingSet{s}
}

// SummaryTitle heads report validate's job summary.
func (reportView) SummaryTitle() string { return "mastermind report validate" }

// SummaryFooter: report validate's summary has none.
func (reportView) SummaryFooter() string { return "" }
