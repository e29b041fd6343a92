package report

import (
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// MaxBytes is the largest accepted report in bytes (1 MiB, executor-report-v1.md §1.1 check 4).
const MaxBytes = 1048576

// Form is the form the report was located in (§1.3).
type Form string

// The accepted forms.
const (
	FormSentinel Form = "sentinel" // canonical: sentinel comments around one ```yaml fence
	FormBare     Form = "bare"     // the whole file is one YAML or JSON mapping with schema_version
)

// Pos is a 1-based file position in executor-report.md; the column counts code points.
type Pos = yamlstrict.Pos

// Report is the typed, validated report handed to post-flight (§7). Strings are kept exactly as
// decoded (§3.6).
type Report struct {
	Form          Form
	SchemaVersion int
	Spec          string
	Status        string // complete | partial | failed
	Phases        []Phase
	FilesModified []FileEntry
	Claims        []Claim
	Defects       []Defect
	Verifications []Verification
	// Positions maps every JSON pointer of the report value ("" is the root) to its file position.
	Positions map[string]Pos
	// Dropped lists, for a partial report (Result.Partial), the JSON pointers of the parts left
	// out because a value or schema rule (or consistency.blank / consistency.path_invalid) refused
	// them, sorted: a top-level field ("/files_modified") or one element ("/verifications/2").
	// Nil for a valid report.
	Dropped []string
}

// Phase is one entry of phases[] (§3.2).
type Phase struct {
	ID     string
	Status string // done | pending | stopped_here | skipped
}

// FileEntry is one entry of files_modified[]: Raw as written, Path normalised by
// repopath.Normalize (§4.2).
type FileEntry struct {
	Raw  string
	Path string
}

// Claim is one entry of claims[] (§3.5), with the fields of its Kind set; absent optional fields
// are nil.
type Claim struct {
	Index                                int
	Kind                                 string
	Symbol, File, Signature              *string
	From, To, FromFile, ToFile, Relation *string
}

// Defect is one entry of defects[] (§3.3).
type Defect struct {
	Kind, Phase, Details, RemediationHint string
}

// Verification is one entry of verifications[] (§3.4). OutputExcerpt and Observed are nil when
// absent.
type Verification struct {
	Index         int
	Cmd, Result   string // result: pass | fail
	OutputExcerpt *string
	Observed      *Observed
}

// Observed holds the observed facts of a verification run; absent fields are nil.
type Observed struct{ ExitCode, TestsRun *int64 }

// Result is the outcome of reading and validating one report.
type Result struct {
	// Report is non-nil only when Findings is empty.
	Report *Report
	// Partial holds the usable typed parts of a report that decoded as a mapping and passed the
	// version gate but has schema or consistency findings (§5.6): the parts named in
	// Partial.Dropped are left out, the rest is typed as in Report. Nil when Report is set and
	// when an earlier stage failed.
	Partial *Report
	// Form is "" when no report block was located.
	Form Form
	// Findings are sorted per §5.5 (finding.SortByPosition); File is the caller's display path.
	Findings []finding.Finding
	// Evidence are the findings of the audit rules that need neither git nor the spec, applied to
	// the rows of Report or Partial (§5.7). They do not make the report invalid, because post-flight
	// derives the same findings itself.
	Evidence []finding.Finding
}

// Valid reports whether the report has no findings.
func (r Result) Valid() bool { return len(r.Findings) == 0 && r.Report != nil }

// All returns Findings and Evidence together, sorted per §5.5: everything `report validate`
// reports.
func (r Result) All() []finding.Finding {
	if len(r.Evidence) == 0 {
		return r.Findings
	}
	all := append(append([]finding.Finding(nil), r.Findings...), r.Evidence...)
	finding.SortByPosition(all)
	return all
}
