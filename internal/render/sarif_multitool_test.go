package render

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/testenv"
)

// The real clients the encoders are checked with are installed by .ci/run; locally a missing
// client skips its test with the reason (testenv.MissingClient).

// sarifMultitool returns the Microsoft SARIF multitool binary: $MASTERMIND_TEST_SARIF_MULTITOOL,
// or the self-contained Sarif.Multitool of npm's @microsoft/sarif-multitool-<os> beside
// $MASTERMIND_TEST_NODE_BIN (.ci/run installs it there). The npm bin shim is not used: it passes
// its arguments through a shell, which splits --rule-kind "Sarif;Gh" at the semicolon.
func sarifMultitool(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("MASTERMIND_TEST_SARIF_MULTITOOL")
	if bin == "" {
		if nodeBin := os.Getenv("MASTERMIND_TEST_NODE_BIN"); nodeBin != "" {
			platform, exe := runtime.GOOS, ""
			if platform == "windows" {
				platform, exe = "win32", ".exe"
			}
			bin = filepath.Join(nodeBin, "..", "@microsoft", "sarif-multitool-"+platform, "Sarif.Multitool"+exe)
		}
	}
	if bin == "" {
		testenv.MissingClient(t, "SARIF multitool not configured: set MASTERMIND_TEST_SARIF_MULTITOOL, or MASTERMIND_TEST_NODE_BIN to the node_modules/.bin of an npm install of @microsoft/sarif-multitool@5")
	}
	if _, err := os.Stat(bin); err != nil {
		testenv.MissingClient(t, "SARIF multitool not found: %v", err)
	}
	return bin
}

// multitoolProblems runs `validate --rule-kind "Sarif;Gh" --level "Error;Warning"` (the SARIF
// rules and GitHub's ingestion rules) on files and returns every error and warning it reports,
// one line each.
func multitoolProblems(t *testing.T, bin string, files ...string) []string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "validation.sarif")
	args := append([]string{"validate"}, files...)
	args = append(args, "--rule-kind", "Sarif;Gh", "--level", "Error;Warning", "--output", out, "--log", "ForceOverwrite")
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1")
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	if err := cmd.Run(); err != nil {
		t.Fatalf("multitool: %v\n%s", err, stdout.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("multitool wrote no log: %v\n%s", err, stdout.String())
	}
	var log struct {
		Runs []struct {
			Invocations []struct {
				ExecutionSuccessful        bool
				ToolExecutionNotifications []struct {
					Level   string
					Message struct{ Text string }
				}
			}
			Results []struct {
				RuleID  string
				Level   string
				Message struct {
					ID        string
					Arguments []string
				}
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Invocations) == 0 {
		t.Fatalf("multitool log %v: %.500s", err, data)
	}
	run := log.Runs[0]
	if inv := run.Invocations[0]; !inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) > 0 {
		t.Fatalf("multitool did not run cleanly: %+v\n%s", inv, stdout.String())
	}
	var problems []string
	for _, r := range run.Results {
		where := ""
		if len(r.Locations) > 0 {
			where = filepath.Base(r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
		}
		problems = append(problems, r.Level+" "+r.RuleID+" "+where+": "+r.Message.ID+" "+strings.Join(r.Message.Arguments, " | "))
	}
	return problems
}

// The Microsoft SARIF multitool, with the SARIF rules and GitHub's ingestion rules, finds no
// error or warning in any SARIF golden, in a log with the whole kinds table, or in the log of
// 30,000 findings (which keeps GitHub's limits).
func TestSARIFLogsPassTheSARIFMultitool(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not running the SARIF multitool")
	}
	bin := sarifMultitool(t)
	files, err := filepath.Glob(filepath.Join("testdata", "sarif", "*.sarif"))
	if err != nil || len(files) < len(sarifGoldens) {
		t.Fatalf("SARIF goldens: %v %v", files, err)
	}
	dir := t.TempDir()
	for name, sets := range map[string][]FindingSet{"kinds.sarif": testSets(), "30000-findings.sarif": bigSets(30000, 0, false)} {
		var b bytes.Buffer
		if err := WriteSARIF(&b, ToolMeta{Name: "mastermind", Version: sarifToolVersion("unknown"), InformationURI: testTool.InformationURI}, KindRules(), sets); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for _, p := range multitoolProblems(t, bin, files...) {
		t.Error(p)
	}
	// The validator is live: a log without rule help, with an absolute uri under a uriBaseId and
	// a tool version that is not a number fails it.
	bad := filepath.Join(dir, "bad.sarif")
	if err := os.WriteFile(bad, []byte(`{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{"name":"m","version":"unknown","rules":[{"id":"r","shortDescription":{"text":"r"}}]}},
"results":[{"ruleId":"r","ruleIndex":0,"level":"error","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"/tmp/x.md","uriBaseId":"%SRCROOT%"},"region":{"startLine":1}}}],"partialFingerprints":{"primaryLocationLineHash":"a"}}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(multitoolProblems(t, bin, bad), "\n")
	for _, want := range []string{"GH2012", "SARIF2005", "SARIF1004"} {
		if !strings.Contains(got, want) {
			t.Errorf("the multitool did not report %s on a bad log; it reported:\n%s", want, got)
		}
	}
}
