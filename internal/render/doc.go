// Package render writes a command's result in one output format. A command builds a View — its
// result in every form a format may need: human text, the --json envelope and its Findings —
// and hands it to the Renderer of the format the user chose (For). Each format is one file:
// text.go, json.go, github.go, sarif.go, rdjson.go and markdown.go. A new format is one new file
// with a Renderer and one case in For. The findings formats (github, SARIF, rdjson, markdown) all
// read the one projection Findings: one FindingSet per task, each result located by
// FindingSet.Locate with the rule metadata of the finding-kind table (KindRules).
//
// Every --json envelope embeds Header (schema_version, command) as its first keys.
//
// Nothing here opens a terminal, decides colour or picks an exit code: the caller passes the
// writer and the colour decision (internal/cli).
package render
