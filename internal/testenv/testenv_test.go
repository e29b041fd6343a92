package testenv

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	Main(m, func(args []string, _ io.Reader, stdout, _ io.Writer) int {
		fmt.Fprintf(stdout, "stand-in mastermind %s", strings.Join(args, " "))
		return 7
	})
}

// The binary Main sets up is this test binary, found first on PATH, and started under the name
// mastermind it runs the given main with its arguments and exit code instead of the tests.
func TestMastermindIsTheTestBinary(t *testing.T) {
	bin := Mastermind(t)
	if found, err := exec.LookPath("mastermind"); err != nil || found != bin {
		t.Fatalf("PATH finds %q (%v), want %q first", found, err, bin)
	}
	out, err := exec.Command("mastermind", "gate", "--json").Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 || string(out) != "stand-in mastermind gate --json" {
		t.Fatalf("mastermind gate --json: %q, %v", out, err)
	}
	if os.Getenv(FullEnv) != "1" {
		t.Run("Full skips without the switch", func(t *testing.T) {
			Full(t, "nothing")
			t.Fatal("Full did not skip")
		})
	}
}

// clientRecorder records how MissingClient ends a test and ends its own goroutine, as t.Fatalf
// and t.Skipf do, instead of ending this test.
type clientRecorder struct {
	testing.TB
	fatal, skip string
}

func (r *clientRecorder) Helper() {}
func (r *clientRecorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *clientRecorder) Skipf(format string, args ...any) {
	r.skip = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// A missing client skips the test with the reason, and fails it under RequireClientsEnv=1 only.
func TestMissingClientSkipsOrFails(t *testing.T) {
	for _, tc := range []struct{ env, fatal, skip string }{
		{"", "", "no reviewdog: 42"},
		{"0", "", "no reviewdog: 42"},
		{"1", "no reviewdog: 42 (MASTERMIND_TEST_REQUIRE_CLIENTS=1)", ""},
	} {
		t.Setenv(RequireClientsEnv, tc.env)
		r := &clientRecorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			MissingClient(r, "no reviewdog: %d", 42)
		}()
		<-done
		if r.fatal != tc.fatal || r.skip != tc.skip {
			t.Errorf("%s=%q: fatal %q skip %q, want %q %q", RequireClientsEnv, tc.env, r.fatal, r.skip, tc.fatal, tc.skip)
		}
	}
}
