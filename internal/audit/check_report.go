package audit

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// Rejection is a rejected executor report: its executor_report_rejected finding, the blocking
// reason for the state, the rejection's own fingerprint lines for the three-cycle rule of §6 and
// its lessons "Observed" text.
type Rejection struct {
	Finding  finding.Finding
	Blocking string
	Lines    []string
	Observed string
}

// checkReport applies §4 step 3 and §10.1 to in.Report and fills ev's report evidence. It
// returns the rejection, or nil for a completed report of this task.
func checkReport(in *Inputs, ev *Evidence) *Rejection {
	rr := in.Report
	if len(rr.Findings) > 0 || rr.Report == nil {
		return rejectionFor(ev, rr)
	}
	ev.Report = reportEvidence(rr.Report)
	if f, ok := checkCompletion(in.Root, in.SpecPath, rr.Report); !ok {
		return identityRejection(f)
	}
	return nil
}

// checkCompletion applies §10.1 to a valid report. ok is false with the rejection finding when
// the report is not a completed report for the task whose spec is specPath.
func checkCompletion(root, specPath string, rep *report.Report) (finding.Finding, bool) {
	switch rep.Status {
	case "partial":
		return stoppedRejection(ReasonStatusPartial, rep), false
	case "failed":
		return stoppedRejection(ReasonStatusFailed, rep), false
	}
	if len(rep.Defects) > 0 {
		return findReportRejected(ReasonCompletionInconsistent, "status complete with a defect"), false
	}
	for _, p := range rep.Phases {
		if p.Status != "done" {
			return findReportRejected(ReasonCompletionInconsistent, fmt.Sprintf("status complete but phase %q is %s", p.ID, p.Status)), false
		}
	}
	for _, v := range rep.Verifications {
		if v.Result == "fail" {
			return findReportRejected(ReasonCompletionInconsistent, fmt.Sprintf("status complete but verification %q failed", v.Cmd)), false
		}
	}
	return checkIdentity(root, specPath, rep)
}

// checkIdentity applies the task identity rows of §10.1: ok is false with the rejection finding
// when rep.Spec does not name the task whose spec is specPath.
func checkIdentity(root, specPath string, rep *report.Report) (finding.Finding, bool) {
	name := rep.Spec
	if filepath.IsAbs(name) {
		rel, err := fsx.RelReal(root, name)
		if err != nil {
			return findReportRejected(ReasonTaskPathInvalid, fmt.Sprintf("spec %q is outside the repository", textsafe.Escape(name))), false
		}
		name = rel
	}
	norm, err := repopath.Clean(name)
	if err != nil {
		return findReportRejected(ReasonTaskPathInvalid, fmt.Sprintf("spec %q is not a repository-relative path", textsafe.Escape(rep.Spec))), false
	}
	if norm != specPath {
		return findReportRejected(ReasonTaskMismatch, fmt.Sprintf("the report is for spec %q, not %s", textsafe.Escape(rep.Spec), specPath)), false
	}
	if err := fsx.CheckNoSymlink(root, norm); err != nil {
		return findReportRejected(ReasonTaskSourceUnavailable, fmt.Sprintf("spec %s cannot be read as a repository file: %v", norm, err)), false
	}
	return finding.Finding{}, true
}

// stoppedRejection is the rejection of a valid report whose executor stopped. It carries the
// first defect's kind and the first failed command as fields, so the next step can name them
// without reading the message.
func stoppedRejection(reason string, rep *report.Report) finding.Finding {
	f := findReportRejected(reason, "the executor reported status "+rep.Status+defectDetail(rep))
	if len(rep.Defects) > 0 {
		f.Fields = append(f.Fields, finding.Field{Key: "defect", Value: rep.Defects[0].Kind})
	}
	for _, v := range rep.Verifications {
		if v.Result == "fail" {
			f.Fields = append(f.Fields, finding.Field{Key: "failed_cmd", Value: v.Cmd})
			break
		}
	}
	return f
}

func defectDetail(rep *report.Report) string {
	if len(rep.Defects) == 0 {
		return ""
	}
	d := rep.Defects[0]
	s := fmt.Sprintf("; defect %s", d.Kind)
	if d.Details != "" {
		s += ": " + d.Details
	}
	return s
}

// rejectionFor describes a report with validation findings (§4 step 3) and fills ev's report
// evidence.
func rejectionFor(ev *Evidence, rr report.Result) *Rejection {
	reason := ReasonReportInvalid
	var msgs []string
	for _, f := range rr.Findings {
		if f.Rule == "report.missing" {
			reason = ReasonReportMissing
		}
		msgs = append(msgs, f.Message)
	}
	if reason == ReasonReportInvalid {
		form := string(rr.Form)
		var fp *string
		if form != "" {
			fp = &form
		}
		ev.Report = &ReportEvidence{Form: fp, Violations: rr.Findings}
	}
	f := findReportRejected(reason, FirstPlus(msgs))
	ev.Violations = rr.Findings
	var lines []string
	for _, v := range rr.Findings {
		lines = append(lines, finding.KindExecutorReportRejected+"\x1f"+v.Rule+"\x1f"+v.Pointer)
	}
	return &Rejection{Finding: f, Blocking: "executor report rejected: " + FirstPlus(msgs), Lines: lines,
		Observed: fmt.Sprintf("contract broken; 1× executor report rejected (%s)", reason)}
}

// identityRejection describes a valid report that fails §10.1.
func identityRejection(f finding.Finding) *Rejection {
	reason := f.FieldString("reason")
	detail := strings.TrimPrefix(f.Message, fmt.Sprintf("executor report rejected (%s): ", reason))
	return &Rejection{Finding: f, Blocking: "executor report rejected: " + detail,
		Lines:    []string{finding.KindExecutorReportRejected + "\x1f" + reason},
		Observed: fmt.Sprintf("contract broken; 1× executor report rejected (%s)", reason)}
}

// FirstPlus renders "<first> (+K more)" (§3.1 step 7, §4 step 3); "" for no messages.
func FirstPlus(msgs []string) string {
	if len(msgs) == 0 {
		return ""
	}
	if len(msgs) == 1 {
		return msgs[0]
	}
	return fmt.Sprintf("%s (+%d more)", msgs[0], len(msgs)-1)
}
