package verifyrun

import (
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/verification"
)

// Bases of a verification row or line in audit.md (verification-receipts.md §4): a command
// mastermind ran, or a result only the report states.
const (
	BasisRan     = "ran by mastermind"
	BasisClaimed = "claimed by the report"
	// BasisWitnessed: a run: witnessed command the harness transcript showed passing on the
	// unchanged inputs, not run again (docs/design/transcripts.md §6).
	BasisWitnessed = "witnessed in the transcript"
)

// Row classifications in audit evidence (spec-and-lifecycle.md §7.2, verification-receipts.md
// §4): "passed" only for a command mastermind ran and saw pass; a report's pass with exit 0 and
// no receipt is "claimed".
const (
	ClassPassed       = verification.ClassPassed
	ClassClaimed      = "claimed"
	ClassUnobserved   = verification.ClassUnobserved
	ClassUnsuccessful = verification.ClassUnsuccessful
	// ClassWitnessed is a run: witnessed command's row whose witness was accepted.
	ClassWitnessed = "witnessed"
)

// ReceiptEvidence is one receipt in audit.md's evidence and the --json envelope: what ran, how
// it ended, the counts and the output's hash (the output itself is in the store). Keys in field
// order; started_at is left out so the same receipts give the same audit.md.
type ReceiptEvidence struct {
	N            int     `json:"n"`
	Cmd          string  `json:"cmd"`
	Basis        string  `json:"basis"`
	Reused       bool    `json:"reused"`
	ExitCode     int     `json:"exit_code"`
	TimedOut     bool    `json:"timed_out"`
	Signal       *string `json:"signal"`
	Runner       *string `json:"runner"`
	TestsRun     *int64  `json:"tests_run"`
	TestsFailed  *int64  `json:"tests_failed"`
	DurationMS   int64   `json:"duration_ms"`
	TimeoutMS    int64   `json:"timeout_ms"`
	OutputSHA256 string  `json:"output_sha256"`
	OutputBytes  int64   `json:"output_bytes"`
	Summary      string  `json:"summary"`
}

// Evidence returns the receipts' evidence entries: empty when nothing ran, nil for a nil result.
func (r *StepResult) Evidence() []ReceiptEvidence {
	if r == nil {
		return nil
	}
	out := []ReceiptEvidence{}
	for i, rc := range r.Receipts {
		e := ReceiptEvidence{N: i + 1, Cmd: rc.Cmd, Basis: BasisRan, Reused: r.Reused, ExitCode: rc.ExitCode,
			TimedOut: rc.TimedOut, TestsRun: rc.TestsRun, TestsFailed: rc.TestsFailed, DurationMS: rc.DurationMS,
			TimeoutMS: rc.TimeoutMS, OutputSHA256: rc.OutputSHA256, OutputBytes: rc.OutputBytes, Summary: rc.Summary()}
		if rc.Signal != "" {
			s := rc.Signal
			e.Signal = &s
		}
		if rc.Runner != "" {
			s := rc.Runner
			e.Runner = &s
		}
		out = append(out, e)
	}
	return out
}

// RowBasis returns the basis and the evidence classification of a report row whose §10.5.2 class
// is class: "ran by mastermind" and the receipt's outcome when its command has a receipt,
// otherwise "claimed by the report" and class, with "passed" renamed "claimed".
func (r *StepResult) RowBasis(cmd, class string) (basis, classification string) {
	if rc := r.ReceiptFor(cmd); rc != nil {
		if rc.Passed() {
			return BasisRan, ClassPassed
		}
		return BasisRan, ClassUnsuccessful
	}
	return ClaimBasis(class)
}

// ClaimBasis is RowBasis for a row without a receipt: "claimed by the report", and the §10.5.2
// class with passed renamed claimed.
func ClaimBasis(class string) (basis, classification string) {
	if class == verification.ClassPassed {
		return BasisClaimed, ClassClaimed
	}
	return BasisClaimed, class
}

// Lines are audit.md's verification lines, escaped for a terminal, one per declared command when
// mastermind ran at least one. Each says whether mastermind ran the command, with its outcome, or
// what the report claims of it.
func (r *StepResult) Lines(declared []string, rows []verification.Row) []string {
	if r == nil || len(r.Receipts) == 0 {
		return nil
	}
	var out []string
	for _, c := range declared {
		esc := textsafe.Escape(c)
		if rc := r.ReceiptFor(c); rc != nil {
			l := fmt.Sprintf("verification: \"%s\" %s", esc, rc.Summary())
			if r.Reused {
				l += " (reused)"
			}
			out = append(out, l)
			continue
		}
		var claims []string
		for _, row := range rows {
			if verification.MatchKey(row.Cmd) == verification.MatchKey(c) {
				claims = append(claims, describeRow(row))
			}
		}
		if len(claims) == 0 {
			out = append(out, fmt.Sprintf("verification: \"%s\" not in the report", esc))
			continue
		}
		out = append(out, fmt.Sprintf("verification: \"%s\" %s: %s", esc, BasisClaimed, textsafe.Escape(strings.Join(claims, "; "))))
	}
	return out
}
