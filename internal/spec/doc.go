// Package spec reads and validates a task contract, .mastermind/tasks/<task>/spec.md, as
// specified in spec-and-lifecycle.md §1 (reading, YAML frontmatter, body sections, declared scope,
// declared verify commands) and produces the spec.* pre-flight findings of §3.2.
//
// Parse is pure: it takes the raw file bytes and returns the typed Spec and every spec.* finding
// it can find in one pass, positioned in spec.md (1-based line, column in code points). Read adds
// the §1.1 file checks (regular file, no symlink, at most 16 MiB). CheckDeclaredFiles is the
// working-tree half of spec.declared_file_unavailable (§3.2, §10.4). Nothing here runs git.
package spec
