package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"

	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema"
	"github.com/rogpeppe/go-internal/testscript"
)

// The harnesses' hook contracts, kept as test data in internal/harness/testdata (SOURCES.md
// there says where each comes from).
var hookSchemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	files := map[string]string{
		"codex-stop":             "codex-schema/stop.command.output.schema.json",
		"codex-subagent-stop":    "codex-schema/subagent-stop.command.output.schema.json",
		"claude-stop":            "claude-schema/stop.output.schema.json",
		"codex-stop-in":          "codex-schema/stop.command.input.schema.json",
		"codex-subagent-stop-in": "codex-schema/subagent-stop.command.input.schema.json",
	}
	out := map[string]*jsonschema.Schema{}
	for name, rel := range files {
		f, err := os.Open(filepath.Join("..", "harness", "testdata", rel))
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			return nil, err
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft7)
		url := "file:///" + filepath.Base(rel)
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
		if out[name], err = c.Compile(url); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// cmdHookOut implements `hookout`: the last stdout must be one hook decision that both harnesses
// accept, for Stop and SubagentStop alike: Codex's published output schemas and Claude Code's
// documented output shape.
func cmdHookOut(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: hookout")
	}
	out := []byte(ts.ReadFile("stdout"))
	if bytes.Count(bytes.TrimSpace(out), []byte("\n")) != 0 || !bytes.HasSuffix(out, []byte("\n")) {
		ts.Fatalf("a hook prints one JSON line, got:\n%s", out)
	}
	validateHookJSON(ts, out, "codex-stop", "codex-subagent-stop", "claude-stop")
}

// cmdHookIn implements `hookin codex-stop|codex-subagent-stop FILE`: FILE must match Codex's
// published input schema for that event.
func cmdHookIn(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: hookin codex-stop|codex-subagent-stop FILE")
	}
	validateHookJSON(ts, []byte(ts.ReadFile(args[1])), args[0]+"-in")
}

func validateHookJSON(ts *testscript.TestScript, data []byte, schemas ...string) {
	all, err := hookSchemas()
	if err != nil {
		ts.Fatalf("hook schemas: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		ts.Fatalf("not JSON: %v\n%s", err, data)
	}
	for _, name := range schemas {
		s := all[name]
		if s == nil {
			ts.Fatalf("no hook schema %q", name)
		}
		if err := s.Validate(v); err != nil {
			ts.Fatalf("does not match %s: %v\n%s", name, err, data)
		}
	}
}
