// Package yamlstrict decodes one YAML document (or one JSON text) under
// mastermind's strict value rules and converts it to a JSON-compatible value
// with a position for every node.
//
// Design: docs/design/executor-report-v1.md §2 (YAML value rules),
// §1.5 (bare form: the JSON decoder), §1.6 (positions) and §5.2 (message
// templates for the decode.* and value.* rules).
//
// The YAML text is decoded with a go.yaml.in/yaml/v3 Decoder into a yaml.Node
// (never Unmarshal, never into Go structs). The package's own walk then
// resolves plain scalars by the YAML 1.2 core schema only, rejects nulls,
// tags, anchors, aliases, merge keys, non-string and duplicate keys, nesting
// deeper than 64, non-finite numbers and integers that do not fit in int64,
// and records a *Node per RFC 6901 JSON pointer. Aliases are never expanded
// and the walk stops at the depth limit, so the cost stays linear in the
// input. DecodeJSON applies the same rules to JSON text with its own scanner.
//
// Files: decode.go and yaml.go (YAML document rules and the walk), syntax.go
// (YAML 1.2 checks yaml.v3 skips), resolve.go (§2.3 core-schema resolution),
// json.go and jsondecode.go (the JSON decoder), source.go (position to byte
// offset mapping), pointer.go (field names from JSON pointers; the pointers
// themselves are built with internal/jsonptr), messages.go
// (§5.2 message templates).
package yamlstrict
