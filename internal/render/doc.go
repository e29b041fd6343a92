// Package render writes a command's result in one output format. A command builds a View — its
// result in every form a format may need: human text, the --json envelope, located annotations
// — and hands it to the Renderer of the format the user chose (For). Each format is one file:
// text.go, json.go and github.go today. A new format is one new file with a Renderer and one
// case in For; an encoder that works on findings alone (SARIF, rdjson, markdown) reads
// View.Annotations, whose embedded finding.Finding is located (File, Line, Column) and titled
// (Rule).
//
// Every --json envelope embeds Header (schema_version, command) as its first keys.
//
// Nothing here opens a terminal, decides colour or picks an exit code: the caller passes the
// writer and the colour decision (internal/cli).
package render
