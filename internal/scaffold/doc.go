// Package scaffold creates the files a planner or a developer starts from: the next numbered task
// folder with a spec.md skeleton (`mastermind new-spec`, spec-and-lifecycle.md §0 artifact paths
// and §1.2–§1.3 frontmatter and mandatory sections) and the git pre-push hook that runs the
// pre-merge gate (`mastermind hook install`, conventions.md §6 integration hooks).
//
// The spec skeleton is deliberately not approvable as generated: every mandatory section of its
// mode holds only an HTML-comment placeholder (which §1.3 counts as empty) and the three scope
// keys are present but empty (which §1.2 rejects as null values), so spec.Parse reports
// spec.section_missing and spec.frontmatter_invalid findings until the planner has written the
// sections and declared the scope. A strict skeleton also has no verify command yet
// (spec.no_verify_command). Once filled in, the skeleton parses with zero findings.
//
// Nothing here runs a process. The hooks directory comes from git itself, asked through gitscope
// (the one package that runs git): see HooksDir.
// Every write is atomic, never follows a symbolic link and never replaces a task folder.
package scaffold
