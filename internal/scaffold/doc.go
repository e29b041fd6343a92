// Package scaffold creates the files a planner or a developer starts from: the next numbered task
// folder with a spec.md skeleton for `mastermind new-spec`, and the git pre-push hook that runs
// the pre-merge gate for `mastermind hook install`.
//
// The skeleton is deliberately not approvable until the planner fills it in
// (spec-and-lifecycle.md §0). Every write is atomic, never follows a symbolic link and never
// replaces a task folder; the hooks directory comes from git through gitscope.
package scaffold
