package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/testenv"
)

// mcpSDKEnv names the node_modules folder that holds @modelcontextprotocol/sdk, the MCP
// TypeScript SDK from the npm registry; .ci/run installs it, and a missing SDK skips or fails the
// test through testenv.MissingClient.
const mcpSDKEnv = "MASTERMIND_TEST_MCP_SDK"

// TestMCPTypeScriptSDKClient drives a mastermind process (the test binary, testenv.Main) with the
// MCP TypeScript SDK's Client (testdata/mcp-client/drive.mjs): every tool, every resource listed
// and read, the malformed-line cases (bad JSON, no jsonrpc, batches, object and array ids, a
// 100 MB line) on one session that must go on after each, a request before initialize, and the
// reply to a request written just before stdin closes, ten runs in a row.
func TestMCPTypeScriptSDKClient(t *testing.T) {
	skip := func(why string) {
		t.Helper()
		testenv.MissingClient(t, "%s; to run this test: npm install --prefix DIR @modelcontextprotocol/sdk@1 and set %s=DIR/node_modules", why, mcpSDKEnv)
	}
	if testing.Short() {
		t.Skip("-short: not running the MCP TypeScript SDK client")
	}
	modules := os.Getenv(mcpSDKEnv)
	if modules == "" {
		skip(mcpSDKEnv + " is not set")
	}
	if _, err := os.Stat(filepath.Join(modules, "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		skip("no @modelcontextprotocol/sdk in " + modules)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("node is not on PATH")
	}
	bin := testenv.Mastermind(t)

	root := scratchRepo(t)
	outside := filepath.Join(filepath.Dir(root), "outside")
	files := map[string]string{
		filepath.Join(outside, "secret.md"): "schema_version: 1\nspec: TOPSECRET-spec\nstatus: TOPSECRET-status\n",
		filepath.Join(root, "report.md"): "<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: .mastermind/tasks/001-greet/spec.md\n" +
			"status: complete\nphases: []\nfiles_modified: []\nclaims: []\ndefects: []\nverifications: []\n```\n<!-- mastermind:report-end -->\n",
	}
	for p, body := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "linkdir")); err != nil {
		t.Fatal(err)
	}

	// The script resolves the SDK from a node_modules beside it.
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", "mcp-client", "drive.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "drive.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "drive.mjs"), bin, root)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the TypeScript SDK client failed: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var sum struct {
		OK     bool `json:"ok"`
		Checks int  `json:"checks"`
		PeakKB int  `json:"peak_rss_kb_after_100mb_line"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil || !sum.OK || sum.Checks < 60 {
		t.Fatalf("summary %s (%v)", stdout.String(), err)
	}
	t.Logf("TypeScript SDK client: %d checks passed; server peak RSS after a 100 MB line: %d KiB", sum.Checks, sum.PeakKB)
}
