// Package transcript reads the session transcript of Claude Code or Codex into what the audit's
// witness checks need: the shell commands the agent ran with their exit status, and the files its
// edit tools wrote (transcripts.md). No other package parses transcripts.
//
// Reading streams the file with bounded memory, never follows a symlink at the transcript
// itself, refuses a transcript inside the work tree, and counts only entries strictly after the
// task's pre-flight time. An entry of an unknown shape is skipped and counted.
package transcript
