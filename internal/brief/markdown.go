package brief

import (
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// ReportRules are the report rules every brief states: the transport and consistency rules of
// executor-report-v1.md §1.4 and §4.1 an executor most often breaks, one line each.
var ReportRules = []string{
	"The report is executor-report.md beside the spec, with exactly one <!-- mastermind:report-begin --> line, one ```yaml fence and one <!-- mastermind:report-end --> line, each at column 1 and outside any list or quote.",
	"Every top-level key is present: schema_version, spec, status, phases, files_modified, claims, defects, verifications (an empty list is written []); no null, tag, anchor or duplicate key.",
	"files_modified lists exactly the files you changed, created or deleted since the baseline, repository-relative (no ./, .., absolute paths, nor mastermind's own records such as this report or state.json; any other file you put under .mastermind/ is listed like the rest).",
	"status complete means: no defects, every phase done, no verification with result fail. Otherwise use partial or failed and describe each defect (kind, phase, details, remediation_hint).",
	"verifications lists only commands you actually ran, each with its real result and, where you have them, observed.exit_code and observed.tests_run.",
}

// Markdown renders the brief for a prompt. Text taken from the spec is included as written,
// with control and bidi characters escaped.
func (b Brief) Markdown() string {
	var s strings.Builder
	esc := textsafe.Escape
	title := b.Title
	if title == "" {
		title = b.Task
	}
	fmt.Fprintf(&s, "# Executor brief: %s — %s\n\n", esc(b.Task), esc(title))
	fmt.Fprintf(&s, "Spec: `%s` (sha256 %s), mode %s, risk %s.\n", esc(b.Spec), b.SpecHash, esc(b.Mode), esc(b.Risk))
	s.WriteString("mastermind audits your work when you finish: it compares your report with what git shows changed since the task started and with the scope below. It never trusts the report's word.\n")

	s.WriteString("\n## Goals\n\n")
	if b.Goals == "" {
		s.WriteString("(The spec has no Goals section.)\n")
	} else {
		s.WriteString(escLines(b.Goals))
		s.WriteString("\n")
	}

	s.WriteString("\n## Scope\n\n")
	if len(b.Scope.Declared) == 0 {
		s.WriteString("The spec declares no files: every file you change is outside the scope (a warning that makes the verdict drift).\n")
	} else {
		s.WriteString("Change only these files; any other changed path is outside the scope.\n\n")
		writeList(&s, "Edit (touches)", b.Scope.Touches)
		writeList(&s, "Create (creates)", b.Scope.Creates)
		writeList(&s, "Delete (deletes)", b.Scope.Deletes)
		writeList(&s, "Update the docs (expected_docs)", b.Scope.ExpectedDocs)
	}
	if len(b.Scope.Forbids) > 0 {
		s.WriteString("\nNever change a path matching these patterns (forbids), even inside the scope:\n\n")
		writeList(&s, "Forbidden", b.Scope.Forbids)
	}

	s.WriteString("\n## Verification\n\n")
	if len(b.Verify) == 0 {
		s.WriteString("The spec declares no verify command. Report any command you run in verifications.\n")
	} else {
		s.WriteString("Run each command yourself and report it in verifications with its real result. mastermind runs the commands marked (run by mastermind) itself at post-flight and trusts only what it sees:\n\n")
		for _, v := range b.Verify {
			mark := ""
			if v.RunBy == "mastermind" {
				mark = " (run by mastermind)"
			}
			fmt.Fprintf(&s, "- %s%s\n", code(v.Cmd), mark)
		}
	}

	s.WriteString("\n## Report\n\n")
	fmt.Fprintf(&s, "Write `%s` when you finish. Start from this template and fill in every list:\n\n", esc(b.Report.Path))
	fence := strings.Repeat("`", max(4, longestRun(b.Report.Template, '`')+1))
	fmt.Fprintf(&s, "%smarkdown\n%s%s\n", fence, escLines(b.Report.Template), fence)

	s.WriteString("\n## What makes the post-flight pass\n\n")
	for _, r := range ReportRules {
		fmt.Fprintf(&s, "- %s\n", r)
	}
	s.WriteString("\nThe audit's findings (an error makes the verdict broken, a warning makes it drift):\n\n")
	for _, r := range b.Rules {
		class := "error"
		if r.Class == finding.ClassWarning {
			class = "warning"
		}
		fmt.Fprintf(&s, "- `%s` (%s): %s\n", r.ID, class, esc(r.Text))
	}
	return s.String()
}

// escLines escapes each line of s (textsafe), keeping the line breaks.
func escLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = textsafe.Escape(l)
	}
	return strings.Join(lines, "\n")
}

func writeList(s *strings.Builder, label string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(s, "- %s: ", label)
	for i, it := range items {
		if i > 0 {
			s.WriteString(", ")
		}
		s.WriteString(code(it))
	}
	s.WriteString("\n")
}

// code renders s as inline code whose fence is longer than any backtick run inside.
func code(s string) string {
	s = textsafe.Escape(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

func longestRun(s string, c rune) int {
	best, run := 0, 0
	for _, r := range s {
		if r == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
