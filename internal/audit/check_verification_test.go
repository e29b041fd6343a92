package audit

import (
	"testing"

	"github.com/mastermind-controller/mastermind/internal/report"
)

func i64(n int64) *int64 { return &n }

// TestCheckVerification: §10.5 through internal/verification — declared commands need a
// passing, observed row; observed facts contradicting pass are errors; a test command that
// selects nothing is a warning. The evidence lists every row.
func TestCheckVerification(t *testing.T) {
	front := "verify:\n  - cmd: go test ./...\n"
	base := map[string]string{"go.mod": "module example.com/a\n", "a.go": "package a\n", "docs/doc.go": "package docs\n", "a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n"}
	pass := func(cmd string, exit, tests int64) report.Verification {
		return report.Verification{Cmd: cmd, Result: "pass", Observed: &report.Observed{ExitCode: i64(exit), TestsRun: i64(tests)}}
	}
	cases := []struct {
		name string
		rows []report.Verification
		want []string
	}{
		{"declared and observed", []report.Verification{pass("go test ./...", 0, 1)}, nil},
		{"declared command missing", nil, []string{"verification_requirement_unmet go test ./... (missing_result)"}},
		{"declared but unobserved", []report.Verification{{Cmd: "go test ./...", Result: "pass"}},
			[]string{"verification_requirement_unmet go test ./... (unobserved_exit)"}},
		{"pass with a non-zero exit", []report.Verification{pass("go test ./...", 2, 1)},
			[]string{"observed_exit_code_non_zero go test ./...", "verification_requirement_unmet go test ./... (not_passed)"}},
		{"pass with zero tests", []report.Verification{pass("go test ./...", 0, 0)},
			[]string{"observed_zero_tests go test ./...", "verification_requirement_unmet go test ./... (not_passed)"}},
		{"test package without tests", []report.Verification{pass("go test ./...", 0, 1),
			{Cmd: "go test ./docs", Result: "pass", Observed: &report.Observed{ExitCode: i64(0)}}},
			[]string{"vacuous_test_claim go test ./docs (no conventional *_test.go files found in ./docs (not recursive))"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, front, base, map[string]string{"a.go": "package a // x\n"})
			rep := completeReport("a.go")
			for i, v := range tc.rows {
				v.Index = i
				rep.Verifications = append(rep.Verifications, v)
			}
			r, _ := f.run(t, rep)
			fs, err := checkVerification(r)
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, fs, tc.want...)
			for _, f := range fs {
				if f.Message == "" || f.File != "" || f.Line != 0 {
					t.Errorf("finding %+v: want a message and no position", f)
				}
			}
			if ev := r.ev.Verification; ev == nil || len(ev.Rows) != len(tc.rows) || len(ev.Declared) != 1 {
				t.Errorf("evidence %+v", ev)
			}
		})
	}
}
