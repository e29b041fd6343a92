package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// MarkdownView is a View with a Markdown job summary of its own, such as a gate over a range;
// other views get the summary of their finding sets. The summary is rendered from the command's
// own result, never from files in the repository (trust-model.md §5 step 5).
type MarkdownView interface {
	// WriteMarkdown writes the summary and reports true, or writes nothing and reports false
	// to have the summary of the view's finding sets instead.
	WriteMarkdown(w *Markdown) bool
}

// Markdown collects a job summary. Every text put in a cell or a paragraph goes through
// MarkdownText or MarkdownCode, so that nothing taken from a finding, a path or a task name can
// open a link, an HTML tag or a table cell.
type Markdown struct{ b strings.Builder }

// Heading writes "## text" for level 2 or "### text" for level 3, followed by a blank line.
func (m *Markdown) Heading(level int, text string) {
	fmt.Fprintf(&m.b, "%s %s\n\n", strings.Repeat("#", level), text)
}

// Para writes one paragraph of already-escaped text.
func (m *Markdown) Para(s string) { fmt.Fprintf(&m.b, "%s\n\n", s) }

// Table writes a table with header cells head and rows of already-escaped cells, then a blank
// line. An empty rows writes nothing.
func (m *Markdown) Table(head []string, rows [][]string) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(&m.b, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for _, r := range rows {
		fmt.Fprintf(&m.b, "| %s |\n", strings.Join(r, " | "))
	}
	m.b.WriteString("\n")
}

// MarkdownText escapes s as literal Markdown text on one line, for a paragraph or a table cell of
// a job summary, so an executor's text cannot add markup, links or images. What it escapes is
// listed in integrations.md §4.
func MarkdownText(s string) string {
	s = textsafe.Escape(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s))
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r < 0x80 && strings.ContainsRune("\\`*_[]<>|!~#@", r),
			i == 0 && strings.ContainsRune("-+=", r),
			r == ':' && strings.HasPrefix(s[i:], "://"),
			r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// MarkdownCode renders s as inline code on one line, "" for empty s. The fence is one backtick
// longer than the longest run inside, and '|' is escaped so a table cell stays one cell.
func MarkdownCode(s string) string {
	s = textsafe.Escape(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	s = strings.ReplaceAll(s, "|", `\|`)
	if s == "" {
		return ""
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// writeMarkdownView writes v's own job summary; false when v has none to give.
func writeMarkdownView(s Streams, mv MarkdownView) (bool, error) {
	var m Markdown
	if !mv.WriteMarkdown(&m) {
		return false, nil
	}
	_, err := io.WriteString(s.Out, m.b.String())
	return true, err
}

// MaxGateRows bounds the findings rows of a gate's job summary, as GitHub caps a step summary at
// 1 MiB; the rest is counted.
const MaxGateRows = 200

// GateSummary is the job summary of a gate over a range: the outcome, the range, what the branch
// brings for review, one row per task and the findings. Err, when set, is the error that stopped
// the whole gate.
type GateSummary struct {
	Err string
	// Outcome is passed, failed or error; Summary the gate's summary line.
	Outcome string
	Summary string
	// Upstream names the upstream of the local gate of a branch, "" for gate --base; Base, Head
	// and MergeBase are short commit names.
	Upstream              string
	Base, Head, MergeBase string
	Changed               int
	AddedTasks            []string
	ChangedSpecs          []string
	TouchedTasks          []string
	ControllerFiles       []string
	Accepted              []GateAccepted
	Tasks                 []GateRow
	// Findings are the gate's results; the set without a task holds the range findings.
	Findings Findings
}

// GateAccepted is a drift accepted on the branch, with the planner's reason.
type GateAccepted struct{ Task, Reason string }

// GateRow is one gated task: its status word, the tone of its icon, its counts and reason.
type GateRow struct {
	Task             string
	Status           string
	Tone             Tone
	Errors, Warnings int
	Reason           string
}

// Gate writes s as integrations.md §4 lays it out: the outcome, the range, the branch's contracts
// for review, the task table, at most MaxGateRows findings and the summary line.
func (m *Markdown) Gate(s GateSummary) {
	t, c := MarkdownText, MarkdownCode
	if s.Err != "" {
		m.Heading(2, "❌ mastermind gate: error")
		m.Para(t(s.Err))
		return
	}
	icon := TonePass.Icon()
	if s.Outcome != "passed" {
		icon = ToneFail.Icon()
	}
	if s.Upstream != "" {
		m.Heading(2, fmt.Sprintf("%s %s: %s", icon, t("mastermind gate"), s.Outcome))
		m.Para(fmt.Sprintf("Range %s..HEAD and the work tree (merge base of %s and HEAD): %d path(s) changed, %d task(s) gated from their controller records and pre-flight snapshots.",
			c(s.MergeBase), c(s.Upstream), s.Changed, len(s.Tasks)))
	} else {
		m.Heading(2, fmt.Sprintf("%s %s: %s", icon, t("mastermind gate --base"), s.Outcome))
		m.Para(fmt.Sprintf("Range %s..%s (merge base of %s and %s): %d path(s) changed, %d task(s) re-audited from committed content.",
			c(s.MergeBase), c(s.Head), c(s.Base), c(s.Head), s.Changed, len(s.Tasks)))
	}
	m.gateContracts(s)
	var rows [][]string
	for _, r := range s.Tasks {
		rows = append(rows, []string{c(r.Task), r.Tone.Icon() + " " + t(r.Status), fmt.Sprint(r.Errors), fmt.Sprint(r.Warnings), t(r.Reason)})
	}
	m.Table([]string{"Task", "Status", "Errors", "Warnings", "Reason"}, rows)
	frows, total := gateFindingRows(s.Findings)
	m.Table([]string{"", "Rule", "Task", "Location", "Message"}, frows)
	if total > len(frows) {
		m.Para(fmt.Sprintf("… and %d more finding(s); run %s locally for all of them.", total-len(frows), c("mastermind gate")))
	}
	m.Para(c(s.Summary))
}

// gateContracts writes what the branch brings for a reviewer: added tasks, rewritten specs,
// changed task folders and accepted drifts.
func (m *Markdown) gateContracts(s GateSummary) {
	if len(s.AddedTasks) > 0 {
		m.Para("Tasks added on this branch — their specs are contracts the branch brings itself; review them: " + codeList(s.AddedTasks) + ".")
	}
	if len(s.ChangedSpecs) > 0 {
		m.Para("Specs rewritten on this branch — contracts the base holds, changed by the branch; review them: " + codeList(s.ChangedSpecs) + ".")
	}
	if len(s.TouchedTasks) > 0 {
		m.Para("Task folders changed on this branch — review their records: " + codeList(s.TouchedTasks) + ".")
	}
	if len(s.ControllerFiles) > 0 {
		m.Para("Controller files outside the task folders changed on this branch — not audited; review them: " + codeList(s.ControllerFiles) + ".")
	}
	if len(s.Accepted) > 0 {
		as := make([]string, len(s.Accepted))
		for i, a := range s.Accepted {
			as[i] = a.Task + " (" + MarkdownText(a.Reason) + ")"
		}
		m.Para("Drifts accepted on this branch — the planner's decisions come with the branch; review them: " + strings.Join(as, ", ") + ".")
	}
}

// gateFindingRows are the findings table of a gate's summary, the set without a task first, at
// most MaxGateRows rows, and the number of findings: each at Locate's path, titled by its rule or,
// for a result that is not a finding, by fs.Command.
func gateFindingRows(fs Findings) (rows [][]string, total int) {
	idx := ruleIndex(KindRules())
	add := func(s FindingSet) {
		for _, f := range s.Findings {
			total++
			if len(rows) == MaxGateRows {
				continue
			}
			rule := f.Rule
			if _, ok := outcomeRules[f.Rule]; ok {
				rule = fs.Command
			}
			rows = append(rows, []string{ClassTone(f.Class).Icon(), MarkdownCode(rule), MarkdownCode(s.Task),
				MarkdownCode(s.Locate(f, idx).Path), MarkdownText(f.Text())})
		}
	}
	for _, s := range fs.Sets {
		if s.Task == "" {
			add(s)
		}
	}
	for _, s := range fs.Sets {
		if s.Task != "" {
			add(s)
		}
	}
	return rows, total
}

// codeList is names as Markdown code spans, comma-separated.
func codeList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = MarkdownCode(n)
	}
	return strings.Join(out, ", ")
}
