// Package harness is the contract between mastermind and an agent harness's stop hooks (Claude
// Code and Codex `Stop` and `SubagentStop` command hooks, integrations.md §2).
//
// It parses the hook's stdin JSON (ParseInput), turns a post-flight outcome into the hook's
// decision (Decide), keeps the loop guard's record of the last blocked inputs in the controller store (LoadBlockRecord,
// SaveBlockRecord), and merges mastermind's hook entry into `.claude/settings.json` or
// `.codex/hooks.json` (MergeSettings, InstallSettings).
//
// Both harnesses read a command hook's stdout on exit 0: `{}` lets the agent stop,
// `{"decision":"block","reason":…}` makes it continue with the reason as its next instruction.
// Exit 2 is never used: its handling differs between harness versions. The package runs no audit
// itself; the caller passes the outcome of the same post-flight the CLI runs.
package harness
