package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema"

	"github.com/mastermind-controller/mastermind/internal/golden"
)

// goldenFile compares got with testdata/<name> (golden.Check).
func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// codexSchema compiles one of Codex's published hook schemas (testdata/codex-schema).
func codexSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	return compileSchema(t, filepath.Join("testdata", "codex-schema", name))
}

// claudeSchema compiles the Claude Code Stop / SubagentStop output shape written from its hooks
// reference (testdata/claude-schema, SOURCES.md).
func claudeSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	return compileSchema(t, filepath.Join("testdata", "claude-schema", "stop.output.schema.json"))
}

// compileSchema compiles the JSON Schema file at path (its $schema names the draft; draft-07
// when it names none).
func compileSchema(t *testing.T, path string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	url := "file:///" + filepath.Base(path)
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// jsonValue decodes JSON the way the validator wants it (numbers as json.Number).
func jsonValue(t *testing.T, data []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return v
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }
