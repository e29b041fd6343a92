package testenv

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
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
