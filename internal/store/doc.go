// Package store is the controller store of trust-model.md §3: the records mastermind decides
// from, kept outside the work tree so that an executor confined to the work tree (Codex
// workspace-write, Claude Code's sandbox, a container with the repository mounted) cannot rewrite
// them.
//
// Layout below the store root (Location):
//
//	repos/<repo-id>/repo.json                      the work tree and git directory the id stands for
//	repos/<repo-id>/tasks/<task>/state.json        the authoritative Record
//	repos/<repo-id>/tasks/<task>/lock              the task's store lock (flock(2))
//	worktrees/<sha256 of a work tree's real path>  the repo ids that work tree's records used
//	repos/<repo-id>/tasks/<task>/snapshots/<name>  pre-flight snapshot blobs (Put, Open: gitscope.SnapshotStore)
//	repos/<repo-id>/tasks/<task>/mirrors/<sha256>  copies of mirrors the controller wrote, the audit result
//	repos/<repo-id>/tasks/<task>/receipts/         verification receipts (verification-receipts.md)
//
// <repo-id> is RepoID: the SHA-256 of the real path of the work tree's own git directory, so each
// linked worktree has its own records. Every directory is created with mode 0700 and every file
// with 0600. Every write is atomic (fsx.Dir: temporary file, fsync, renameat, fsync of the
// directory), every path below the root is opened without following a symbolic link, and every
// failure is an *Error whose Kind says whether the store is read-only, full, busy, corrupt or
// unsafe, so that callers map it to exit 3 with advice and nothing is lost.
package store
