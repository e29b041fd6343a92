// Package finding holds the single Finding type shared by every check in mastermind: executor
// report violations, pre-flight violations, audit findings and contract errors.
//
// The shape follows executor-report-v1.md §5.1 and spec-and-lifecycle.md §9.1; the text form is
// "file:line:col: message [rule]" (conventions.md practice 6).
package finding
