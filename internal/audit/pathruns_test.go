package audit

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/report"
)

// TestPathRunsSameAudit: on a real repository whose changed set has paths that are out of
// scope, unlisted, both, or neither, Compute with Inputs.PathRuns yields through All exactly the
// findings, in the same order and JSON, and the verdict that it returns without.
func TestPathRunsSameAudit(t *testing.T) {
	base := map[string]string{"a.go": "a\n", "z.go": "z\n", "docs/x.md": "x\n"}
	work := map[string]string{"a.go": "a2\n", "z.go": "", "b.go": "b\n", "docs/x.md": "x2\n", "c/d.go": "d\n", "c/e.go": "e\n"}
	for _, tc := range []struct {
		name, front string
		listed      []string
	}{
		{"some in scope, some listed", "touches:\n  - file: a.go\n", []string{"a.go", "b.go", "docs/x.md"}},
		{"nothing in scope, nothing listed", "touches:\n  - file: q.go\n", nil},
		{"all in scope and listed", "touches:\n  - file: a.go\n  - file: docs/x.md\ncreates:\n  - file: b.go\n  - file: c/d.go\n  - file: c/e.go\ndeletes:\n  - file: z.go\n",
			[]string{"a.go", "b.go", "c/d.go", "c/e.go", "docs/x.md", "z.go"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.front, base, work)
			rr := report.Result{Report: completeReport(tc.listed...), Form: report.FormSentinel}
			plain, err := Compute(context.Background(), f.inputs(t, rr))
			if err != nil {
				t.Fatal(err)
			}
			in := f.inputs(t, rr)
			in.PathRuns = true
			runs, err := Compute(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if plain.PathRuns != nil {
				t.Errorf("PathRuns without Inputs.PathRuns: %v", plain.PathRuns)
			}
			if runs.Verdict != plain.Verdict {
				t.Errorf("verdict %s with runs, %s without", runs.Verdict, plain.Verdict)
			}
			if n := Len(runs.Findings, runs.PathRuns); n != len(plain.Findings) {
				t.Errorf("Len %d, want %d", n, len(plain.Findings))
			}
			got := slices.Collect(All(runs.Findings, runs.PathRuns))
			if g, w := encode(t, got), encode(t, plain.Findings); g != w {
				t.Errorf("findings through All\n got  %s\n want %s", g, w)
			}
			e, w := finding.Count(plain.Findings)
			re, rw := finding.Count(runs.Findings)
			pe, pw := finding.CountRuns(runs.PathRuns)
			if re+pe != e || rw+pw != w {
				t.Errorf("counts %d/%d, want %d/%d", re+pe, rw+pw, e, w)
			}
		})
	}
}

func encode(t *testing.T, fs []finding.Finding) string {
	t.Helper()
	out := make([]finding.Audit, len(fs))
	for i, f := range fs {
		out[i] = finding.Audit(f)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAllMerges: All interleaves explicit findings and runs in Compare order and stops early
// when the consumer does.
func TestAllMerges(t *testing.T) {
	fields := []finding.Field{{Key: "file", Value: "a"}, {Key: "file", Value: "m"}, {Key: "file", Value: "z"}}
	explicit := []finding.Finding{findUnexpectedFile("b"), findMissingExpectedFile("k"), findUnexpectedFile("n")}
	Sort(explicit)
	runs := []finding.PathRun{{Kind: finding.KindUnexpectedFile, Files: fields}, {Kind: finding.KindReportMissingChangedFile, Files: fields[1:]}}
	var all []finding.Finding
	all = append(all, explicit...)
	for _, r := range runs {
		for i := range r.Len() {
			all = append(all, r.At(i))
		}
	}
	Sort(all)
	got := slices.Collect(All(explicit, runs))
	if g, w := encode(t, got), encode(t, all); g != w {
		t.Errorf("All\n got  %s\n want %s", g, w)
	}
	n := 0
	for range All(explicit, runs) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("early stop: %d", n)
	}
}
