package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

func ann(c finding.Class, file, msg string) Annotation {
	return Annotation{Finding: finding.Finding{Class: c, File: file, Message: msg}}
}

func TestGitHubEscaping(t *testing.T) {
	a := ghCommand{Level: "error", File: "dir/a,b:c%d.go", Line: 3, Col: 7, Title: "t: x, y",
		Message: "100% sure\r\nnext: line, more"}
	want := "::error file=dir/a%2Cb%3Ac%25d.go,line=3,col=7,title=t%3A x%2C y::100%25 sure%0D%0Anext: line, more"
	if got := a.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// No position and no properties.
	if got := (ghCommand{Level: "warning", Message: "m"}).String(); got != "::warning::m" {
		t.Errorf("got %s", got)
	}
	// A column without a line is dropped (GitHub needs the line).
	if got := (ghCommand{Level: "error", File: "f", Col: 4, Message: "m"}).String(); got != "::error file=f::m" {
		t.Errorf("got %s", got)
	}
}

func TestWriteGitHubAnnotationsCap(t *testing.T) {
	var anns []Annotation
	for i := 0; i < 13; i++ {
		anns = append(anns, ann(finding.ClassError, "", fmt.Sprintf("e%d", i)))
	}
	for i := 0; i < 4; i++ {
		anns = append(anns, ann(finding.ClassWarning, "", fmt.Sprintf("w%d", i)))
	}
	// Control characters are textsafe-escaped before the workflow escaping.
	anns = append(anns, ann(finding.ClassWarning, "x\x1b.go", "bidi \u202e here\nnext"))
	var b bytes.Buffer
	if err := WriteGitHubAnnotations(&b, anns); err != nil {
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
	_ = WriteGitHubAnnotations(&b, anns[:10])
	if strings.Contains(b.String(), "::notice") {
		t.Errorf("notice without omissions:\n%s", b.String())
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
		if err := WriteGitHubAnnotations(&b, []Annotation{{Finding: finding.Finding{Class: finding.ClassError, File: file, Line: 1, Message: msg}, Title: title}}); err != nil {
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

// TestGitHubRenderer: annotations first, then the text log without colour.
func TestGitHubRenderer(t *testing.T) {
	v := testView{text: "verdict", tone: ToneFail, res: Findings{Sets: []FindingSet{{Findings: []finding.Finding{
		{Rule: "unexpected_file", Class: finding.ClassWarning, File: "a.go", Message: "m"}}}}}}
	r, err := For(FormatGitHub, Options{Color: true})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.Render(Streams{Out: &b}, v); err != nil {
		t.Fatal(err)
	}
	if want := "::warning file=a.go,title=unexpected_file::m\nverdict\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestFindingsAnnotations: the GitHub form of the findings is located by Locate, like every
// other format's, titled by the rule or, for a result that is not a finding, by the command,
// and names the task when asked to.
func TestFindingsAnnotations(t *testing.T) {
	sets := testSets()
	sets[3].Findings = []finding.Finding{{Rule: RuleRefused, Class: finding.ClassError, File: sets[3].Spec, Message: sets[3].Message}}
	sets = append(sets, FindingSet{Findings: []finding.Finding{{Rule: "gate.unowned_change", Class: finding.ClassError, File: "c.go", Message: "not owned"}}})
	var b bytes.Buffer
	if err := WriteGitHubAnnotations(&b, Findings{Command: "mastermind gate", NameTasks: true, Sets: sets}.Annotations()); err != nil {
		t.Fatal(err)
	}
	want := `::error file=src/retry.go,title=executor_report_missing_changed_file::001-retry: changed since the baseline but not listed in files_modified: src/retry.go
::error file=.mastermind/tasks/001-retry/spec.md,title=changed_path_unrepresentable::001-retry: changed path is not valid UTF-8: "bad\xff.go"
::error file=.mastermind/tasks/001-retry/executor-report.md,line=12,col=5,title=schema.type::001-retry: verification[0].observed.exit_code must be an integer
::warning file=docs/a b%3Ac.md,title=unexpected_file::001-retry: changed outside the declared scope: docs/a b:c.md
::warning file=README.md,title=missing_expected_file::002-docs: declared in scope but unchanged since the baseline: <img src=x onerror=alert(1)> | **bold** ` + "`tick`" + `\u000Anext line
::error file=.mastermind/tasks/004-refused/spec.md,title=mastermind gate::004-refused: spec.md changed since pre-flight approval
::error file=c.go,title=gate.unowned_change::not owned
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
