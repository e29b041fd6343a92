package forge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/golden"
)

// TestNoBlockHints: the sloppy blocks the original's regex accepts and CommonMark does not read
// as a fence get a no_block error that says what to fix (testdata/no-block/*.md, golden
// testdata/no-block/hints.golden); a message with no forge-report fence keeps the bare text.
func TestNoBlockHints(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "no-block", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatal("no inputs", err)
	}
	var out strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := Check(data)
		if len(r.Errors) != 1 || r.Errors[0].Rule != RuleNoBlock {
			t.Fatalf("%s: %v", f, r.Errors)
		}
		e := r.Errors[0]
		if !strings.HasPrefix(e.Message, msgNoBlock) {
			t.Errorf("%s: message does not start with the contract text: %s", f, e.Message)
		}
		out.WriteString(filepath.Base(f) + "\n  line " + itoa(e.Line) + ": " + e.Message + "\n")
	}
	golden.Check(t, filepath.Join("testdata", "no-block", "hints.golden"), []byte(out.String()))
}

func itoa(n int) string { return formatNumber(float64(n)) }
