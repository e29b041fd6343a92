// Package outputformat implements the SKILL.md output_format contract of agent-contracts.md §3:
// the frontmatter is read as real YAML, and output_format is an RE2 pattern searched for in the
// raw output bytes.
package outputformat
