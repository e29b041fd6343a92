package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/spf13/cobra"
)

func TestGitHubEscaping(t *testing.T) {
	a := ghAnnotation{Level: "error", File: "dir/a,b:c%d.go", Line: 3, Col: 7, Title: "t: x, y",
		Message: "100% sure\r\nnext: line, more"}
	want := "::error file=dir/a%2Cb%3Ac%25d.go,line=3,col=7,title=t%3A x%2C y::100%25 sure%0D%0Anext: line, more"
	if got := a.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// No position and no properties.
	if got := (ghAnnotation{Level: "warning", Message: "m"}).String(); got != "::warning::m" {
		t.Errorf("got %s", got)
	}
	// A column without a line is dropped (GitHub needs the line).
	if got := (ghAnnotation{Level: "error", File: "f", Col: 4, Message: "m"}).String(); got != "::error file=f::m" {
		t.Errorf("got %s", got)
	}
}

func TestWriteGitHubAnnotationsCap(t *testing.T) {
	var anns []ghAnnotation
	for i := 0; i < 13; i++ {
		anns = append(anns, ghAnnotation{Level: "error", Message: fmt.Sprintf("e%d", i)})
	}
	for i := 0; i < 4; i++ {
		anns = append(anns, ghAnnotation{Level: "warning", Message: fmt.Sprintf("w%d", i)})
	}
	// Control characters are textsafe-escaped before the workflow escaping.
	anns = append(anns, ghAnnotation{Level: "warning", File: "x\x1b.go", Message: "bidi \u202e here\nnext"})
	var b bytes.Buffer
	if err := writeGitHubAnnotations(&b, anns); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 16 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	if lines[9] != "::error::e9" || lines[10] != "::warning::w0" {
		t.Errorf("order: %q %q", lines[9], lines[10])
	}
	if want := `::warning file=x\u001B.go::bidi \u202E here\u000Anext`; lines[14] != want {
		t.Errorf("escaped line = %s, want %s", lines[14], want)
	}
	want := "::notice title=mastermind::3 error and 0 warning annotations omitted (GitHub shows at most 10 of each per step); see the full log"
	if lines[15] != want {
		t.Errorf("notice = %s", lines[15])
	}
	// Under the cap: no notice.
	b.Reset()
	_ = writeGitHubAnnotations(&b, anns[:10])
	if strings.Contains(b.String(), "::notice") {
		t.Errorf("notice without omissions:\n%s", b.String())
	}
}

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
		a := auditAnnotation(c.f, task, "p: ")
		if a.File != c.file || a.Level != c.lvl || a.Title != c.f.Rule || a.Message != "p: m" {
			t.Errorf("%s: %+v", c.f.Rule, a)
		}
	}
}

// FuzzGitHubAnnotation: whatever the input, one annotation is one line, and property values
// never contain a raw ',' or ':' that would end or split a property.
func FuzzGitHubAnnotation(f *testing.F) {
	f.Add("a,b:c%.go", "title: x", "msg\r\nline %")
	f.Add("", "", "")
	f.Add("\u202e", "\x00", "\xff")
	f.Fuzz(func(t *testing.T, file, title, msg string) {
		var b bytes.Buffer
		if err := writeGitHubAnnotations(&b, []ghAnnotation{{Level: "error", File: file, Line: 1, Title: title, Message: msg}}); err != nil {
			t.Fatal(err)
		}
		out := strings.TrimSuffix(b.String(), "\n")
		if strings.ContainsAny(out, "\r\n") {
			t.Fatalf("multi-line annotation: %q", out)
		}
		head, _, ok := strings.Cut(strings.TrimPrefix(out, "::error "), "::")
		if !ok {
			t.Fatalf("no message separator: %q", out)
		}
		for _, p := range strings.Split(head, ",") {
			k, v, _ := strings.Cut(p, "=")
			if k != "file" && k != "line" && k != "title" {
				t.Fatalf("property %q split by an unescaped separator in %q", p, out)
			}
			if strings.Contains(v, ":") {
				t.Fatalf("raw ':' in property %q", p)
			}
		}
	})
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
		{args: "", want: GateOptions{Format: "text", FailOn: "broken"}},
		{args: "--since main --root /r --format github --fail-on drift --record",
			want: GateOptions{Since: "main", Root: "/r", Format: "github", FailOn: "drift", Record: true}},
		{args: "--format json", want: GateOptions{Format: "json", FailOn: "broken"}},
		{args: "--json", want: GateOptions{Format: "json", FailOn: "broken", JSON: true}},
		{args: "--format sarif", want: GateOptions{Format: "sarif", FailOn: "broken"}},
		{args: "--format markdown --fail-on drift", want: GateOptions{Format: "markdown", FailOn: "drift"}},
		{args: "--json --format text", wantErr: "cannot be used together"},
		{args: "--format yaml", wantErr: `--format must be text, json, github, sarif, rdjson or markdown, got "yaml"`},
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
	cmd.SetArgs(strings.Fields(args))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	return cmd.Execute()
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
