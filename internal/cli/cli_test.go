package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/testenv"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain makes this test binary the mastermind binary of the package's tests (testenv.Main):
// `exec mastermind ...` inside a .txtar runs Main in a subprocess of the test binary.
func TestMain(m *testing.M) {
	testenv.Main(m, Main)
}

// TestScripts runs every internal/cli/testdata/script/*.txtar scenario. Each builds its own git
// repository with `exec git`; HOME and XDG_CONFIG_HOME point inside the work directory and git's
// system config is ignored, so the host's git configuration cannot leak in. Scenarios guarded by
// [builds] also compare two real binaries, the cgo and the pure-Go build, with `mmb` (builds_test.go).
func TestScripts(t *testing.T) {
	b := &builds{dir: t.TempDir()}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mm": cmdMM, "mmb": b.cmdMMB, "cmpstore": cmdCmpStore, "ghworkflow": cmdGHWorkflow,
			"hookout": cmdHookOut, "hookin": cmdHookIn,
			"transcript": cmdTranscript,
		},
		Condition: b.condition,
		Setup:     scriptSetup,
	})
}

// scriptSetup isolates a scenario from the host: HOME and XDG_CONFIG_HOME inside the work
// directory, no system git config, fixed author, committer and dates, no colour.
func scriptSetup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, ".home")
	if err := os.MkdirAll(filepath.Join(home, ".config"), 0o755); err != nil {
		return err
	}
	env.Setenv("HOME", home)
	// The controller store of this scenario, outside its work tree (trust-model.md §3).
	env.Setenv("MASTERMIND_STATE_DIR", env.WorkDir+".state")
	env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	env.Setenv("GIT_AUTHOR_NAME", "Test")
	env.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	env.Setenv("GIT_COMMITTER_NAME", "Test")
	env.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
	env.Setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
	env.Setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
	env.Setenv("NO_COLOR", "1")
	// Scenarios whose spec has mastermind run `go test` share the host's build cache and module
	// cache (a fresh cache per scenario would rebuild the standard library).
	for k, v := range goEnv() {
		env.Setenv(k, v)
	}
	// cargo through rustup finds its toolchains under the real home, not the scenario's.
	if h, err := os.UserHomeDir(); err == nil {
		for _, v := range []struct{ name, dir string }{{"RUSTUP_HOME", ".rustup"}, {"CARGO_HOME", ".cargo"}} {
			if os.Getenv(v.name) != "" {
				env.Setenv(v.name, os.Getenv(v.name))
			} else if fi, err := os.Stat(filepath.Join(h, v.dir)); err == nil && fi.IsDir() {
				env.Setenv(v.name, filepath.Join(h, v.dir))
			}
		}
	}
	// jest and vitest, when .ci/run installed them from the npm registry.
	if bin := os.Getenv("MASTERMIND_TEST_NODE_BIN"); bin != "" {
		env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
	}
	return nil
}

// cmdMM implements the script command `mm CODE ARGS...`: it runs `mastermind ARGS...`, keeps its
// stdout and stderr for the following stdout/stderr/cmp commands, and fails unless the exit
// status is exactly CODE. Exit codes are part of the contract, so scenarios assert them exactly
// rather than with `! exec`.
func cmdMM(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("mm does not support negation; give the expected exit code")
	}
	if len(args) < 1 {
		ts.Fatalf("usage: mm CODE [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("mm: exit code %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec("mastermind", args[1:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("mm: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("mastermind %v exited %d, want %d", args[1:], got, want)
	}
}

// cmdCmpStore implements `cmpstore FILE`: like `cmp stdout FILE`, after replacing the repository's
// controller-store folder ($MASTERMIND_STATE_DIR/repos/<64 hex>, which depends on the work
// directory's real path) by the literal $STORE, so that goldens can name it.
func cmdCmpStore(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: cmpstore FILE")
	}
	dir := ts.Getenv("MASTERMIND_STATE_DIR")
	re := regexp.MustCompile(regexp.QuoteMeta(dir) + `/repos/[0-9a-f]{64}`)
	got := re.ReplaceAllString(ts.ReadFile("stdout"), "$$STORE")
	want := ts.ReadFile(args[0])
	if got != want {
		ts.Logf("[diff -stdout +%s]\n%s", args[0], lineDiff(got, want))
		ts.Fatalf("stdout and %s differ", args[0])
	}
}

// lineDiff lists the lines that differ, for cmpstore's failure message.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			b.WriteString("-" + gl + "\n+" + wl + "\n")
		}
	}
	return b.String()
}

// TestDevNullIsNotATerminal: /dev/null is a character device but no terminal, so output sent
// there is never coloured by --color auto.
func TestDevNullIsNotATerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if systemStreams(strings.NewReader(""), f, f).IsStdoutTTY {
		t.Fatal("/dev/null counted as a terminal")
	}
}

// goEnv is the host's GOCACHE, GOPATH and GOMODCACHE (as the go command chooses them before HOME
// is moved), GOTOOLCHAIN=local and no GOFLAGS, for scenarios that run go test; without go only
// the last two.
func goEnv() map[string]string {
	out := map[string]string{"GOTOOLCHAIN": "local", "GOFLAGS": ""}
	for _, k := range []string{"GOCACHE", "GOPATH", "GOMODCACHE"} {
		if b, err := exec.Command("go", "env", k).Output(); err == nil {
			if v := strings.TrimSpace(string(b)); v != "" {
				out[k] = v
			}
		}
	}
	return out
}
