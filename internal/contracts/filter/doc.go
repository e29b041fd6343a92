// Package filter implements the report-filter contract of agent-contracts.md §2: it locates the
// structured block in a subagent's raw return (§2.4), validates it against the OUTPUT schema the
// dispatch brief declared (§2.3, §2.5) — a JSON Schema with the custom formats path-line,
// repo-path, git-sha and git-commit-line, or a list of required Markdown headings — routes the
// status discriminated union (§2.6, variant B needs_input rules built in), optionally checks
// paths, lines and commits against the repository (§2.8, via internal/gitscope), and renders the
// clean output or the REJECT / ESCALATE blocks (§2.7, §2.9). The per-dispatch rejection counter
// lives in .mastermind/dispatch/<ID>.json (§2.9).
//
// The package never repairs JSON, never invents keys and never rewrites evidence: an accepted
// JSON return is re-serialised with its keys in source order, numbers as their original literals
// and strings with their exact decoded values.
package filter
