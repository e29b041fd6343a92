package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/testenv"
	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema"
	"github.com/rogpeppe/go-internal/txtar"
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
	logs := t.TempDir()
	var files []string
	for name, args := range map[string][]string{
		"run-task":        {"run-task", spec, "--post-only", "--format", "sarif", "--root", root},
		"gate":            {"gate", "--format", "sarif", "--root", root},
		"report validate": {"report", "validate", bad, "--format", "sarif"},
	} {
		res := invoke(nil, args...)
		if res.Code != 1 {
			t.Fatalf("%s exited %d: %s", name, res.Code, res.Stderr)
		}
		files = append(files, filepath.Join(logs, strings.ReplaceAll(name, " ", "-")+".sarif"))
		if err := os.WriteFile(files[len(files)-1], res.Stdout, 0o644); err != nil {
			t.Fatal(err)
		}
		// The report lies in a repository whose root is not the current directory: an absolute
		// file URI, and no uriBaseId (SARIF §3.4.4).
		if name == "report validate" {
			want := `"uri": "file://` + filepath.ToSlash(bad) + `"`
			if !bytes.Contains(res.Stdout, []byte(want)) || bytes.Contains(res.Stdout, []byte("uriBaseId")) {
				t.Errorf("report validate: want %s without uriBaseId:\n%s", want, res.Stdout)
			}
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
	// The real validator with GitHub's ingestion rules, when .ci/run installed it (render's
	// TestSARIFLogsPassTheSARIFMultitool checks the goldens the same way).
	t.Run("SARIF multitool", func(t *testing.T) {
		bin := sarifMultitool(t)
		out := filepath.Join(logs, "validation.sarif")
		cmd := exec.Command(bin, append(append([]string{"validate"}, files...), "--rule-kind", "Sarif;Gh", "--level", "Error;Warning", "--output", out, "--log", "ForceOverwrite")...)
		cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("multitool: %v\n%s", err, msg)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var log struct {
			Runs []struct {
				Results []struct {
					RuleID  string
					Level   string
					Message struct{ Arguments []string }
				}
			}
		}
		if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 {
			t.Fatalf("multitool log: %v", err)
		}
		for _, r := range log.Runs[0].Results {
			t.Errorf("multitool: %s %s %v", r.Level, r.RuleID, r.Message.Arguments)
		}
	})
}

// sarifMultitool returns the SARIF multitool binary as render's tests find it
// (MASTERMIND_TEST_SARIF_MULTITOOL, or the npm install beside MASTERMIND_TEST_NODE_BIN), or skips
// t through testenv.MissingClient.
func sarifMultitool(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("MASTERMIND_TEST_SARIF_MULTITOOL")
	if nodeBin := os.Getenv("MASTERMIND_TEST_NODE_BIN"); bin == "" && nodeBin != "" && runtime.GOOS != "windows" {
		bin = filepath.Join(nodeBin, "..", "@microsoft", "sarif-multitool-"+runtime.GOOS, "Sarif.Multitool")
	}
	if _, err := os.Stat(bin); bin == "" || err != nil {
		testenv.MissingClient(t, "SARIF multitool not found (%q): set MASTERMIND_TEST_SARIF_MULTITOOL or MASTERMIND_TEST_NODE_BIN", bin)
	}
	return bin
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
		testenv.MissingClient(t, "no go command to build reviewdog")
	}
	bin := t.TempDir()
	install := exec.Command(goBin, "install", "github.com/reviewdog/reviewdog/cmd/reviewdog@v0.21.0")
	install.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := install.CombinedOutput(); err != nil {
		testenv.MissingClient(t, "cannot build reviewdog v0.21.0: %v\n%s", err, out)
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

// An outcome kind outcomeVerdict does not know fails closed as "error" rather than passing its
// own name through as a verdict word the finding sets do not define.
func TestOutcomeVerdictUnknownIsError(t *testing.T) {
	for outcome, want := range map[postflight.OutcomeKind]string{
		postflight.OutcomePostHeld: "held", postflight.OutcomePostBroken: "broken",
		postflight.OutcomeCompleted: "completed", postflight.OutcomeError: "error",
		"post_bogus": "error", "": "error",
	} {
		if got := outcomeVerdict(outcome); got != want {
			t.Errorf("outcomeVerdict(%q) = %q, want %q", outcome, got, want)
		}
	}
}
