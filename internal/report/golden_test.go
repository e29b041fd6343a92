package report

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden .out files in testdata/")

// goldenText renders a result the way `report validate` prints it: one finding per line in
// text form, nothing for a valid report.
func goldenText(r Result) string {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestGolden validates every testdata/*.md and compares the findings with testdata/*.out. The
// inputs cover every example of executor-report-v1.md §8.1–§8.4 (V*, T*, Y*, X*). Run
// `go test ./internal/report/ -update` to rewrite the .out files, then review the diff against
// the design's tables.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".md")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			res := Validate(data, filepath.Base(in))
			got := goldenText(res)
			outPath := strings.TrimSuffix(in, ".md") + ".out"
			if *update {
				if err := os.WriteFile(outPath, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(outPath)
			if err != nil {
				t.Fatalf("missing golden %s (run with -update): %v", outPath, err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("findings differ (-want +got):\n%s", diff)
			}
			if (got == "") != (res.Report != nil) {
				t.Errorf("Report non-nil = %v with %d findings", res.Report != nil, len(res.Findings))
			}
			for _, f := range res.Findings {
				if f.Rule == RuleOther {
					t.Errorf("schema.other must never appear for the design examples: %s", f)
				}
			}
		})
	}
}

// TestYAMLMistakeGolden validates testdata/yaml/*.md, the YAML mistakes agents make most, written
// as real reports in sentinel form: each gives one decode.syntax finding at the offending token
// (file line and column, given once) with the fix (lifecycle-v2.md §9).
func TestYAMLMistakeGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "yaml", "*.md"))
	if len(inputs) < 10 {
		t.Fatalf("want at least ten YAML mistakes, have %d", len(inputs))
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".md")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			res := Validate(data, filepath.Base(in))
			got := goldenText(res)
			outPath := strings.TrimSuffix(in, ".md") + ".out"
			if *update {
				if err := os.WriteFile(outPath, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(outPath)
			if err != nil {
				t.Fatalf("missing golden %s (run with -update): %v", outPath, err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("findings differ (-want +got):\n%s", diff)
			}
			if len(res.Findings) != 1 || res.Findings[0].Rule != "decode.syntax" || res.Findings[0].Column < 1 {
				t.Fatalf("want one positioned decode.syntax, got %v", res.Findings)
			}
			f := res.Findings[0]
			if strings.Contains(f.Message, "line ") {
				t.Errorf("the message repeats the position: %q", f.Message)
			}
			if !strings.Contains(f.Message, ";") {
				t.Errorf("the message gives no fix: %q", f.Message)
			}
		})
	}
}
