package brief

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/golden"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/spec"
)

var testRules = []Rule{
	{ID: "executor_report_missing_changed_file", Class: finding.ClassError, Text: "A file changed since the baseline is not listed in files_modified; list it, or undo the change."},
	{ID: "unexpected_file", Class: finding.ClassWarning, Text: "A file changed outside the spec's declared scope; revert it or declare it in the spec."},
}

const specRel = ".mastermind/tasks/014-retry-helper/spec.md"

func build(t *testing.T) Brief {
	t.Helper()
	data, err := os.ReadFile("testdata/spec.md")
	if err != nil {
		t.Fatal(err)
	}
	s, fs := spec.Parse(data, specRel)
	if len(fs) != 0 {
		t.Fatalf("spec findings: %v", fs)
	}
	return Build(s, "014-retry-helper", specRel, testRules)
}

func TestBriefGoldens(t *testing.T) {
	b := build(t)
	golden.Check(t, "testdata/brief.md", []byte(b.Markdown()))
	js, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/brief.json", append(js, '\n'))
}

func TestBriefContent(t *testing.T) {
	b := build(t)
	if b.Title != "Retry helper" || b.Mode != "strict" || b.Risk != "medium" || len(b.SpecHash) != 64 {
		t.Errorf("header: %+v", b)
	}
	if want := []string{"go test ./internal/net/...", "go vet ./...", "go test -run TestRetry ./internal/net/"}; len(b.Verify) != 3 ||
		b.Verify[0].Cmd != want[0] || b.Verify[1].Cmd != want[1] || b.Verify[2].Cmd != want[2] ||
		b.Verify[0].RunBy != "mastermind" || b.Verify[1].RunBy != "executor" || b.Verify[2].RunBy != "executor" {
		t.Errorf("verify: %+v", b.Verify)
	}
	if d := cmp.Diff([]string{"internal/net/client.go", "internal/net/retry.go", "internal/net/retry_test.go", "internal/net/oldretry.go", "docs/retry.md"}, b.Scope.Declared); d != "" {
		t.Errorf("declared scope: %s", d)
	}
	if d := cmp.Diff([]string{"go.sum", "vendor/**"}, b.Scope.Forbids); d != "" {
		t.Errorf("forbids: %s", d)
	}
	if d := cmp.Diff([]string{"internal/net/oldretry.go"}, b.Scope.Deletes); d != "" {
		t.Errorf("deletes: %s", d)
	}
	if !strings.HasPrefix(b.Goals, "Add `Retry(fn, attempts)`") || b.Report.Path != ".mastermind/tasks/014-retry-helper/executor-report.md" {
		t.Errorf("goals/report: %q %q", b.Goals, b.Report.Path)
	}
	// Deterministic: the same spec gives the same bytes.
	if b.Markdown() != build(t).Markdown() {
		t.Error("markdown not deterministic")
	}
}

// The pre-filled template is itself a valid v1 report for the spec.
func TestTemplateIsAValidReport(t *testing.T) {
	for _, rel := range []string{specRel, ".mastermind/tasks/015-odd: name/spec.md", `.mastermind/tasks/016-"q"/spec.md`,
		`.mastermind/tasks/017-back\slash/spec.md`, ".mastermind/tasks/018-tab\there/spec.md", "#x"} {
		res := report.Validate([]byte(Template(rel)), "executor-report.md")
		if !res.Valid() {
			t.Fatalf("template for %q is not a valid report: %v", rel, res.Findings)
		}
		if res.Report.Spec != rel {
			t.Errorf("template spec %q, want %q", res.Report.Spec, rel)
		}
	}
}

func TestBriefWithoutScopeOrVerify(t *testing.T) {
	s, _ := spec.Parse([]byte("# Tiny\n\n## Goals\n\nDo it.\n"), ".mastermind/tasks/001-tiny/spec.md")
	b := Build(s, "001-tiny", ".mastermind/tasks/001-tiny/spec.md", nil)
	md := b.Markdown()
	for _, want := range []string{"The spec declares no files", "The spec declares no verify command", "# Executor brief: 001-tiny — Tiny"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	js, _ := json.Marshal(b)
	for _, key := range []string{`"touches":[]`, `"deletes":[]`, `"forbids":[]`, `"verify":[]`, `"rules":[]`} {
		if !strings.Contains(string(js), key) {
			t.Errorf("json lacks %s: %s", key, js)
		}
	}
}
