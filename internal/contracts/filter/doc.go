// Package filter implements the report-filter contract of agent-contracts.md §2: it locates the
// structured block in a subagent's raw return, validates it against the OUTPUT schema the
// dispatch brief declared, optionally checks paths, lines and commits against the repository,
// and renders the clean output or the REJECT and ESCALATE blocks.
//
// The package never repairs JSON, never invents keys and never rewrites evidence: an accepted
// JSON return is re-serialised with its keys in source order, numbers as their original literals
// and strings with their exact decoded values.
package filter
