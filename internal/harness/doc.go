// Package harness is the contract between mastermind and the Stop and SubagentStop command hooks
// of Claude Code and Codex (integrations.md §2).
//
// It parses the hook's stdin JSON, turns a post-flight outcome into the hook's decision, keeps the
// loop guard's record in the controller store, and merges mastermind's hook entry into a
// harness's settings file.
//
// Both harnesses read a command hook's stdout on exit 0: `{}` lets the agent stop,
// `{"decision":"block","reason":…}` makes it continue with the reason as its next instruction.
// Exit 2 is never used: its handling differs between harness versions. The package runs no audit
// itself; the caller passes the outcome of the same post-flight the CLI runs.
package harness
