package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/spf13/cobra"
)

// TestAuditAnnotationFiles: a gate's audit findings are annotated on the file they name, on the
// report for a report-side kind, otherwise on the spec, their messages naming the task.
func TestAuditAnnotationFiles(t *testing.T) {
	task := postflight.Task{Name: "001-x", Dir: ".mastermind/tasks/001-x", Spec: ".mastermind/tasks/001-x/spec.md"}
	mk := func(kind string, class finding.Class, kv ...string) finding.Finding {
		f := finding.Finding{Rule: kind, Class: class, Message: "m"}
		for i := 0; i+1 < len(kv); i += 2 {
			f.Fields = append(f.Fields, finding.Field{Key: kv[i], Value: kv[i+1]})
		}
		return f
	}
	cases := []struct {
		f         finding.Finding
		file, lvl string
	}{
		{mk("unexpected_file", finding.ClassWarning, "file", "src/a.go"), "src/a.go", "warning"},
		{mk("verification_requirement_unmet", finding.ClassError, "cmd", "go test", "reason", "missing_result"), task.Spec, "error"},
		{mk("observed_zero_tests", finding.ClassError, "cmd", "go test"), task.ReportRel(), "error"},
		{mk("changed_path_unrepresentable", finding.ClassError, "file", `\xff`), task.Spec, "error"},
		{mk("changed_set_degraded", finding.ClassWarning, "reason", "git_unavailable"), task.Spec, "warning"},
	}
	for _, c := range cases {
		v := gateView{res: &postflight.GateResult{Tasks: []postflight.GateTask{{Task: task, Status: postflight.GateBroken, Findings: []finding.Finding{c.f}}}}}
		anns := v.Findings().Annotations()
		if len(anns) != 1 {
			t.Fatalf("%s: %d annotations", c.f.Rule, len(anns))
		}
		if a := anns[0]; a.File != c.file || string(a.Class) != c.lvl || a.TitleOrRule() != c.f.Rule || a.Message != "001-x: m" {
			t.Errorf("%s: %+v", c.f.Rule, a)
		}
	}
}

// TestFormatFlags parses --format/--json for gate, run-task and report validate without running.
func TestFormatFlags(t *testing.T) {
	newIO := func() *IOStreams {
		return &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
	}
	gateCases := []struct {
		args    string
		want    GateOptions
		wantErr string
	}{
		{args: "", want: GateOptions{Format: "text", FailOn: "broken", Timeout: DefaultTimeout}},
		{args: "--since main --root /r --format github --fail-on drift --record",
			want: GateOptions{Since: "main", Root: "/r", Format: "github", FailOn: "drift", Record: true, Timeout: DefaultTimeout}},
		{args: "--format json", want: GateOptions{Format: "json", FailOn: "broken", Timeout: DefaultTimeout}},
		{args: "--json", want: GateOptions{Format: "json", FailOn: "broken", JSON: true, Timeout: DefaultTimeout}},
		{args: "--format sarif", want: GateOptions{Format: "sarif", FailOn: "broken", Timeout: DefaultTimeout}},
		{args: "--format markdown --fail-on drift", want: GateOptions{Format: "markdown", FailOn: "drift", Timeout: DefaultTimeout}},
		{args: "--json --format text", wantErr: "cannot be used together"},
		{args: "--format yaml", wantErr: `--format must be text, json, github, sarif, rdjson or markdown, got "yaml"`},
		{args: "--format json --timeout 90s", want: GateOptions{Format: "json", FailOn: "broken", Timeout: 90 * time.Second}},
		{args: "--fail-on warning", wantErr: "--fail-on must be broken or drift"},
		{args: "--since=", wantErr: "--since needs a revision"},
		{args: "extra", wantErr: "takes no arguments"},
	}
	for _, tt := range gateCases {
		t.Run("gate "+tt.args, func(t *testing.T) {
			var got *GateOptions
			cmd := NewCmdGate(newIO(), func(o *GateOptions) error { got = o; return nil })
			err := execCmd(cmd, tt.args)
			if checkUsage(t, err, tt.wantErr) {
				return
			}
			if d := cmp.Diff(tt.want, *got, cmpopts.IgnoreFields(GateOptions{}, "IO")); d != "" {
				t.Fatal(d)
			}
		})
	}
	const spec = ".mastermind/tasks/001-x/spec.md"
	rtCases := []struct {
		args         string
		format       string
		json         bool
		wantErr      string
		reportFormat bool
	}{
		{args: spec + " --format json", format: "json", json: true},
		{args: spec + " --format github", format: "github"},
		{args: spec + " --format text", format: "text"},
		{args: spec + " --format sarif", format: "sarif"},
		{args: spec + " --format rdjson", format: "rdjson"},
		{args: spec + " --format markdown", format: "markdown"},
		{args: spec + " --json", json: true},
		{args: spec + " --json --format json", wantErr: "cannot be used together"},
		{args: spec + " --format yaml", wantErr: "--format must be text, json, github, sarif, rdjson or markdown"},
	}
	for _, tt := range rtCases {
		t.Run("run-task "+tt.args, func(t *testing.T) {
			var got *RunTaskOptions
			err := execCmd(NewCmdRunTask(newIO(), func(o *RunTaskOptions) error { got = o; return nil }), tt.args)
			if checkUsage(t, err, tt.wantErr) {
				return
			}
			if got.Format != tt.format || got.JSON != tt.json {
				t.Fatalf("format %q json %v, want %q %v", got.Format, got.JSON, tt.format, tt.json)
			}
		})
		args := strings.Replace(tt.args, spec, "r.md", 1)
		t.Run("report validate "+args, func(t *testing.T) {
			var got *ReportValidateOptions
			err := execCmd(NewCmdReportValidate(newIO(), func(o *ReportValidateOptions) error { got = o; return nil }), args)
			if checkUsage(t, err, tt.wantErr) {
				return
			}
			if got.Format != tt.format || got.JSON != tt.json {
				t.Fatalf("format %q json %v, want %q %v", got.Format, got.JSON, tt.format, tt.json)
			}
		})
	}
}

func execCmd(cmd *cobra.Command, args string) error {
	return execArgs(cmd, strings.Fields(args))
}

// execArgs runs cmd on args with discarded output. Outside the root command a flag error is
// cobra's own unless the test sets the root's flag error function (usageFlagError).
func execArgs(cmd *cobra.Command, args []string) error {
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	return cmd.Execute()
}

// usageFlagError is the root command's flag error function: a flag error is a *UsageError.
func usageFlagError(_ *cobra.Command, err error) error { return &UsageError{Msg: err.Error()} }

// testIO is a command's streams with empty stdin and buffered output.
func testIO() *IOStreams {
	return &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
}

// checkUsage fails unless err matches wantErr (a usage error containing it, or nil when
// wantErr is empty); it returns true when an error was expected.
func checkUsage(t *testing.T, err error, wantErr string) bool {
	t.Helper()
	if wantErr != "" {
		var ue *UsageError
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want usage error containing %q", err, wantErr)
		}
		return true
	}
	if err != nil {
		t.Fatal(err)
	}
	return false
}
