// Package verifyrun runs the verification commands a hash-bound spec declares and records what
// was seen as receipts (docs/design/verification-receipts.md).
//
// Only commands taken from the parsed spec (spec.Spec.VerifyDeclared) are run; never a command
// from an executor report, from repository configuration, or built from either. Each command runs
// through the platform shell (sh -c, or cmd /C on Windows) in the repository root with stdin on
// the null device and an environment without GIT_* and MASTERMIND_* variables, in its own process
// group (a job object on Windows) that is killed whole at the timeout, on context cancellation
// and once the shell has exited. Output (stdout and stderr interleaved) streams to a writer the
// caller supplies, while the receipt keeps a bounded tail, the stream's SHA-256 and byte count,
// and the test counts the runner grammar can read from it.
//
// Running a test suite executes the repository's code, which the executor wrote: the docs
// recommend running post-flight inside the executor's sandbox or in CI.
//
// rules.go holds the audit rules of the design's §4 as pure functions from a declared command, its
// receipt and the report rows to findings. Nothing in this package prints to a terminal.
package verifyrun
