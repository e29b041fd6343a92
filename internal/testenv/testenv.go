// Package testenv is the test suite's shared setup: the mastermind binary that tests run, which
// is the package's own test binary so that nothing builds mastermind a second time, and the one
// switch that turns on the tests that must build other programs (conventions.md §4).
package testenv

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FullEnv is the switch for the slow tests: with MASTERMIND_TEST_FULL=1 they run, otherwise they
// skip saying so. .ci/run sets it.
const FullEnv = "MASTERMIND_TEST_FULL"

// mainFunc is cli.Main's signature; testenv cannot import internal/cli, whose tests use it.
type mainFunc func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

var bin string

// Main lets the test binary stand in for mastermind: it links the running test binary as
// `mastermind` into a temporary directory put first on PATH, and when the binary is started under
// that name it runs mastermind instead of the tests. Call it from TestMain with cli.Main.
func Main(m *testing.M, mastermind mainFunc) {
	if filepath.Base(os.Args[0]) == "mastermind" {
		os.Exit(mastermind(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mastermind-testbin-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	exe, err := os.Executable()
	if err != nil {
		return fail(err)
	}
	path := filepath.Join(dir, "mastermind")
	if err := os.Link(exe, path); err != nil {
		if err := copyFile(exe, path); err != nil {
			return fail(err)
		}
	}
	bin = path
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return m.Run()
}

func fail(err error) int {
	os.Stderr.WriteString("testenv: cannot set up the mastermind binary: " + err.Error() + "\n")
	return 2
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// Binary is the path of the mastermind binary set up by Main, or "" when the package's TestMain
// did not call Main.
func Binary() string { return bin }

// Mastermind is Binary for a test: it fails the test when the package's TestMain did not call
// Main, rather than let it run some other mastermind found on PATH.
func Mastermind(t testing.TB) string {
	t.Helper()
	if bin == "" {
		t.Fatal("testenv.Mastermind: this package's TestMain must call testenv.Main(m, cli.Main)")
	}
	return bin
}

// Full skips t unless MASTERMIND_TEST_FULL=1; what names the slow part ("builds reviewdog").
func Full(t testing.TB, what string) {
	t.Helper()
	if os.Getenv(FullEnv) != "1" {
		t.Skipf("%s: runs only with %s=1 (.ci/run sets it)", what, FullEnv)
	}
}

// RequireClientsEnv is the switch that makes a missing real client a failure: with
// MASTERMIND_TEST_REQUIRE_CLIENTS=1 (.ci/run sets it) CI cannot pass without the clients it
// installs.
const RequireClientsEnv = "MASTERMIND_TEST_REQUIRE_CLIENTS"

// MissingClient reports that a real client a test checks mastermind's output with (the SARIF
// multitool, reviewdog, the MCP TypeScript SDK) is not here: it fails t under RequireClientsEnv=1
// and skips it, with the reason, otherwise.
func MissingClient(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv(RequireClientsEnv) == "1" {
		t.Fatalf(format+" ("+RequireClientsEnv+"=1)", args...)
	}
	t.Skipf(format, args...)
}
