// Package yamlstrict decodes one YAML document or JSON text under mastermind's strict value
// rules, executor-report-v1.md §2, into a JSON-compatible value with a position for every node.
//
// YAML is decoded with yaml.v3 into a yaml.Node, never into Go structs, and the package's own
// walk applies the rules and records a *Node per JSON pointer. Aliases are never expanded and
// the walk stops at the depth limit, so the cost stays linear in the input; DecodeJSON applies
// the same rules with its own scanner.
package yamlstrict
