// Package gitscope computes the real changed-file set of a git work tree since a baseline, as
// docs/design/gitscope.md specifies, and owns every other read of the repository: discovery,
// HEAD, baseline trees and blobs, commit lookups, the file list and the release-notes diff stat.
// It is the only package that runs git and the only one that uses go-git.
//
// The changed set comes from the hardened git CLI recipe of gitscope.md §4, run on a private
// copy of the index with pins that override what an executor can write into .git/config; without
// git >= 2.24 the degraded pure-Go reader of §6 answers. Post-flight reads the repository through
// a SnapshotView, which compares the work tree with the pre-flight snapshots of §4.6.
// internal/gitscope/README.md lists each pin with the attack it answers.
package gitscope
