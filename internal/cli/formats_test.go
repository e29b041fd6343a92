package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/testenv"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// scriptFiles returns the files of a testscript archive whose names end in suffix.
func scriptFiles(t *testing.T, script, suffix string) map[string][]byte {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", "script", script))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range a.Files {
		if strings.HasSuffix(f.Name, suffix) {
			out[f.Name] = f.Data
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no %s files", script, suffix)
	}
	return out
}

// The SARIF the commands print validates against the published SARIF 2.1.0 schema kept in
// internal/render/testdata.
func TestCommandSARIFValidatesAgainstPublishedSchema(t *testing.T) {
	path := filepath.Join("..", "render", "testdata", "sarif-schema", "sarif-schema-2.1.0.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("file:///sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("file:///sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	// The commands' SARIF on a scratch repository: a broken post-flight, the gate, a report.
	root := scratchRepo(t)
	spec := filepath.Join(root, ".mastermind/tasks/001-greet/spec.md")
	if res := invoke(nil, "run-task", spec, "--pre-only", "--root", root); res.Code != 0 {
		t.Fatalf("pre-flight: %s", res.Stderr)
	}
	bad := filepath.Join(root, "bad-report.md")
	if err := os.WriteFile(bad, []byte("schema_version: 1\nstatus: done\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"run-task":        {"run-task", spec, "--post-only", "--format", "sarif", "--root", root},
		"gate":            {"gate", "--format", "sarif", "--root", root},
		"report validate": {"report", "validate", bad, "--format", "sarif"},
	} {
		res := invoke(nil, args...)
		if res.Code != 1 {
			t.Fatalf("%s exited %d: %s", name, res.Code, res.Stderr)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.Stdout))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if !bytes.Contains(res.Stdout, []byte(`"ruleId": `)) {
			t.Errorf("%s: no results:\n%s", name, res.Stdout)
		}
	}
}

// The rdjson the commands print is read by the real reviewdog (with MASTERMIND_TEST_FULL=1;
// skipped only when it cannot be built here).
func TestCommandRDJSONReadByReviewdog(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not building reviewdog")
	}
	testenv.Full(t, "builds reviewdog")
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build reviewdog")
	}
	bin := t.TempDir()
	install := exec.Command(goBin, "install", "github.com/reviewdog/reviewdog/cmd/reviewdog@v0.21.0")
	install.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("cannot build reviewdog v0.21.0: %v\n%s", err, out)
	}
	for name, data := range scriptFiles(t, "formats.txtar", ".rdjson") {
		var doc struct {
			Diagnostics []struct {
				Code struct{ Value string }
			}
		}
		if err := json.Unmarshal(data, &doc); err != nil || len(doc.Diagnostics) == 0 {
			t.Fatalf("%s: %v (%d diagnostics)", name, err, len(doc.Diagnostics))
		}
		cmd := exec.Command(filepath.Join(bin, "reviewdog"), "-f=rdjson", "-reporter=local", "-filter-mode=nofilter")
		cmd.Dir = t.TempDir()
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("reviewdog: %v\n%s", err, out)
		}
		t.Logf("reviewdog printed for %s:\n%s", name, out)
		for _, d := range doc.Diagnostics {
			if !strings.Contains(string(out), `code:{value:"`+d.Code.Value+`"}`) {
				t.Errorf("%s: reviewdog did not print %s", name, d.Code.Value)
			}
		}
	}
}
