package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// The loop-guard record's errors for a store or task folder that is not there keep their first
// words and say what to check next.
func TestOpenHookRecordErrorsSayWhatToCheck(t *testing.T) {
	root := scratchRepo(t)
	repo, err := gitscope.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	loc := filepath.Join(t.TempDir(), "state")
	t.Setenv("MASTERMIND_STATE_DIR", loc)
	for _, want := range []string{
		"no controller store at " + loc + "; ",
		"the controller store " + loc + " has no folder for task 001-greet; ",
	} {
		_, _, err := openHookRecord(repo, "001-greet")
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "check that MASTERMIND_STATE_DIR") {
			t.Errorf("openHookRecord: %v, want %q and what to check", err, want)
		}
		if err := os.MkdirAll(loc, 0o700); err != nil {
			t.Fatal(err)
		}
	}
}
