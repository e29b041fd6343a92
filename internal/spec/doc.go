// Package spec reads and validates a task contract, .mastermind/tasks/<task>/spec.md, as
// spec-and-lifecycle.md §1 specifies, and produces the spec.* pre-flight findings of §3.2.
//
// Parse is pure: it returns the typed Spec and every positioned spec.* finding in one pass. Read
// adds the §1.1 file checks, and CheckDeclaredFiles the working-tree half. Nothing here runs git.
package spec
