package main

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/cli"
	"github.com/mastermind-controller/mastermind/internal/testenv"
)

// TestMain lets the test binary stand in for the mastermind binary (testenv.Main), so the loop
// kills a real mastermind process.
func TestMain(m *testing.M) {
	testenv.Main(m, cli.Main)
}

// TestKill9Loop is the short variant of scripts/faults/kill9.sh: a few SIGKILLs per scenario
// (FAULT_ITERATIONS overrides), each followed by the structural checks and a complete rerun. It
// asserts no timing, only the file invariants and the rerun's exit code.
func TestKill9Loop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	n := 4
	if v, err := strconv.Atoi(os.Getenv("FAULT_ITERATIONS")); err == nil && v > 0 {
		n = v
	}
	figs, err := run(config{Bin: testenv.Mastermind(t), N: n, Seed: uint64(time.Now().UnixNano()),
		Dir: t.TempDir(), Log: testWriter{t}, Delay: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		for _, p := range f.Failures {
			t.Errorf("%s: %s", f.Scenario, p)
		}
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }
