package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/golden"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
)

// gateTaskFor is a gated task of the markdown golden.
func gateTaskFor(name string, status postflight.GateStatus, passed bool, reason string) postflight.GateTask {
	dir := postflight.TasksDir + "/" + name
	return postflight.GateTask{Task: postflight.Task{Root: "/nonexistent", Name: name, Dir: dir, Spec: dir + "/spec.md"},
		Status: status, Passed: passed, Reason: reason}
}

// The job summary of a gate over a range, for gate --base and for the local gate of a branch:
// every kind of row, task names taken from the rows themselves (a task name with ": " in the
// finding message stays whole), the range findings first, and the row cap.
func TestGateMarkdownGolden(t *testing.T) {
	broken := gateTaskFor("001-a", postflight.GateBroken, false, "executor_report_missing_changed_file: x")
	broken.Verdict, broken.Counts = postflight.VerdictBroken, &postflight.Counts{Errors: 1, Warnings: 1}
	broken.Findings = []finding.Finding{
		{Rule: finding.KindReportMissingChangedFile, Class: finding.ClassError, Message: "not listed: a: b.go",
			Fields: []finding.Field{{Key: "file", Value: "a: b.go"}}},
		{Rule: finding.KindUnexpectedFile, Class: finding.ClassWarning, Fields: []finding.Field{{Key: "file", Value: "gen/x.go"}}},
	}
	rejected := gateTaskFor("002-rejected", postflight.GateBroken, false, "executor report rejected")
	rejected.Counts = &postflight.Counts{Errors: 2}
	rejected.Findings = []finding.Finding{{Rule: finding.KindExecutorReportRejected, Class: finding.ClassError, Message: "rejected"}}
	rejected.ReportViolations = []finding.Finding{{Rule: "schema.enum", Class: finding.ClassError, File: postflight.TasksDir + "/002-rejected/executor-report.md",
		Line: 4, Column: 9, Message: "status must be one of complete, partial, failed"}}
	accepted := gateTaskFor("003-accepted", postflight.GateAccepted, true, "drift accepted by the planner: generated | file")
	accepted.Counts = &postflight.Counts{Warnings: 1}
	tasks := []postflight.GateTask{broken, rejected, accepted,
		gateTaskFor("004-learned", postflight.GateLearned, true, ""),
		gateTaskFor("005-unbacked", postflight.GateLearned, false, "history review does not back the closure"),
		gateTaskFor("006-refused", postflight.GateRefused, false, "spec changed since approval; next: mastermind run-task x --pre-only"),
		gateTaskFor("007-new", postflight.GateNotStarted, false, "no state.json: pre-flight never ran"),
		gateTaskFor("008-error", postflight.GateError, false, "corrupt state"),
		gateTaskFor("held: wip", postflight.GateError, false, "not a task folder"),
	}
	tasks[7].Err = errors.New("corrupt state")
	tasks[8].Err = &postflight.NotTaskFolderError{}
	rangeFindings := []finding.Finding{
		{Rule: postflight.KindUnownedChange, Class: finding.ClassError, Message: "c.go changed in the range but no task owns it",
			Fields: []finding.Field{{Key: "file", Value: "c.go"}}},
		{Rule: postflight.KindClosedTaskChanged, Class: finding.ClassError, Message: "a closed task's records changed",
			Fields: []finding.Field{{Key: "task", Value: "004-learned"}}},
	}
	info := postflight.RangeInfo{Base: strings.Repeat("b", 40), Head: strings.Repeat("c", 40), MergeBase: strings.Repeat("a", 40), Changed: 7,
		AddedTasks: []string{"007-new"}, ChangedSpecs: []string{"006-refused"}, TouchedTasks: []string{"006-refused", "007-new"},
		Accepted: []postflight.AcceptedTask{{Task: "003-accepted", Reason: "generated | file"}}}
	local := info
	local.Upstream, local.WorkTree = "origin/main", true
	many := gateTaskFor("009-many", postflight.GateDrift, true, "unexpected_file: gen/0.go (+204 more)")
	for i := range 205 {
		many.Findings = append(many.Findings, finding.PathFinding(finding.KindUnexpectedFile, []finding.Field{{Key: "file", Value: fmt.Sprintf("gen/%d.go", i)}}))
	}
	many.Counts = &postflight.Counts{Warnings: 205}
	for name, c := range map[string]struct {
		res  *postflight.GateResult
		exit int
		err  string
	}{
		"base":  {&postflight.GateResult{Tasks: tasks, Range: &info, Findings: rangeFindings}, ExitNotPassed, ""},
		"local": {&postflight.GateResult{Tasks: tasks[2:4], Range: &local}, ExitOK, ""},
		"cap":   {&postflight.GateResult{Tasks: []postflight.GateTask{many}, Range: &info, Findings: rangeFindings[:1]}, ExitNotPassed, ""},
		"error": {&postflight.GateResult{}, ExitOperational, "git failed: bad | object"},
	} {
		opts := &GateOptions{FailOn: "broken", Format: render.FormatMarkdown}
		v := gateView{res: c.res, opts: opts, exit: c.exit, err: c.err}
		if c.err == "" {
			v.summary = gateSummary(c.res, opts, c.exit)
		}
		r, err := render.For(render.FormatMarkdown, render.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := r.Render(render.Streams{Out: &out, Err: &out}, v); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "testdata/golden/gate-markdown-"+name+".md", out.Bytes())
	}
}
