package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// MaxMarkdownFindings caps the findings listed per task in the job summary; GitHub limits a
// step summary to 1 MiB, and a longer list belongs in audit.md.
const MaxMarkdownFindings = 100

type markdownRenderer struct{}

func (markdownRenderer) Render(s Streams, v View) error {
	if mv, ok := v.(MarkdownView); ok {
		if done, err := writeMarkdownView(s, mv); done || err != nil {
			return err
		}
	}
	fs := v.Findings()
	title := fs.Title
	if title == "" {
		title = "mastermind"
	}
	if err := WriteMarkdown(s.Out, title, KindRules(), fs.Sets); err != nil {
		return err
	}
	if fs.Footer != "" {
		_, err := io.WriteString(s.Out, "\n"+MarkdownCode(fs.Footer)+"\n")
		return err
	}
	return nil
}

// WriteMarkdown writes a job summary for $GITHUB_STEP_SUMMARY as integrations.md §4 lays it out:
// one table row per task, then each task's findings, at most MaxMarkdownFindings per task. Every
// text taken from a finding or a task is escaped so it renders as the literal text.
func WriteMarkdown(w io.Writer, title string, rules []RuleMeta, sets []FindingSet) error {
	idx := ruleIndex(rules)
	var b strings.Builder
	worst := ""
	for _, s := range sets {
		worst = worse(worst, s.Verdict)
	}
	if len(sets) == 0 {
		fmt.Fprintf(&b, "## %s: no tasks\n\nNo task was audited.\n", MarkdownText(title))
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "## %s: %s\n\n", MarkdownText(title), verdictLabel(worst))
	b.WriteString("| Task | Verdict | Errors | Warnings |\n|---|---|---:|---:|\n")
	for _, s := range sets {
		e, wn := finding.Count(s.Findings)
		fmt.Fprintf(&b, "| %s | %s | %d | %d |\n", MarkdownCode(s.Task), verdictLabel(s.Verdict), e, wn)
	}
	for _, s := range sets {
		if len(s.Findings) == 0 && s.Message == "" {
			continue
		}
		fmt.Fprintf(&b, "\n### %s — %s\n\n", MarkdownCode(s.Task), verdictLabel(s.Verdict))
		if s.Message != "" {
			fmt.Fprintf(&b, "%s\n\n", MarkdownText(s.Message))
		}
		if len(s.Findings) == 0 {
			continue
		}
		b.WriteString("| | Rule | Location | Message |\n|---|---|---|---|\n")
		for i, f := range s.Findings {
			if i == MaxMarkdownFindings {
				fmt.Fprintf(&b, "\n… and %d more findings; see %s.\n", len(s.Findings)-MaxMarkdownFindings, MarkdownCode(taskAudit(s)))
				break
			}
			loc := s.Locate(f, idx)
			where := loc.Path
			if loc.Line > 0 {
				where += fmt.Sprintf(":%d:%d", loc.Line, loc.Column)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", ClassTone(f.Class).Icon(), MarkdownCode(f.Rule), MarkdownCode(where), MarkdownText(f.Text()))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func taskAudit(s FindingSet) string {
	if i := strings.LastIndex(s.Spec, "/"); i >= 0 {
		return s.Spec[:i] + "/audit.md"
	}
	return "audit.md"
}

// verdictRank orders verdicts from passing to worst for the summary heading.
var verdictRank = map[string]int{"": 0, "passed": 1, "held": 1, "accepted": 1, "approved": 1, "valid": 1, "learned": 1,
	"drift": 2, "broken": 3, "refused": 3, "invalid": 3, "not_started": 3, "error": 4}

func worse(a, b string) string {
	ra, oka := verdictRank[a]
	rb, okb := verdictRank[b]
	if !oka {
		ra = 3
	}
	if !okb {
		rb = 3
	}
	if rb > ra {
		return b
	}
	return a
}

func verdictLabel(v string) string {
	switch v {
	case "held", "passed", "accepted", "approved", "valid", "learned":
		return TonePass.Icon() + " " + v
	case "drift":
		return ToneWarn.Icon() + " drift"
	case "":
		return "—"
	}
	return ToneFail.Icon() + " " + MarkdownText(strings.ReplaceAll(v, "_", " "))
}
