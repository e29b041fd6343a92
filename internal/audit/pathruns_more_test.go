package audit

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/report"
)

// TestPathRunsSameAuditFeedbackForbidsUnrepresentable: with a rejected report (its feedback
// round), forbidden paths, unrepresentable paths (D is then copied) and paths under .mastermind/
// that stay in D, Compute with Inputs.PathRuns yields through All the findings, order, JSON and
// verdict of the plain run.
func TestPathRunsSameAuditFeedbackForbidsUnrepresentable(t *testing.T) {
	base := map[string]string{"a.go": "a\n", "tests/t.go": "t\n", "z.go": "z\n"}
	work := map[string]string{"a.go": "a2\n", "tests/t.go": "t2\n", "c.go": "c\n", "bad\\name.go": "x\n", " lead.go": "x\n",
		".mastermind/notes.txt": "n\n", "d/\u00e9.go": "e\n", "d/e.go": "e\n", "z.go": ""}
	for _, tc := range []struct{ name, report string }{
		{"undecodable report", reportFile("schema_version: 1", "status: complete: yes")},
		{"schema-invalid report", reportFile("schema_version: 1", "spec: "+testSpecPath, "status: complete", "phases: [{id: p, status: done}]",
			"files_modified: [a.go, d/e.go, a.go]", "claims: []", "defects: []", "verifications: nope")},
		{"valid report", reportFile("schema_version: 1", "spec: "+testSpecPath, "status: complete", "phases: [{id: p, status: done}]",
			"files_modified: [a.go, d/e.go, tests/t.go]", "claims: []", "defects: []", "verifications: []")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "touches:\n  - file: a.go\n  - file: d/e.go\nforbids:\n  - tests/**\n", base, work)
			write(t, f.root, ".mastermind/tasks/020-cache/executor-report.md", tc.report)
			rr, err := report.ReadInRepo(f.root, ".mastermind/tasks/020-cache/executor-report.md")
			if err != nil {
				t.Fatal(err)
			}
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
			got := slices.Collect(All(runs.Findings, runs.PathRuns))
			if g, w := encode(t, got), encode(t, plain.Findings); g != w {
				t.Errorf("findings through All\n got  %s\n want %s", g, w)
			}
			if runs.Verdict != plain.Verdict {
				t.Errorf("verdict %s with runs, %s without", runs.Verdict, plain.Verdict)
			}
			if e, w := runs.Counts(); [2]int{e, w} != func() [2]int { a, b := plain.Counts(); return [2]int{a, b} }() {
				t.Errorf("counts differ")
			}
			for _, want := range []string{"changed_path_unrepresentable", "forbidden_path_changed", "unexpected_file"} {
				if !strings.Contains(encode(t, plain.Findings), want) {
					t.Errorf("fixture too weak, no %s: %s", want, encode(t, plain.Findings))
				}
			}
		})
	}
}
