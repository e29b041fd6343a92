package postflight

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// MaxAuditBytes bounds the audit.md a repeated post-flight reads back (lifecycle-v2.md §5).
const MaxAuditBytes = 1 << 30

// repeated rebuilds the recorded outcome of state st from the state and its audit.md, for a
// post-flight whose inputs fingerprint equals st.InputsFingerprint (lifecycle-v2.md §5): the same
// outcome, verdict, findings, next step and exit code, with Outcome.Repeated set and nothing
// written. ok is false when the record cannot be rebuilt — audit.md missing, unreadable or not
// the audit the state records (its verdict or counts differ), or a state no post-flight leaves —
// and the caller then audits as usual.
func (c *controller) repeated(st *State) (out *Outcome, ok bool) {
	if st.Verdict == "" || st.Findings == nil || st.InputsFingerprint == "" {
		return nil, false
	}
	// Through the task folder's handle: load has already restored a forged audit.md from the
	// store's copy.
	data, err := c.readTaskFile("audit.md", c.task.AuditRel(), MaxAuditBytes)
	if err != nil {
		return nil, false
	}
	ev, err := parseAuditEvidence(data)
	if err != nil || ev.Verdict != st.Verdict || ev.Counts != *st.Findings {
		return nil, false
	}
	// controller_record_tampered is reported once (trust-model.md): an audit that reported it is
	// not repeated, the next post-flight audits again.
	for _, f := range ev.findings {
		if f.Rule == finding.KindControllerRecordTampered {
			return nil, false
		}
	}
	// Built on a copy: c.res is replaced only when the record is rebuilt.
	r := *c.res
	res := &r
	res.Phase, res.Repeated, res.Verdict = PhasePostflight, true, st.Verdict
	res.Findings, res.ReportViolations = ev.findings, ev.violations
	if ev.Verification != nil {
		// The receipts of the recorded audit, as it recorded them (reused or run then).
		res.Receipts = ev.Verification.Receipts
	}
	res.AuditSummary = auditText(data)
	res.Artifacts.Audit = c.task.AuditRel()
	res.Message = st.BlockingReason
	res.Next = Next{Step: st.NextStep}
	switch {
	case st.Status == StatusDrift && st.Verdict == VerdictDrift:
		res.Outcome = OutcomePostDrift
	case (st.Status == StatusBroken || st.Status == StatusBlocked) && st.Verdict == VerdictBroken:
		res.Outcome = OutcomePostBroken
	case st.Status == StatusHistoryReviewRequired && (st.Verdict == VerdictHeld || st.Accepted()):
		res.Outcome = OutcomePostHeld
		res.Message = "post-flight verdict: ✅ Held — errors: 0, warnings: 0"
		if st.Accepted() {
			res.Outcome, res.Accepted = OutcomePostDrift, true
			res.Message = acceptedMessage(st)
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
	return c.res, true
}

// acceptedMessage is the one-line result of an accepted drift task.
func acceptedMessage(st *State) string {
	return "post-flight verdict: ⚠️ Drift, accepted by the planner: " + st.AcceptedReason
}

// auditRecord is the part of audit.md's evidence JSON a repeated post-flight needs.
type auditRecord struct {
	Verdict        string            `json:"verdict"`
	Counts         Counts            `json:"counts"`
	Findings       []json.RawMessage `json:"findings"`
	ExecutorReport *struct {
		Violations []json.RawMessage `json:"violations"`
	} `json:"executor_report"`
	Verification *struct {
		Receipts []verifyrun.ReceiptEvidence `json:"receipts"`
	} `json:"verification"`

	findings, violations []finding.Finding
}

// parseAuditEvidence reads the evidence JSON of an audit.md written by RenderAudit: the lines
// after "Structured audit evidence", each indented by four spaces.
func parseAuditEvidence(data []byte) (*auditRecord, error) {
	i := bytes.Index(data, []byte("Structured audit evidence"))
	if i < 0 {
		return nil, errors.New("no evidence block")
	}
	rest := data[i:]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return nil, errors.New("no evidence block")
	}
	// Every line must carry the four-space indentation; JSON reads it as whitespace, so the
	// block is decoded in place rather than copied without it.
	js := rest[nl+1:]
	for body := bytes.TrimSuffix(js, []byte("\n")); ; {
		if !bytes.HasPrefix(body, []byte("    ")) {
			return nil, errors.New("evidence line not indented")
		}
		next := bytes.IndexByte(body, '\n')
		if next < 0 {
			break
		}
		body = body[next+1:]
	}
	var r auditRecord
	if err := json.Unmarshal(js, &r); err != nil {
		return nil, err
	}
	for _, raw := range r.Findings {
		f, err := decodeFinding(raw, false)
		if err != nil {
			return nil, err
		}
		r.findings = append(r.findings, f)
	}
	if r.ExecutorReport != nil {
		for _, raw := range r.ExecutorReport.Violations {
			f, err := decodeFinding(raw, true)
			if err != nil {
				return nil, err
			}
			r.violations = append(r.violations, f)
		}
	}
	return &r, nil
}

// decodeFinding decodes one finding object, keeping its key order: the audit shape
// {kind, class, message, …fields}, or with positional the report shape {rule, class, file, line,
// column, pointer, message, …fields}. String values stay strings, numbers become json.Number and
// anything else stays raw JSON, so the finding marshals back to the same bytes.
func decodeFinding(raw json.RawMessage, positional bool) (finding.Finding, error) {
	var f finding.Finding
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return f, errors.New("finding is not an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return f, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return f, err
		}
		var val any = v
		var s string
		var n json.Number
		if json.Unmarshal(v, &s) == nil {
			val = s
		} else if isNumber(v) {
			n = json.Number(bytes.TrimSpace(v))
			val = n
		}
		switch {
		case key == "kind" && !positional, key == "rule" && positional:
			f.Rule = s
		case key == "class":
			f.Class = finding.Class(s)
		case key == "message":
			f.Message = s
		case positional && key == "file":
			f.File = s
		case positional && key == "pointer":
			f.Pointer = s
		case positional && (key == "line" || key == "column"):
			x, _ := n.Int64()
			if key == "line" {
				f.Line = int(x)
			} else {
				f.Column = int(x)
			}
		default:
			f.Fields = append(f.Fields, finding.Field{Key: key, Value: val})
		}
	}
	if f.Rule == "" || strings.TrimSpace(string(f.Class)) == "" {
		return f, errors.New("finding without kind or class")
	}
	return f, nil
}

// isNumber reports whether v is a JSON number.
func isNumber(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9')
}
