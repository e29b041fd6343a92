package filter

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mastermind-controller/mastermind/internal/golden"
)

// TestGolden runs every testdata/golden/*.raw through the filter (headings_* against
// headings-brief.md, names_* against names-brief.md, the rest against brief.md) and compares stdout's text — the clean output or
// the REJECT block — with <name>.golden. go test -update rewrites the golden files.
func TestGolden(t *testing.T) {
	raws, err := filepath.Glob(filepath.Join("testdata", "golden", "*.raw"))
	if err != nil || len(raws) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, p := range raws {
		name := strings.TrimSuffix(filepath.Base(p), ".raw")
		t.Run(name, func(t *testing.T) {
			brief := "brief.md"
			switch {
			case strings.HasPrefix(name, "headings_"):
				brief = "headings-brief.md"
			case strings.HasPrefix(name, "names_"):
				brief = "names-brief.md"
			}
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Check(context.Background(), raw, loadBrief(t, brief), nil)
			if err != nil {
				t.Fatal(err)
			}
			got := string(res.Output)
			if !res.Accepted {
				got = RejectText(res.Items)
			}
			golden.Check(t, strings.TrimSuffix(p, ".raw")+".golden", []byte(got))
			if name == "example_c" {
				golden.Check(t, filepath.Join("testdata", "golden", "escalate.golden"), []byte(EscalateText("task-7", 3, res.Items)))
			}
		})
	}
}

// TestDesignExampleC pins the REJECT example of agent-contracts.md §2.7 byte for byte.
func TestDesignExampleC(t *testing.T) {
	const want = "REJECT: report did not conform to declared OUTPUT schema.\n" +
		"Missing/invalid:\n" +
		"  - (output) (required, object) — no JSON object found; return the report as one JSON object, optionally in a ```json fence\n" +
		"  - tests_added (required, array of string) — absent\n" +
		"  - files_changed (required, array of paths) — absent\n" +
		"  - test_command (required, string) — absent\n" +
		"  - test_output_tail (required, string) — absent\n" +
		"  - commits (required, array of string) — absent\n" +
		"Redispatch with corrected output. Do not re-run the work; only re-format.\n"
	res, _ := run(t, loadBrief(t, "brief.md"), "I did the task. It went well. Files got changed.")
	if diff := cmp.Diff(want, RejectText(res.Items)); diff != "" {
		t.Fatal(diff)
	}
}
