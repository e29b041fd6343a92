// Package audit is the post-flight audit as a function (spec-and-lifecycle.md §4 steps 3–6, §9,
// §10): Compute takes everything the audit looks at — the parsed spec, the executor report as
// read, the changed set and baseline lookups (Prefetch), the claims backend — and returns the
// findings, the verdict and the evidence that audit.md shows. It writes nothing (but the
// receipts of controller-run verification, when Inputs.Verify asks for it), reads no state
// and decides no lifecycle step: internal/postflight persists a Result (audit.md, state.json)
// and the gate only reads it.
//
// Each check of §10 is one file: check_report.go (§10.1 completion and task identity),
// check_files.go (§10.2 files_modified and the unrepresentable paths), check_scope.go (§10.3),
// check_declared.go (§10.4), check_verification.go (§10.5), check_claims.go (§10.6) and
// check_receipts.go (controller-run verification, verification-receipts.md: it runs last, after
// every other check has read the work tree); feedback.go picks which of them run beside a
// rejected report (lifecycle-v2.md §6).
// A new check is a new check_<name>.go with a func(*run) []finding.Finding added to Compute's
// list, its kinds added to finding.Kinds.
//
// Nothing here runs a command that a report names. A command the spec declares runs only through
// Inputs.Verify and internal/verifyrun (run-task's post-flight; never the gate). git is read only
// through the Git interface (implemented by *gitscope.Repo).
package audit
