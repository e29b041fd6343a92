package audit

import (
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/verification"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// checkVerification applies §10.5 through internal/verification: declared-command coverage,
// observed contradictions and the vacuous-test scan. It fills the verification evidence.
func checkVerification(r *run) ([]finding.Finding, error) {
	sp := r.in.Spec
	rows := reportRows(r.rep)
	vr := verification.Check(r.in.Root, sp.VerifyCommands, rows)
	fs := make([]finding.Finding, 0, len(vr.Findings))
	for _, f := range vr.Findings {
		f.File, f.Line, f.Column, f.Pointer = "", 0, 0, ""
		fs = append(fs, f)
	}
	ev := &VerificationEvidence{Declared: nonNil(sp.VerifyCommands), Labels: nonNil(sp.VerifyLabels), Rows: []VerificationRow{}}
	for _, row := range vr.Rows {
		basis, class := verifyrun.ClaimBasis(row.Classification) // receipts come later
		ev.Rows = append(ev.Rows, VerificationRow{Index: row.Index, Cmd: row.Cmd, Result: row.Result, Classification: class, Basis: basis, Runner: row.Runner})
	}
	r.ev.Verification = ev
	return fs, nil
}

// reportRows are the report's verification rows as internal/verification reads them.
func reportRows(rep *report.Report) []verification.Row {
	rows := make([]verification.Row, len(rep.Verifications))
	for i, v := range rep.Verifications {
		rows[i] = verification.Row{Index: v.Index, Cmd: v.Cmd, Result: v.Result, OutputExcerpt: v.OutputExcerpt}
		if v.Observed != nil {
			rows[i].ExitCode, rows[i].TestsRun = v.Observed.ExitCode, v.Observed.TestsRun
		}
	}
	return rows
}
