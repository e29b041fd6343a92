package cli

import (
	"errors"
	"io"

	"github.com/mastermind-controller/mastermind/internal/buildinfo"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
)

// The findings formats of --format (integrations.md §4): encoders over the findings of one or
// more tasks, written by internal/render.
const (
	formatSARIF    = "sarif"
	formatRDJSON   = "rdjson"
	formatMarkdown = "markdown"
)

// projectURI is the project home page named in SARIF tool.driver and rdjson source.
const projectURI = "https://github.com/mastermind-controller/mastermind"

// isFindingsFormat reports whether format is written by writeFindingsFormat.
func isFindingsFormat(format string) bool {
	return format == formatSARIF || format == formatRDJSON || format == formatMarkdown
}

// writeFindingsFormat writes sets in a findings format; title heads the markdown summary.
func writeFindingsFormat(w io.Writer, format, title string, sets []render.FindingSet) error {
	tool := render.ToolMeta{Name: "mastermind", Version: buildinfo.Get().Version, InformationURI: projectURI}
	switch format {
	case formatSARIF:
		return render.WriteSARIF(w, tool, renderRules(), sets)
	case formatRDJSON:
		return render.WriteRDJSON(w, tool, renderRules(), sets)
	case formatMarkdown:
		return render.WriteMarkdown(w, title, renderRules(), sets)
	}
	return usageErrorf("unknown findings format %q", format)
}

// Rule ids of results that are not findings (a refusal, a task the gate could not audit). They
// appear as generic SARIF rules and as the code of rdjson diagnostics.
const (
	ruleRefused    = "mastermind.refused"
	ruleNotStarted = "mastermind.not_started"
	ruleTaskError  = "mastermind.error"
	ruleUnbacked   = "mastermind.learned_unbacked"
)

// outcomeVerdict is the verdict word of a run-task outcome.
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

// resultFindingSet is one run-task result as a finding set: the audit findings (a rejected
// report by its violations alone, which carry positions) and report violations in post-flight,
// the rule findings in pre-flight (located on the spec when they name no file), and for a
// refusal or error without findings one result carrying the message.
func resultFindingSet(res *postflight.Result) render.FindingSet {
	s := render.FindingSet{Task: res.Task.Name, Spec: res.Task.Spec, Verdict: outcomeVerdict(res.Outcome), Message: res.Message}
	if res.Task.Dir != "" {
		s.Report = res.Task.ReportRel()
	}
	for _, f := range res.Findings {
		if f.Rule == postflight.KindExecutorReportRejected && len(res.ReportViolations) > 0 {
			continue
		}
		if res.Phase != postflight.PhasePostflight && f.File == "" {
			f.File = res.Task.Spec
		}
		s.Findings = append(s.Findings, f)
	}
	s.Findings = append(s.Findings, res.ReportViolations...)
	if len(s.Findings) == 0 && (s.Verdict == "refused" || s.Verdict == "error") && res.Message != "" {
		rule := ruleRefused
		if s.Verdict == "error" {
			rule = ruleTaskError
		}
		s.Findings = append(s.Findings, finding.Finding{Rule: rule, Class: finding.ClassError, File: res.Task.Spec, Message: res.Message})
	}
	return s
}

// gateFindingSets is one finding set per gated task, with the same results as the gate's
// annotations: every finding of a drift or broken task, one result for a refused, not started
// or errored task, or a learned task whose history review does not back its closure.
func gateFindingSets(res *postflight.GateResult) []render.FindingSet {
	sets := make([]render.FindingSet, 0, len(res.Tasks))
	for _, t := range res.Tasks {
		s := render.FindingSet{Task: t.Task.Name, Spec: t.Task.Spec, Verdict: t.Status, Message: t.Reason}
		if t.Task.Dir != "" {
			s.Report = t.Task.ReportRel()
		}
		one := func(rule, file string) {
			s.Findings = append(s.Findings, finding.Finding{Rule: rule, Class: finding.ClassError, File: file, Message: t.Reason})
		}
		switch t.Status {
		case postflight.GateDrift, postflight.GateBroken:
			for _, f := range t.Findings {
				if f.Rule == postflight.KindExecutorReportRejected && len(t.ReportViolations) > 0 {
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
			}
		}
		if t.Status == postflight.GateLearned && t.Passed {
			s.Message = ""
		}
		sets = append(sets, s)
	}
	return sets
}

// reportFindingSet is a report validate result: the violations located in the report file.
func reportFindingSet(display string, fs []finding.Finding, valid bool) render.FindingSet {
	verdict := "valid"
	if !valid {
		verdict = "invalid"
	}
	return render.FindingSet{Task: display, Spec: display, Report: display, Verdict: verdict, Findings: fs}
}
