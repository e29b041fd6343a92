package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/golden"
)

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

// goldenInputs returns the inputs matching pattern, at least min of them.
func goldenInputs(t *testing.T, pattern string, min int) []string {
	t.Helper()
	inputs, err := filepath.Glob(pattern)
	if err != nil || len(inputs) < min {
		t.Fatalf("want at least %d golden inputs %s, have %d: %v", min, pattern, len(inputs), err)
	}
	return inputs
}

// eachGolden runs check for every input as a subtest named for the file: check gets the input's
// bytes and returns the text to compare with the .out file beside it. With -update the .out file
// is rewritten instead and the subtest ends.
func eachGolden(t *testing.T, inputs []string, check func(t *testing.T, name string, data []byte) (got string, more func())) {
	t.Helper()
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".md")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got, more := check(t, name, data)
			outPath := strings.TrimSuffix(in, ".md") + ".out"
			golden.Check(t, outPath, []byte(got))
			more()
		})
	}
}

// TestGolden validates every testdata/*.md and compares the findings with testdata/*.out. The
// inputs cover every example of executor-report-v1.md §8.1–§8.4 (V*, T*, Y*, X*). Run
// `go test ./internal/report/ -update` to rewrite the .out files, then review the diff against
// the design's tables.
func TestGolden(t *testing.T) {
	eachGolden(t, goldenInputs(t, filepath.Join("testdata", "*.md"), 1), func(t *testing.T, name string, data []byte) (string, func()) {
		res := Validate(data, name+".md")
		got := goldenText(res)
		return got, func() {
			if (got == "") != (res.Report != nil) {
				t.Errorf("Report non-nil = %v with %d findings", res.Report != nil, len(res.Findings))
			}
			for _, f := range res.Findings {
				if f.Rule == RuleOther {
					t.Errorf("schema.other must never appear for the design examples: %s", f)
				}
			}
		}
	})
}

// TestYAMLMistakeGolden validates testdata/yaml/*.md, the YAML mistakes agents make most, written
// as real reports in sentinel form: each gives one decode.syntax finding at the offending token
// (file line and column, given once) with the fix (lifecycle-v2.md §9).
func TestYAMLMistakeGolden(t *testing.T) {
	eachGolden(t, goldenInputs(t, filepath.Join("testdata", "yaml", "*.md"), 10), func(t *testing.T, name string, data []byte) (string, func()) {
		res := Validate(data, name+".md")
		return goldenText(res), func() {
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
		}
	})
}
