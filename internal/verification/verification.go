package verification

import "github.com/mastermind-controller/mastermind/internal/finding"

// Row is one executor-report verifications item as the audit sees it.
type Row struct {
	Index    int    // position in verifications[]
	Cmd      string // as written
	Result   string // "pass" | "fail"
	ExitCode *int64 // observed.exit_code; nil when absent
	TestsRun *int64 // observed.tests_run; nil when absent
	// OutputExcerpt is output_excerpt as written; nil when absent. A pass row whose excerpt shows
	// its runner's failure summary is verification_pass_contradicted (lifecycle-v2.md §7).
	OutputExcerpt *string
}

// Runner names a recognised test runner (§10.5.3).
type Runner string

// The recognised runners.
const (
	RunnerCargo  Runner = "cargo"
	RunnerGo     Runner = "go"
	RunnerPytest Runner = "pytest"
	RunnerJest   Runner = "jest"
	RunnerVitest Runner = "vitest"
)

// Row classifications (§10.5.2).
const (
	ClassPassed       = "passed"
	ClassUnobserved   = "unobserved"
	ClassUnsuccessful = "unsuccessful"
)

// Audit kinds emitted (§9.1).
const (
	KindRequirementUnmet = "verification_requirement_unmet"
	KindExitNonZero      = "observed_exit_code_non_zero"
	KindZeroTests        = "observed_zero_tests"
	KindVacuous          = "vacuous_test_claim"
	KindPassContradicted = "verification_pass_contradicted"
)

// verification_requirement_unmet reasons (§9.1).
const (
	ReasonMissingResult      = "missing_result"
	ReasonNotPassed          = "not_passed"
	ReasonUnobservedExit     = "unobserved_exit"
	ReasonConflictingResults = "conflicting_results"
)

// RowEvidence is the audit evidence for one row: its classification and recognised runner.
type RowEvidence struct {
	Index          int
	Cmd            string
	Result         string
	Classification string  // "passed" | "unobserved" | "unsuccessful"
	Runner         *string // the recognised runner name, nil when unrecognised
}

// Result is the outcome of Check.
type Result struct {
	// Findings are audit findings without a position, their kinds and fields those of
	// spec-and-lifecycle.md §9.1.
	Findings []finding.Finding
	// Rows holds one entry per row, in input order.
	Rows []RowEvidence
}
