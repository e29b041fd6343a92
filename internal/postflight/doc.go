// Package postflight is mastermind's task controller: the run-task lifecycle of
// spec-and-lifecycle.md §2–§8 and §11–§13, and the gates that decide from the same inputs.
//
// It is the only package that writes task artifacts, each atomically under the controller lock.
// The audit itself is internal/audit's Compute. A run returns an Outcome; this package picks no
// exit code and writes nothing to a terminal, which internal/cli does.
package postflight
