package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/testenv"
)

// inspectorPackage is the official MCP Inspector, whose --cli mode drives a server from the
// command line (npm registry).
const inspectorPackage = "@modelcontextprotocol/inspector"

// TestMCPInspectorCLI drives a mastermind process (the test binary, testenv.Main) with the MCP
// Inspector's CLI mode (`npx @modelcontextprotocol/inspector --cli mastermind mcp …`): tools/list,
// a postflight call whose broken verdict is a successful result, and a resources/read. It runs
// wherever npx is on PATH (CI included) and is skipped, saying why, where it is not or under
// -short.
func TestMCPInspectorCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not running the MCP Inspector")
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("npx not on PATH: the MCP Inspector test needs Node.js")
	}
	bin := testenv.Mastermind(t)
	root := scratchRepo(t)
	spec := ".mastermind/tasks/001-greet/spec.md"
	if res := invoke(nil, "run-task", filepath.Join(root, spec), "--pre-only", "--root", root); res.Code != 0 {
		t.Fatalf("pre-flight: %d %s", res.Code, res.Stderr)
	}
	inspect := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		full := append([]string{"-y", inspectorPackage, "--cli", bin, "mcp", "--root", root}, args...)
		cmd := exec.CommandContext(ctx, npx, full...)
		cmd.Dir = root
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			if strings.Contains(stderr.String(), "ENOTFOUND") || strings.Contains(stderr.String(), "EAI_AGAIN") || strings.Contains(stderr.String(), "E404") {
				t.Skipf("npx cannot fetch %s (no npm registry?): %s", inspectorPackage, stderr.String())
			}
			t.Fatalf("inspector %v: %v\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
		}
		t.Logf("inspector %s printed:\n%s", strings.Join(args, " "), stdout.String())
		return stdout.Bytes()
	}

	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(inspect("--method", "tools/list"), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != "brief,changes,gate,postflight,preflight,schema,status,validate_report" {
		t.Errorf("tools/list: %s", got)
	}

	var callRes struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(inspect("--method", "tools/call", "--tool-name", "postflight", "--tool-arg", "spec="+spec), &callRes); err != nil {
		t.Fatal(err)
	}
	if callRes.IsError || callRes.StructuredContent["outcome"] != "post_broken" {
		t.Errorf("postflight through the inspector: isError %v, structured %v", callRes.IsError, callRes.StructuredContent)
	}

	var read struct {
		Contents []struct{ URI, Text string } `json:"contents"`
	}
	if err := json.Unmarshal(inspect("--method", "resources/read", "--uri", "mastermind://tasks/001-greet/state.json"), &read); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(root, ".mastermind/tasks/001-greet/state.json"))
	if len(read.Contents) != 1 || read.Contents[0].Text != string(want) {
		t.Errorf("resources/read: %+v", read)
	}
}
