package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scratchRepo builds a git repository with one task spec (001-greet) committed, and points the
// controller store at a fresh folder for the rest of the test.
func scratchRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	root := t.TempDir()
	// The controller store of every in-process and spawned mastermind, outside the work tree.
	t.Setenv("MASTERMIND_STATE_DIR", t.TempDir())
	files := map[string]string{
		"src/app.go": "package app\n\nfunc Greet(n string) string { return \"hello \" + n }\n",
		"README.md":  "# demo\n",
		".mastermind/tasks/001-greet/spec.md": `---
id: '001'
touches:
  - file: src/app.go
---
# Greeting helper

## Goals

Say hello.

## Alternatives Considered

None.

## Tests Plan

None.

## Documentation Plan

None.

## Observability Plan

None.

## Performance Considerations

None.
`,
	}
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root, "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@e")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "initial")
	return root
}

// mcpSession connects an in-process client from the same SDK to the server for root.
func mcpSession(t *testing.T, root string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := newMCPServer(root).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mastermind-test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call runs a tool and returns its result with the structured content decoded.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	var sc map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatalf("%s: structured content is not an object: %s", name, b)
		}
	}
	return res, sc
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestMCPToolsAgainstScratchRepository(t *testing.T) {
	root := scratchRepo(t)
	cs := mcpSession(t, root)
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil || tl.Description == "" {
			t.Errorf("tool %s lacks an input schema or a description", tl.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"brief", "changes", "gate", "postflight", "preflight", "schema", "status", "validate_report"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	spec := ".mastermind/tasks/001-greet/spec.md"

	res, sc := call(t, cs, "preflight", map[string]any{"spec": spec})
	if res.IsError || sc["outcome"] != "pre_ready" || sc["command"] != "run-task" {
		t.Fatalf("preflight: isError %v %v\n%s", res.IsError, sc, text(res))
	}

	res, sc = call(t, cs, "brief", map[string]any{"spec": spec})
	if res.IsError || sc["command"] != "brief" || sc["task"] != "001-greet" {
		t.Fatalf("brief: %v %s", sc, text(res))
	}
	tmpl := sc["report"].(map[string]any)["template"].(string)
	// The task folder and its name are the same task (spec-and-lifecycle.md §0).
	for _, arg := range []string{"001-greet", ".mastermind/tasks/001-greet"} {
		if res, sc = call(t, cs, "brief", map[string]any{"spec": arg}); res.IsError || sc["task"] != "001-greet" {
			t.Fatalf("brief %s: %v %s", arg, sc, text(res))
		}
	}

	// No report yet: a broken verdict is a successful result carrying the envelope.
	res, sc = call(t, cs, "postflight", map[string]any{"spec": spec})
	if res.IsError || sc["outcome"] != "post_broken" || sc["exit_code"] != float64(1) {
		t.Fatalf("postflight: isError %v %v", res.IsError, sc)
	}
	if fs, _ := sc["findings"].([]any); len(fs) == 0 {
		t.Errorf("postflight: no findings in %v", sc)
	}
	// The same result as text content, for clients without structured content.
	if !strings.Contains(text(res), `"outcome": "post_broken"`) && !strings.Contains(text(res), `"outcome":"post_broken"`) {
		t.Errorf("postflight text content: %s", text(res))
	}
	// run_verify is run-task --run-verify: still the same envelope.
	res, sc = call(t, cs, "postflight", map[string]any{"spec": spec, "run_verify": true})
	if res.IsError || sc["outcome"] != "post_broken" {
		t.Errorf("run_verify: isError %v %v %s", res.IsError, sc, text(res))
	}

	// The brief's template is a valid report; an invalid one is a successful result too.
	res, sc = call(t, cs, "validate_report", map[string]any{"text": tmpl})
	if res.IsError || sc["valid"] != true {
		t.Errorf("validate_report template: %v %s", sc, text(res))
	}
	res, sc = call(t, cs, "validate_report", map[string]any{"text": "schema_version: 1\nstatus: done\n"})
	if res.IsError || sc["valid"] != false {
		t.Errorf("validate_report invalid: %v %s", sc, text(res))
	}
	if err := os.WriteFile(filepath.Join(root, ".mastermind/tasks/001-greet/executor-report.md"), []byte(tmpl), 0o644); err != nil {
		t.Fatal(err)
	}
	res, sc = call(t, cs, "validate_report", map[string]any{"path": ".mastermind/tasks/001-greet/executor-report.md"})
	if res.IsError || sc["valid"] != true {
		t.Errorf("validate_report path: %v %s", sc, text(res))
	}
	res, _ = call(t, cs, "validate_report", map[string]any{})
	if !res.IsError || text(res) != "give exactly one of path or text" {
		t.Errorf("validate_report without path or text must be an error naming both: %q", text(res))
	}

	res, sc = call(t, cs, "status", nil)
	if res.IsError || sc["command"] != "status" {
		t.Errorf("status: %v %s", sc, text(res))
	}
	res, sc = call(t, cs, "gate", nil)
	if res.IsError || sc["command"] != "gate" {
		t.Errorf("gate: %v %s", sc, text(res))
	}
	res, sc = call(t, cs, "changes", map[string]any{"since": "HEAD"})
	if res.IsError || sc["source"] != "git" || sc["baseline"] == nil {
		t.Errorf("changes: %v %s", sc, text(res))
	}
	res, sc = call(t, cs, "schema", map[string]any{"name": "executor-report-v1"})
	if res.IsError || sc["$schema"] == nil {
		t.Errorf("schema: %v %s", sc, text(res))
	}

	// isError only when the command could not run.
	// The error text is the command's own message, naming the argument at fault.
	for name, c := range map[string]struct {
		args map[string]any
		want string
	}{
		"postflight": {map[string]any{"spec": "README.md"}, "README.md"},
		"changes":    {map[string]any{"since": "no-such-revision"}, "no-such-revision"},
		"schema":     {map[string]any{"name": "nope"}, "nope"},
	} {
		res, _ := call(t, cs, name, c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) || strings.HasPrefix(text(res), "mastermind: ") {
			t.Errorf("%s %v: isError %v, text %q; want the command's message naming %q", name, c.args, res.IsError, text(res), c.want)
		}
	}
	// Missing required arguments are rejected by the input schema.
	res, _ = call(t, cs, "preflight", map[string]any{})
	if !res.IsError {
		t.Errorf("preflight without spec must be an error")
	}

	// Resources: the task folder's state.json and audit.md.
	tmpls, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpls.ResourceTemplates) != 2 {
		t.Fatalf("resource templates: %v %v", tmpls, err)
	}
	for _, name := range []string{"state.json", "audit.md"} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mastermind://tasks/001-greet/" + name})
		if err != nil || len(rr.Contents) != 1 {
			t.Fatalf("read %s: %v %v", name, rr, err)
		}
		want, _ := os.ReadFile(filepath.Join(root, ".mastermind/tasks/001-greet", name))
		if rr.Contents[0].Text != string(want) {
			t.Errorf("%s content differs from the file", name)
		}
	}
	for _, uri := range []string{"mastermind://tasks/001-greet/spec.md", "mastermind://tasks/../../etc/state.json", "mastermind://tasks/002-none/state.json"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("read %s: no error", uri)
		}
	}
}

// A client's cancellation stops the tool's command: the cancelled postflight's verify command is
// killed and its controller lock released, so the next postflight runs instead of finding the
// lock busy.
func TestMCPCancelStopsTheCommand(t *testing.T) {
	root := scratchRepo(t)
	specPath := filepath.Join(root, ".mastermind/tasks/001-greet/spec.md")
	data, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	slow := "verify:\n  - cmd: test -f .slow-done || { touch .slow-done; sleep 30; }\n    run: true\n---\n"
	if err := os.WriteFile(specPath, []byte(strings.Replace(string(data), "---\n# Greeting", slow+"# Greeting", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := mcpSession(t, root)
	spec := ".mastermind/tasks/001-greet/spec.md"
	if res, sc := call(t, cs, "preflight", map[string]any{"spec": spec}); res.IsError || sc["outcome"] != "pre_ready" {
		t.Fatalf("preflight: %v %s", sc, text(res))
	}
	report := "<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: " + spec + "\nstatus: complete\nphases: []\n" +
		"files_modified: []\nclaims: []\ndefects: []\nverifications: []\n```\n<!-- mastermind:report-end -->\n"
	if err := os.WriteFile(filepath.Join(root, ".mastermind/tasks/001-greet/executor-report.md"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "postflight", Arguments: map[string]any{"spec": spec}}); err == nil {
		t.Fatal("the first postflight finished before its 30s verify command")
	}
	// The cancellation notice and the kill take a moment; the uncancelled command would hold the
	// lock for 30s.
	start := time.Now()
	for {
		res, sc := call(t, cs, "postflight", map[string]any{"spec": spec})
		if !res.IsError && sc["outcome"] != nil {
			break
		}
		if time.Since(start) > 15*time.Second {
			t.Fatalf("postflight after a cancelled one: still %s after %s", text(res), time.Since(start))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
