// Package verifyrun runs the verification commands a hash-bound spec declares and records what
// was seen as receipts (verification-receipts.md).
//
// Only commands taken from the parsed spec are run, never one from an executor report or
// repository configuration. How a command runs is verification-receipts.md §2; rules.go holds the
// audit rules of its §4 as pure functions. Nothing in this package prints to a terminal.
package verifyrun
