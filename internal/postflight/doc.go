// Package postflight is mastermind's task controller: the run-task lifecycle of
// spec-and-lifecycle.md §2–§8 and §11–§13. It runs pre-flight (§3: iteration budget, revoke
// approval first, spec validation, baseline, hand-off), post-flight (§4: persist audit_required,
// spec binding, executor report, changed set, the checks of §10, the verdict of §9.2, audit.md,
// state by verdict), the held path (§8.1 release notes, §8.2 history snapshot and review), the
// three-cycle rule (§6) and the lessons file (§11).
//
// It is the only package that writes task artifacts (state.json, audit.md, release notes,
// history-review.md, _lessons.md). Every write is atomic (fsx.WriteFileAtomic, §12.2) and happens
// under the controller lock (§12.1). State is read strictly (§5.3) and corrupt state is never
// overwritten. Nothing here executes a command named by a spec or a report.
//
// The audit itself is internal/audit's Compute. A run returns an Outcome (phase, outcome,
// verdict, findings, next step, artifacts, warnings): this package picks no exit code and writes
// nothing to a terminal; internal/cli does both.
package postflight
