// Package fsx holds mastermind's file-system safety primitives: bounded, no-follow reads of
// regular files, the content ids of work-tree paths, repository containment, atomic writes, file
// locks, and Dir, a directory handle for *at(2) calls with O_NOFOLLOW (trust-model.md I4).
//
// Every function here fails closed: a symlink, FIFO, device or directory where a regular file is
// expected is an error with a typed reason, never followed and never blocked on. Dir is built for
// unix only; trust-model.md I4 describes the weaker Windows fallback.
package fsx
