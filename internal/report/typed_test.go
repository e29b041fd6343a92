package report

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sp(s string) *string { return &s }
func ip(i int64) *int64   { return &i }

// TestTypedReportV1 checks the typed value of §7 for the §8.1 V1 example.
func TestTypedReportV1(t *testing.T) {
	data, err := os.ReadFile("testdata/V1.md")
	if err != nil {
		t.Fatal(err)
	}
	res := Validate(data, "V1.md")
	if res.Report == nil {
		t.Fatalf("V1 invalid: %v", res.Findings)
	}
	r := *res.Report
	positions := r.Positions
	r.Positions = nil
	want := Report{
		Form: FormSentinel, SchemaVersion: 1, Spec: ".mastermind/tasks/014-retry-helper/spec.md", Status: "complete",
		Phases: []Phase{{"plan-1", "done"}, {"plan-2", "done"}},
		FilesModified: []FileEntry{
			{"internal/retry/retry.go", "internal/retry/retry.go"},
			{"internal/retry/retry_test.go", "internal/retry/retry_test.go"},
			{"internal/httpclient/client.go", "internal/httpclient/client.go"},
		},
		Claims: []Claim{
			{Index: 0, Kind: "function_added", Symbol: sp("Do"), File: sp("internal/retry/retry.go"),
				Signature: sp("func Do(ctx context.Context, attempts int, fn func() error) error")},
			{Index: 1, Kind: "integration", From: sp("Client.Get"), FromFile: sp("internal/httpclient/client.go"),
				To: sp("Do"), ToFile: sp("internal/retry/retry.go"), Relation: sp("calls")},
		},
		Verifications: []Verification{{Index: 0, Cmd: "go test ./internal/...", Result: "pass",
			Observed: &Observed{ExitCode: ip(0), TestsRun: ip(14)}}},
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("typed report (-want +got):\n%s", diff)
	}
	// Positions are file positions (the fence's first content line is line 7).
	for p, want := range map[string]Pos{"/schema_version": {Line: 7, Column: 17}, "/claims/1/relation": {Line: 29, Column: 15}, "/verifications/0/observed/tests_run": {Line: 36, Column: 18}} {
		if got := positions[p]; got != want {
			t.Errorf("Positions[%q] = %v, want %v", p, got, want)
		}
	}
}

// TestTypedKeepsRawValues checks §3.6 (values as written) and that absent optional fields are nil.
func TestTypedKeepsRawValues(t *testing.T) {
	src := "schema_version: 1\nspec: ' .mastermind/tasks/1/spec.md'\nstatus: partial\nphases: []\n" +
		"files_modified: ['.\\a\\b.go']\nclaims: []\ndefects:\n  - {kind: x, phase: p, details: d, remediation_hint: h}\n" +
		"verifications:\n  - {cmd: make, result: fail, output_excerpt: '', observed: {}}\n"
	res := Validate([]byte(src), "r.md")
	if res.Report == nil {
		t.Fatalf("invalid: %v", res.Findings)
	}
	r := res.Report
	if r.Form != FormBare || r.Spec != " .mastermind/tasks/1/spec.md" {
		t.Errorf("form %q spec %q", r.Form, r.Spec)
	}
	if diff := cmp.Diff([]FileEntry{{`.\a\b.go`, "a/b.go"}}, r.FilesModified); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	v := r.Verifications[0]
	if v.OutputExcerpt == nil || *v.OutputExcerpt != "" || v.Observed == nil || v.Observed.ExitCode != nil || v.Observed.TestsRun != nil {
		t.Errorf("verification optional fields wrong: %+v %+v", v, v.Observed)
	}
	if diff := cmp.Diff([]Defect{{"x", "p", "d", "h"}}, r.Defects); diff != "" {
		t.Errorf("defects (-want +got):\n%s", diff)
	}
}
