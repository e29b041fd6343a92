package postflight

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"slices"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// AuditSchemaVersion is the schema_version of the audit evidence JSON (§7.2).
const AuditSchemaVersion = 1

// Audit is everything audit.md shows (spec-and-lifecycle.md §7): the evidence of an audit.Result
// with its verdict, counts and findings, and the lifecycle's return to design.
type Audit struct {
	audit.Evidence
	Verdict string
	Counts  Counts
	// Findings are the audit findings, sorted by audit.Sort, and PathRuns the per-path ones
	// held out of them (audit.Inputs.PathRuns); All yields both in order.
	Findings []finding.Finding
	PathRuns []finding.PathRun
	// ReturnToDesign is true when this blocking post-flight is the third in a row with the same
	// fingerprint (§6): audit.md then says that the task returns to design.
	ReturnToDesign bool
}

// newAudit is the audit.md content of an audit result.
func newAudit(r *audit.Result) *Audit {
	e, w := r.Counts()
	return &Audit{Evidence: r.Evidence, Verdict: r.Verdict, Counts: Counts{e, w}, Findings: r.Findings, PathRuns: r.PathRuns}
}

// All yields every finding of the audit in order (audit.All).
func (a *Audit) All() iter.Seq[finding.Finding] { return audit.All(a.Findings, a.PathRuns) }

// AuditFinding is the JSON shape of an audit finding: {kind, class, message, …kind fields}
// (§7.2, §13.2).
type AuditFinding = finding.Audit

// AuditFindings converts findings to their JSON shape.
func AuditFindings(fs []finding.Finding) []AuditFinding {
	out := make([]AuditFinding, len(fs))
	for i, f := range fs {
		out[i] = AuditFinding(f)
	}
	return out
}

type evidenceJSON struct {
	SchemaVersion  int                         `json:"schema_version"`
	Spec           string                      `json:"spec"`
	GitRef         string                      `json:"git_ref"`
	Head           *string                     `json:"head"`
	Verdict        string                      `json:"verdict"`
	Counts         Counts                      `json:"counts"`
	ChangedSet     *audit.ChangedSetEvidence   `json:"changed_set"`
	Scope          *audit.ScopeEvidence        `json:"scope"`
	ExecutorReport *audit.ReportEvidence       `json:"executor_report"`
	Verification   *audit.VerificationEvidence `json:"verification"`
	ClaimChecks    any                         `json:"claim_checks"`
	Findings       []AuditFinding              `json:"findings"`
}

// verdictTitle is "<icon> <Verdict>" (§7.1).
func verdictTitle(v string) string {
	switch v {
	case VerdictHeld:
		return "✅ Held"
	case VerdictDrift:
		return "⚠️ Drift"
	}
	return "❌ Broken"
}

// RenderAudit renders audit.md (§7.1). The output is deterministic: no timestamps, keys in
// documented order, control and bidi characters escaped in text lines and JSON.
func RenderAudit(a *Audit) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s — %s (vs git ref `%s`)\n", verdictTitle(a.Verdict), textsafe.Escape(a.Spec), a.Baseline)
	fmt.Fprintf(&b, "  findings: %d (errors: %d, warnings: %d)\n", a.Counts.Errors+a.Counts.Warnings, a.Counts.Errors, a.Counts.Warnings)
	switch {
	case a.ChangedSet == nil:
		b.WriteString("  changed files: not computed (executor report rejected)\n")
	case a.ChangedSet.Degraded:
		fmt.Fprintf(&b, "  changed files: %d (source: %s, DEGRADED — computed without the git CLI)\n", len(a.ChangedSet.Files), a.ChangedSet.Source)
	default:
		fmt.Fprintf(&b, "  changed files: %d (source: %s)\n", len(a.ChangedSet.Files), a.ChangedSet.Source)
	}
	for _, rn := range a.Renames {
		fmt.Fprintf(&b, "  renamed %s → %s (%d%% similar)\n", textsafe.Escape(rn.From), textsafe.Escape(rn.To), rn.Similarity)
	}
	if a.Verification != nil {
		// One line per declared command once mastermind ran any (verification-receipts.md §4),
		// already escaped.
		for _, l := range a.Verification.Lines {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	b.WriteByte('\n')
	if audit.Len(a.Findings, a.PathRuns) > 0 {
		for f := range a.All() {
			icon := "❌"
			if f.Class == finding.ClassWarning {
				icon = "⚠️"
			}
			fmt.Fprintf(&b, "  %s %s: %s\n", icon, f.Rule, textsafe.Escape(f.Text()))
			if f.Rule == finding.KindExecutorReportRejected && f.FieldString("reason") == audit.ReasonReportInvalid {
				for _, v := range a.Violations {
					fmt.Fprintf(&b, "      %s\n", textsafe.Escape(v.String()))
				}
			}
		}
		b.WriteByte('\n')
	}
	if a.ReturnToDesign {
		b.WriteString(ReturnToDesignLine + "\n\n")
	}
	b.WriteString("Structured audit evidence (JSON; null means not evaluated):\n")
	ev := evidenceJSON{
		SchemaVersion: AuditSchemaVersion, Spec: a.Spec, GitRef: a.Baseline, Head: a.Head,
		Verdict: a.Verdict, Counts: a.Counts, ChangedSet: a.ChangedSet, Scope: a.Scope,
		ExecutorReport: a.Report, Verification: a.Verification, ClaimChecks: a.ClaimChecks,
		Findings: AuditFindings(slices.Collect(a.All())),
	}
	// The evidence is encoded straight into b, every line indented by four spaces (the
	// encoder's prefix; json.Indent keeps the trailing newline without it), so that a
	// 100,000-path audit is not copied again line by line (gitscope.md §8.1 scenario B).
	start := b.Len()
	b.WriteString("    ")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "    ")
	if err := enc.Encode(ev); err != nil {
		return nil, err
	}
	// Escaping only lengthens the text, and only runes >= U+007F, never the indentation.
	js := b.Bytes()[start:]
	if esc := textsafe.EscapeJSON(js); len(esc) != len(js) {
		b.Truncate(start)
		b.Write(esc)
	}
	return b.Bytes(), nil
}
