// Package verification implements the audit's verification checks of spec-and-lifecycle.md
// §10.5: observed contradictions in verification rows (§10.5.1), coverage of the spec's declared
// commands (§10.5.2), the recognised test-runner grammar (§10.5.3) and the advisory vacuous-test
// scan (§10.5.4). Nothing is ever executed: the checks only compare the executor report's rows with
// the declared commands and read source files under the repository root.
package verification
