package audit

import (
	"slices"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/report"
)

// scopeOnly is the feedback round of a rejected report that has nothing usable about this task:
// the changed set against the declared scope.
var scopeOnly = []check{checkForbids, checkScope}

// feedback chooses the one round of feedback for the rejected report in.Report by the rules of
// lifecycle-v2.md §6: the report whose parts the checks read and the checks to run beside rej,
// with the findings the choice itself establishes. It fills ev's report evidence with the
// usable parts it audits.
func feedback(in *Inputs, rej *Rejection, ev *Evidence) (rep *report.Report, run []check, extra []finding.Finding) {
	rr := in.Report
	switch {
	case rr.Report != nil:
		rep = rr.Report
	case rr.Partial != nil:
		rep = rr.Partial
	default:
		return nil, scopeOnly, nil
	}
	if rr.Report != nil || usable(rep, "/spec") {
		if f, ok := checkIdentity(in.Root, in.SpecPath, rep); !ok {
			if f.FieldString("reason") != rej.Finding.FieldString("reason") {
				extra = append(extra, f)
			}
			return nil, scopeOnly, extra
		}
	}
	if rr.Report != nil {
		return rep, checks, nil
	}
	partialEvidence(ev, rep)
	if usable(rep, "/files_modified") {
		run = append(run, checkFilesModified)
	}
	run = append(run, checkForbids, checkScope, checkDeclared, checkVerification)
	if usable(rep, "/claims") {
		run = append(run, checkClaims)
	}
	return rep, run, nil
}

// usable reports whether the top-level field at pointer p of a partial report is present and
// not dropped (executor-report-v1.md §5.6). A typed report's fields are all usable.
func usable(rep *report.Report, p string) bool {
	if rep.Dropped == nil {
		return true
	}
	_, present := rep.Positions[p]
	_, dropped := slices.BinarySearch(rep.Dropped, p)
	return present && !dropped
}

// partialEvidence adds to ev's report evidence the usable status, spec and files_modified of the
// partial report rep; an unusable one stays null.
func partialEvidence(ev *Evidence, rep *report.Report) {
	if ev.Report == nil {
		return
	}
	if usable(rep, "/status") {
		s := rep.Status
		ev.Report.Status = &s
	}
	if usable(rep, "/spec") {
		s := rep.Spec
		ev.Report.Spec = &s
	}
	if usable(rep, "/files_modified") {
		ev.Report.FilesModified = reportEvidence(rep).FilesModified
	}
}
