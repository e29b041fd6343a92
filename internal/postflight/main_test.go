package postflight

import (
	"fmt"
	"os"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/store"
)

// taskSource is the source post-flight reads for task (sourceFor): the snapshot view of its
// record in the test's controller store.
func taskSource(t *testing.T, opts Options, task string) source {
	t.Helper()
	s, err := store.OpenExisting(os.Getenv(store.EnvStateDir))
	if err != nil || s == nil {
		t.Fatalf("store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	gitDir, err := opts.Git.GitDir()
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.FindTask(gitDir, task)
	if err != nil || st == nil {
		t.Fatalf("no record of %s: %v", task, err)
	}
	t.Cleanup(func() { st.Close() })
	rec, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	state, err := ParseState(rec.State)
	if err != nil {
		t.Fatal(err)
	}
	src, err := builder{git: opts.Git}.sourceFor(t.Context(), state.BaselineRef, st)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

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
