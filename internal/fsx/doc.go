// Package fsx holds mastermind's file-system safety primitives: bounded, no-follow reads of regular
// files (executor-report-v1.md §1.1), repository containment without symlinked ancestors, atomic
// writes through github.com/google/renameio/v2 (spec-and-lifecycle.md §12.2), and file locks
// through github.com/gofrs/flock (§12.1).
//
// Every function here fails closed: a symlink, FIFO, device or directory where a regular file is
// expected is an error with a typed reason, never followed and never blocked on.
package fsx
