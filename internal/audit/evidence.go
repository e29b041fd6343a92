package audit

import (
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// Evidence is the structured evidence of one audit (spec-and-lifecycle.md §7.2). Nil pointers
// render as JSON null ("not evaluated").
type Evidence struct {
	Spec     string  // repository-relative spec path
	Baseline string  // baseline OID
	Head     *string // HEAD OID, nil in a repository with no commits
	// ChangedSet is nil when the changed set was not computed.
	ChangedSet *ChangedSetEvidence
	Scope      *ScopeEvidence
	// Report is nil when the executor report is missing.
	Report       *ReportEvidence
	Verification *VerificationEvidence
	// ClaimChecks is the claims outcome list ([]claims.Check); nil means not evaluated.
	ClaimChecks any
	// Violations are the executor report's own findings, listed under
	// executor_report_rejected{report_invalid} (§7.1).
	Violations []finding.Finding
	// Witness is what the harness transcript showed (check_witness.go); nil without one.
	Witness *WitnessEvidence
	// Renames pair deleted deletes paths with added creates paths of similar content, sorted
	// by From; audit.md shows them under the changed files line (lifecycle-v2.md §1). Not part
	// of the evidence JSON.
	Renames []Rename
}

// ChangedSetEvidence is the evidence changed_set object (§7.2).
type ChangedSetEvidence struct {
	Source   string            `json:"source"`
	Degraded bool              `json:"degraded"`
	Files    []ChangedFileJSON `json:"files"`
	// ToolCaches are the tool caches created since the baseline and left out of Files
	// (gitscope.md §4.7); ControllerWrites the paths mastermind's own verification runs wrote,
	// left out while unchanged (verification-receipts.md §2.2). Absent when empty.
	ToolCaches       []ToolCacheJSON `json:"ignored_tool_caches,omitempty"`
	ControllerWrites []string        `json:"controller_writes,omitempty"`
}

// ToolCacheJSON is one tool cache left out of the changed set.
type ToolCacheJSON struct {
	Dir   string `json:"dir"`
	Tool  string `json:"tool"`
	Files int    `json:"files"`
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

// VerificationEvidence is the evidence verification object (§7.2). Receipts are the runs
// mastermind made (verification-receipts.md §3): null when post-flight ran none by design (the
// gate), [] when nothing was planned.
type VerificationEvidence struct {
	Declared []string                    `json:"declared"`
	Labels   []string                    `json:"labels"`
	Rows     []VerificationRow           `json:"rows"`
	Receipts []verifyrun.ReceiptEvidence `json:"receipts"`
	// Lines are audit.md's text lines for the verification (one per declared command when
	// mastermind ran any; verifyrun.StepResult.Lines); not part of the JSON.
	Lines []string `json:"-"`
}

// VerificationRow is one classified verification row. Basis is "ran by mastermind" when a
// receipt for the row's command exists, else "claimed by the report"; Classification is then
// the receipt's outcome (passed or unsuccessful) or the §10.5.2 class with passed renamed
// claimed: a claim is never shown as passed.
type VerificationRow struct {
	Index          int     `json:"index"`
	Cmd            string  `json:"cmd"`
	Result         string  `json:"result"`
	Classification string  `json:"classification"`
	Basis          string  `json:"basis"`
	Runner         *string `json:"runner"`
	// Witnessed is the row's last run in the harness transcript ("exit 0, last of 2 runs",
	// "not witnessed"); absent without a transcript that was read.
	Witnessed *string `json:"witnessed,omitempty"`
}

func scopeEvidence(sp *spec.Spec) *ScopeEvidence {
	return &ScopeEvidence{Source: sp.Scope.Source, Declared: nonNil(sp.Scope.Declared), IgnoredScopeTokens: nonNil(sp.Scope.IgnoredTokens)}
}

func reportEvidence(rep *report.Report) *ReportEvidence {
	form, status, sp := string(rep.Form), rep.Status, rep.Spec
	files := make([]string, len(rep.FilesModified))
	for i, f := range rep.FilesModified {
		files[i] = f.Path
	}
	return &ReportEvidence{Form: &form, Status: &status, Spec: &sp, FilesModified: files, Violations: []finding.Finding{}}
}

func changedEvidence(cs *gitscope.ChangedSet, d []gitscope.Entry, paths []string) *ChangedSetEvidence {
	ev := &ChangedSetEvidence{Source: cs.Source, Degraded: cs.Degraded, Files: make([]ChangedFileJSON, len(d))}
	for _, tc := range cs.ToolCaches {
		ev.ToolCaches = append(ev.ToolCaches, ToolCacheJSON{Dir: textsafe.Escape(tc.Dir) + "/", Tool: tc.Tool, Files: tc.Files})
	}
	for i, e := range d {
		ev.Files[i] = ChangedFileJSON{Path: paths[i], Status: string(e.Status)}
		if !utf8.Valid(e.Path) {
			ev.Files[i].Path = textsafe.Escape(paths[i])
		}
	}
	return ev
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
