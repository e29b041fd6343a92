package postflight

import (
	"fmt"
	"os"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/store"
)

// TestMain points the controller store at a directory of this test run (trust-model.md §3), so
// that no test reads or writes the user's store.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mastermind-store-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv(store.EnvStateDir, dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
