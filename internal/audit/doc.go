// Package audit is the post-flight audit as a function (spec-and-lifecycle.md §4 steps 3–6, §9,
// §10): Compute takes everything the audit looks at and returns the findings, the verdict and
// the evidence that audit.md shows. It reads no state and decides no lifecycle step;
// internal/postflight persists a Result and the gate only reads it.
//
// Each check of §10 is one file, check_<name>.go, listed in Compute's checks with its kinds in
// finding.Kinds; check_receipts.go runs the spec's verify commands last, and feedback.go picks
// the checks that run beside a rejected report.
//
// Nothing here runs a command that a report names. A command the spec declares runs only through
// Inputs.Verify, which the gate never sets.
package audit
