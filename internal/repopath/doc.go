// Package repopath normalises repository-relative paths and checks their hygiene, as
// executor-report-v1.md §4.2 defines for files_modified. The same rules apply to spec scope
// declarations (spec-and-lifecycle.md §1.4), claim files and the audit's comparison with git, so
// every package uses this one implementation.
package repopath
