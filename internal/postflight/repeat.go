package postflight

import (
	"fmt"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// repeated rebuilds the recorded outcome of state st from the state and the audit result the
// store record names, for a post-flight whose inputs fingerprint equals st.InputsFingerprint
// (lifecycle-v2.md §5), with Outcome.Repeated set and nothing written. ok is false when the
// record cannot be rebuilt as that section says, and the caller then audits as usual.
func (c *controller) repeated(st *State) (out *Outcome, ok bool) {
	if st.Verdict == "" || st.Findings == nil || st.InputsFingerprint == "" {
		return nil, false
	}
	ev, auditSHA, ok := c.files.recordedResult()
	if !ok || ev.Verdict != st.Verdict || ev.Counts != *st.Findings {
		return nil, false
	}
	// controller_record_tampered is reported once (trust-model.md): an audit that reported it is
	// not repeated, the next post-flight audits again.
	for _, f := range ev.Findings {
		if f.Rule == finding.KindControllerRecordTampered {
			return nil, false
		}
	}
	// Built on a copy: c.res is replaced only when the record is rebuilt.
	r := *c.res
	res := &r
	res.Phase, res.Repeated, res.Verdict = PhasePostflight, true, st.Verdict
	res.Findings, res.PathRuns, res.ReportViolations = ev.Findings, ev.Runs, ev.Violations
	if len(ev.Receipts) > 0 {
		// The receipts of the recorded audit, as it recorded them. An audit that planned no
		// command recorded none and returns none.
		res.Receipts = ev.Receipts
	}
	res.AuditSummary = ev.Summary
	res.Artifacts.Audit = c.task.AuditRel()
	res.Message = st.BlockingReason
	res.Next = Next{Step: st.NextStep}
	switch {
	case st.Status == StatusDrift && st.Verdict == VerdictDrift:
		res.Outcome, res.VerdictLine = OutcomePostDrift, true
	case (st.Status == StatusBroken || st.Status == StatusBlocked) && st.Verdict == VerdictBroken:
		// A blocked broken task is a rejected report: its message is the rejection's.
		res.Outcome, res.VerdictLine = OutcomePostBroken, st.Status == StatusBroken
	case st.Status == StatusHistoryReviewRequired && (st.Verdict == VerdictHeld || st.Accepted()):
		res.Outcome, res.VerdictLine = OutcomePostHeld, true
		res.Message = verdictSentence(VerdictHeld, Counts{}, "")
		if st.Accepted() {
			res.Outcome, res.Accepted = OutcomePostDrift, true
			res.Message = verdictSentence(VerdictDrift, *st.Findings, st.AcceptedReason)
		}
		res.Artifacts.ReleaseNotes = c.task.ReleaseNotesRel()
		res.Artifacts.HistoryReview = c.task.HistoryReviewRel()
		res.Next = Next{Step: NextReviewHistory, Edit: c.task.HistoryReviewRel(), Run: "mastermind run-task " + c.task.Spec}
	case st.Status == StatusLearned:
		res.Outcome = OutcomeCompleted
		res.Message = fmt.Sprintf("task %s is learned; its inputs are unchanged since the audit that closed it", c.task.Name)
		res.Artifacts.ReleaseNotes = c.task.ReleaseNotesRel()
		res.Artifacts.HistoryReview = c.task.HistoryReviewRel()
		res.Next = Next{Step: NextClose}
	default:
		return nil, false
	}
	*c.res = r
	c.recordedAudit = auditSHA
	return c.res, true
}

// recordedResult reads the audit result the store record names (store.Record.Result), when
// audit.md in the task folder, hashed as it is read, is still the audit.md written with it: the
// mirror is the executor's to write, the store's copy is not. ok is false without one.
func (tf *taskFiles) recordedResult() (res *auditResult, auditSHA string, ok bool) {
	if tf == nil || tf.rec == nil || tf.rec.Result == nil {
		return nil, "", false
	}
	m, has := tf.rec.Mirrors[mirrorAudit]
	if !has || m.SHA256 == "" || m.SHA256 != tf.rec.Result.AuditSHA256 {
		return nil, "", false
	}
	// Through the task folder's handle: load has already restored a forged audit.md from the
	// store's copy.
	if h, err := tf.hashFile(mirrorAudit, MaxAuditBytes); err != nil || h != m.SHA256 {
		return nil, "", false
	}
	rc, err := tf.st.OpenCopy(tf.rec.Result.SHA256)
	if err != nil {
		return nil, "", false
	}
	defer rc.Close()
	res, err = readResult(rc)
	if err != nil {
		return nil, "", false
	}
	return res, m.SHA256, true
}
