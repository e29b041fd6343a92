package postflight

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// AuditSchemaVersion is the schema_version of the audit evidence JSON (§7.2).
const AuditSchemaVersion = 1

// Audit is everything audit.md shows (spec-and-lifecycle.md §7). Nil pointers render as JSON null
// ("not evaluated").
type Audit struct {
	Spec     string  // repository-relative spec path
	Baseline string  // baseline OID
	Head     *string // HEAD OID, nil in a repository with no commits
	Verdict  string
	Counts   Counts
	// ChangedSet is nil when the changed set was not computed (rejected report).
	ChangedSet *ChangedSetEvidence
	Scope      *ScopeEvidence
	// Report is nil when the executor report is missing.
	Report       *ReportEvidence
	Verification *VerificationEvidence
	// ClaimChecks is the claims outcome list; nil means not evaluated (JSON null).
	ClaimChecks any
	// Findings are the audit findings, sorted by SortAudit.
	Findings []finding.Finding
	// Violations are the executor report's own findings, listed under
	// executor_report_rejected{report_invalid} (§7.1).
	Violations []finding.Finding
	// ReturnToDesign is true when this blocking post-flight is the third in a row with the same
	// fingerprint (§6): audit.md then says that the task returns to design.
	ReturnToDesign bool
}

// ChangedSetEvidence is the evidence changed_set object (§7.2).
type ChangedSetEvidence struct {
	Source   string            `json:"source"`
	Degraded bool              `json:"degraded"`
	Files    []ChangedFileJSON `json:"files"`
}

// ChangedFileJSON is one changed path; non-UTF-8 bytes are escaped as \xHH.
type ChangedFileJSON struct {
	Path   string `json:"path"`
	Status string `json:"status"`
}

// ScopeEvidence is the evidence scope object (§7.2).
type ScopeEvidence struct {
	Source             string   `json:"source"`
	Declared           []string `json:"declared"`
	IgnoredScopeTokens []string `json:"ignored_scope_tokens"`
}

// ReportEvidence is the evidence executor_report object (§7.2). Form, Status and Spec are nil
// when the report could not be decoded.
type ReportEvidence struct {
	Form          *string           `json:"form"`
	Status        *string           `json:"status"`
	Spec          *string           `json:"spec"`
	FilesModified []string          `json:"files_modified"`
	Violations    []finding.Finding `json:"violations"`
}

// VerificationEvidence is the evidence verification object (§7.2).
type VerificationEvidence struct {
	Declared []string          `json:"declared"`
	Labels   []string          `json:"labels"`
	Rows     []VerificationRow `json:"rows"`
}

// VerificationRow is one classified verification row.
type VerificationRow struct {
	Index          int     `json:"index"`
	Cmd            string  `json:"cmd"`
	Result         string  `json:"result"`
	Classification string  `json:"classification"`
	Runner         *string `json:"runner"`
}

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
	SchemaVersion  int                   `json:"schema_version"`
	Spec           string                `json:"spec"`
	GitRef         string                `json:"git_ref"`
	Head           *string               `json:"head"`
	Verdict        string                `json:"verdict"`
	Counts         Counts                `json:"counts"`
	ChangedSet     *ChangedSetEvidence   `json:"changed_set"`
	Scope          *ScopeEvidence        `json:"scope"`
	ExecutorReport *ReportEvidence       `json:"executor_report"`
	Verification   *VerificationEvidence `json:"verification"`
	ClaimChecks    any                   `json:"claim_checks"`
	Findings       []AuditFinding        `json:"findings"`
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
	b.WriteByte('\n')
	if len(a.Findings) > 0 {
		for _, f := range a.Findings {
			icon := "❌"
			if f.Class == finding.ClassWarning {
				icon = "⚠️"
			}
			fmt.Fprintf(&b, "  %s %s: %s\n", icon, f.Rule, textsafe.Escape(f.Message))
			if f.Rule == KindExecutorReportRejected && f.FieldString("reason") == ReasonReportInvalid {
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
		Findings: AuditFindings(a.Findings),
	}
	js, err := marshalEvidence(ev)
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(js), "\n") {
		b.WriteString("    ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// marshalEvidence encodes v with 4-space indentation and escapes DEL, C1 and bidi controls as
// JSON \u escapes (encoding/json already escapes C0 controls).
func marshalEvidence(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return textsafe.EscapeJSON(out), nil
}
