package cli

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
)

// TestDecideColor is the decision table of conventions.md practice 5.
func TestDecideColor(t *testing.T) {
	tests := []struct {
		mode    colorMode
		tty     bool
		noColor string
		term    string
		want    bool
	}{
		{colorAuto, true, "", "xterm-256color", true},
		{colorAuto, true, "", "", true},
		{colorAuto, true, "1", "xterm-256color", false},
		{colorAuto, true, "", "dumb", false},
		{colorAuto, true, "1", "dumb", false},
		{colorAuto, false, "", "xterm-256color", false},
		{colorAuto, false, "1", "dumb", false},
		{colorAlways, false, "", "xterm-256color", true},
		{colorAlways, false, "1", "dumb", true},
		{colorAlways, true, "1", "xterm-256color", true},
		{colorNever, true, "", "xterm-256color", false},
		{colorNever, false, "", "", false},
	}
	for _, tt := range tests {
		env := map[string]string{"NO_COLOR": tt.noColor, "TERM": tt.term}
		got := decideColor(tt.mode, tt.tty, func(k string) string { return env[k] })
		if got != tt.want {
			t.Errorf("decideColor(%s, tty=%v, NO_COLOR=%q, TERM=%q) = %v, want %v", tt.mode, tt.tty, tt.noColor, tt.term, got, tt.want)
		}
	}
}

// TestColorFlag runs the root command: --color is accepted before and after any command, decides
// ColorEnabled before the command runs, and an unknown value is a usage error.
func TestColorFlag(t *testing.T) {
	tests := []struct {
		args    string
		tty     bool
		want    bool
		wantErr string
	}{
		{args: "version", tty: true, want: true},
		{args: "version", tty: false, want: false},
		{args: "version --color auto", tty: true, want: true},
		{args: "version --color always", tty: false, want: true},
		{args: "--color always version", tty: false, want: true},
		{args: "version --color=never", tty: true, want: false},
		{args: "schema --color never", tty: true, want: false},
		{args: "version --color bogus", wantErr: `invalid argument "bogus" for "--color" flag: must be auto, always or never`},
		{args: "version --color ALWAYS", wantErr: "must be auto, always or never"},
		{args: "--color= version", wantErr: "must be auto, always or never"},
	}
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm")
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			io := &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}, IsStdoutTTY: tt.tty}
			root := NewRootCmd(io)
			root.SetArgs(strings.Fields(tt.args))
			err := root.Execute()
			if tt.wantErr != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if io.ColorEnabled != tt.want {
				t.Fatalf("ColorEnabled = %v, want %v", io.ColorEnabled, tt.want)
			}
		})
	}
}

// TestRunTaskTextColor: the colour of a run-task line comes from the outcome — the audit
// summary's verdict line by the verdict, the refusal red, pre-flight warnings yellow — and
// indented lines stay plain; with colour off the text is unchanged.
func TestRunTaskTextColor(t *testing.T) {
	task := postflight.Task{Name: "001-x", Spec: "s", Dir: "d"}
	driftNext := "next: planner: review d/audit.md — accept the drift (mastermind accept s --reason TEXT), have the executor fix it and run: mastermind run-task s --post-only, or revise the spec and run: mastermind run-task s --pre-only\n"
	brokenNext := "next: executor: fix the work or d/executor-report.md as d/audit.md lists, then run: mastermind run-task s --post-only (or the planner revises the spec and runs: mastermind run-task s --pre-only)\n"
	refusedNext := "  next: planner: read d/audit.md; fix the cause above, then run: mastermind run-task s --post-only\n"
	cases := []struct {
		o     postflight.Outcome
		plain string
		color string
	}{
		{postflight.Outcome{Outcome: postflight.OutcomePostDrift, Verdict: postflight.VerdictDrift, Task: task,
			AuditSummary: "⚠️ Drift — s\n  ⚠️ unexpected_file: x\n", Artifacts: postflight.Artifacts{Audit: "a.md"}},
			"⚠️ Drift — s\n  ⚠️ unexpected_file: x\naudit: a.md\n" + driftNext,
			"\x1b[33m⚠️ Drift — s\x1b[0m\n  ⚠️ unexpected_file: x\naudit: a.md\n" + driftNext},
		// The colour follows the verdict, not the icon the text starts with.
		{postflight.Outcome{Outcome: postflight.OutcomePostBroken, Verdict: postflight.VerdictBroken, Task: task,
			AuditSummary: "✅ text\n", Artifacts: postflight.Artifacts{Audit: "a.md"}},
			"✅ text\naudit: a.md\n" + brokenNext, "\x1b[31m✅ text\x1b[0m\naudit: a.md\n" + brokenNext},
		{postflight.Outcome{Outcome: postflight.OutcomePostRefused, Message: "spec changed", Task: task},
			"❌ spec changed\n" + refusedNext, "\x1b[31m❌ spec changed\x1b[0m\n" + refusedNext},
		{postflight.Outcome{Outcome: postflight.OutcomePreReady, Task: task, Budget: 3,
			State:    &postflight.State{BaselineRef: "b", Iteration: 1},
			Findings: []finding.Finding{{Rule: "r", Class: finding.ClassWarning, Message: "w"}},
			Next:     postflight.Next{Edit: "rep.md", Run: "go"}},
			"⚠️ w [r]\n✅ pre-flight approved — s\n  baseline: b\n  iteration: 1 of 3\n  next: implement the task, write rep.md,\n        then run: go\n" + briefPointer("s"),
			"\x1b[33m⚠️ w [r]\x1b[0m\n\x1b[32m✅ pre-flight approved — s\x1b[0m\n  baseline: b\n  iteration: 1 of 3\n  next: implement the task, write rep.md,\n        then run: go\n" + briefPointer("s")},
	}
	for _, c := range cases {
		for _, color := range []bool{false, true} {
			tx := &render.Text{Color: color}
			runTaskView{o: &c.o}.WriteText(tx)
			want := c.plain
			if color {
				want = c.color
			}
			if tx.String() != want {
				t.Errorf("%s color=%v:\n got  %q\n want %q", c.o.Outcome, color, tx.String(), want)
			}
		}
	}
}

func TestWriteGateTextColor(t *testing.T) {
	res := &postflight.GateResult{Tasks: []postflight.GateTask{
		{Task: postflight.Task{Name: "001-a"}, Status: postflight.GateHeld, Passed: true},
		{Task: postflight.Task{Name: "002-b"}, Status: postflight.GateDrift, Passed: true, Reason: "r"},
		{Task: postflight.Task{Name: "003-c"}, Status: postflight.GateBroken, Reason: "r"},
	}}
	plain := "✅ 001-a: held\n⚠️ 002-b: drift — r\n❌ 003-c: broken — r\ngate: failed\n"
	colored := "\x1b[32m✅ 001-a: held\x1b[0m\n\x1b[33m⚠️ 002-b: drift — r\x1b[0m\n\x1b[31m❌ 003-c: broken — r\x1b[0m\n\x1b[31mgate: failed\x1b[0m\n"
	for _, tt := range []struct {
		color bool
		want  string
	}{{false, plain}, {true, colored}} {
		tx := &render.Text{Color: tt.color}
		gateView{res: res, summary: "gate: failed", exit: gateExitCode(res)}.WriteText(tx)
		if tx.String() != tt.want {
			t.Errorf("color=%v: got %q, want %q", tt.color, tx.String(), tt.want)
		}
	}
	tx := &render.Text{Color: true}
	gateView{res: res, summary: "gate: passed", exit: ExitOK}.WriteText(tx)
	if !strings.HasSuffix(tx.String(), "\n\x1b[32mgate: passed\x1b[0m\n") {
		t.Errorf("a passing summary is not green: %q", tx.String())
	}
}

var sgrPattern = regexp.MustCompile("\x1b\\[[0-9]*m")

// TestWriteStatusTextColor: with colour on, the STATUS and VERDICT cells are coloured and, with
// the codes removed, the table is byte-identical to the uncoloured one (the columns stay aligned).
func TestWriteStatusTextColor(t *testing.T) {
	str := func(s string) *string { return &s }
	rows := []postflight.StatusEntry{
		{Task: "001-held", Status: postflight.StatusHistoryReviewRequired, NextStep: str("review_history"), Verdict: str("held")},
		{Task: "002-drift", Status: postflight.StatusDrift, NextStep: str("planner_review"), Verdict: str("drift")},
		{Task: "003-broken", Status: postflight.StatusBroken, NextStep: str("planner_review"), Verdict: str("broken")},
		{Task: "004-new", Status: postflight.StatusNotStarted},
		{Task: "005-old", Status: postflight.StatusLearned, NextStep: str("close"), Verdict: str("held")},
		{Task: "006-bad", Status: postflight.StatusCorrupt, Error: str("unreadable")},
	}
	draw := func(color bool) string {
		tx := &render.Text{Color: color}
		writeStatusText(tx, rows)
		return tx.String()
	}
	plain, colored := draw(false), draw(true)
	if sgrPattern.MatchString(plain) {
		t.Fatalf("colour off wrote escape codes:\n%q", plain)
	}
	if got := sgrPattern.ReplaceAllString(colored, ""); got != plain {
		t.Fatalf("without its codes the coloured table differs:\n%s\nwant\n%s", got, plain)
	}
	for _, want := range []string{
		"\x1b[39mSTATUS\x1b[0m", "\x1b[39mVERDICT\x1b[0m",
		"\x1b[39mhistory_review_required\x1b[0m", "\x1b[32mheld\x1b[0m",
		"\x1b[33mdrift\x1b[0m", "\x1b[31mbroken\x1b[0m", "\x1b[32mlearned\x1b[0m", "\x1b[31mcorrupt\x1b[0m",
		"\n006-bad: unreadable\n",
	} {
		if !strings.Contains(colored, want) {
			t.Errorf("coloured table lacks %q:\n%q", want, colored)
		}
	}
}
