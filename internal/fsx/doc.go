// Package fsx holds mastermind's file-system safety primitives: bounded, no-follow reads of regular
// files (executor-report-v1.md §1.1), repository containment without symlinked ancestors, atomic
// writes through github.com/google/renameio/v2 (spec-and-lifecycle.md §12.2), file locks through
// github.com/gofrs/flock (§12.1), and Dir, a directory handle through which every read, write,
// rename and lock below a folder happens with *at(2) calls and O_NOFOLLOW (trust-model.md I4).
//
// Every function here fails closed: a symlink, FIFO, device or directory where a regular file is
// expected is an error with a typed reason, never followed and never blocked on.
//
// Dir needs openat(2) and friends and is built for unix only. On Windows (which mastermind does not
// build for today) the documented fallback is path-based: Lstat every component (CheckNoSymlink)
// before each operation and compare the folder's file ID before and after it, which narrows the
// swap window but cannot close it; trust-model.md I4 says so.
package fsx
