// Package outputformat implements the SKILL.md output_format contract (design/agent-contracts.md
// §3): the frontmatter is read as real YAML (yaml.v3 nodes: BOM, CRLF, quoting, comments and
// block scalars handled the YAML way), output_format is compiled as a Go RE2 pattern with no flags
// and matched as an unanchored search against the raw output bytes, and a deviation produces the
// exact message `output_format deviation (<mode>): expected output matching /<pattern>/, got:
// "<output truncated to 200 code points>"`. The mode is --mode, else output_format_mode, else
// lenient.
package outputformat
