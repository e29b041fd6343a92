package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/report"
)

// projectionTask is a task of the projection tests, its files absent (no columns are read).
func projectionTask(name string) postflight.Task {
	dir := postflight.TasksDir + "/" + name
	return postflight.Task{Root: "/nonexistent", Name: name, Dir: dir, Spec: dir + "/spec.md"}
}

func pf(rule string, class finding.Class, msg string, kv ...string) finding.Finding {
	f := finding.Finding{Rule: rule, Class: class, Message: msg}
	for i := 0; i+1 < len(kv); i += 2 {
		f.Fields = append(f.Fields, finding.Field{Key: kv[i], Value: kv[i+1]})
	}
	return f
}

// projectionViews are the views whose results every findings format shows: each outcome of
// run-task, each gate status with range findings, the gate's own error and report validate
// named from another directory.
func projectionViews() map[string]render.View {
	t1, t2 := projectionTask("001-a"), projectionTask("002-b")
	missing := pf(finding.KindReportMissingChangedFile, finding.ClassError, "", "file", "src/a.go")
	zero := pf("observed_zero_tests", finding.ClassError, "zero tests", "cmd", "go test")
	rejected := pf(finding.KindExecutorReportRejected, finding.ClassError, "rejected", "reason", "schema")
	viol := finding.Finding{Rule: "schema.enum", Class: finding.ClassError, File: t1.ReportRel(), Line: 5, Column: 9, Message: "status must be one of"}
	drift := pf("unexpected_file", finding.ClassWarning, "", "file", "notes.md")
	review := finding.Finding{Rule: postflight.RuleReviewIncomplete, Class: finding.ClassWarning, File: t1.HistoryReviewRel(), Line: 3, Message: "field Reason is empty"}
	preRule := finding.Finding{Rule: "spec.frontmatter", Class: finding.ClassError, Message: "no id"}
	gate := &postflight.GateResult{
		Tasks: []postflight.GateTask{
			{Task: t1, Status: postflight.GateBroken, Findings: []finding.Finding{missing, rejected}, ReportViolations: []finding.Finding{viol}, Reason: "broken"},
			{Task: t2, Status: postflight.GateDrift, Passed: true, Findings: []finding.Finding{drift}, Reason: "drift"},
			{Task: projectionTask("003-c"), Status: postflight.GateRefused, Reason: "spec changed since approval"},
			{Task: projectionTask("004-d"), Status: postflight.GateNotStarted, Reason: "no state.json"},
			{Task: projectionTask("005-e"), Status: postflight.GateError, Reason: "state unreadable", Err: errors.New("state unreadable")},
			{Task: projectionTask("bad"), Status: postflight.GateError, Reason: "not a task folder", Err: &postflight.NotTaskFolderError{Name: "bad"}},
			{Task: projectionTask("006-f"), Status: postflight.GateLearned, Reason: "no history review"},
			{Task: projectionTask("007-g"), Status: postflight.GateLearned, Passed: true},
		},
		Range: &postflight.RangeInfo{Base: "b", Head: "h", MergeBase: "m"},
		Findings: []finding.Finding{
			{Rule: postflight.KindUnownedChange, Class: finding.ClassError, File: "c.go", Message: "not owned", Fields: []finding.Field{{Key: "file", Value: "c.go"}}},
			pf(postflight.KindTaskRecordChanged, finding.ClassError, "record changed", "task", "008-h"),
		},
	}
	opts := &GateOptions{FailOn: "broken"}
	return map[string]render.View{
		"run-task broken": runTaskView{exit: ExitNotPassed, o: &postflight.Outcome{Phase: postflight.PhasePostflight, Outcome: postflight.OutcomePostBroken,
			Task: t1, Findings: []finding.Finding{missing, zero, rejected}, ReportViolations: []finding.Finding{viol}, Message: "broken"}},
		"run-task pre-flight refused": runTaskView{exit: ExitNotPassed, o: &postflight.Outcome{Phase: postflight.PhasePreflight, Outcome: postflight.OutcomePreRefused,
			Task: t1, Findings: []finding.Finding{preRule}, Message: "refused"}},
		"run-task post-flight refused": runTaskView{exit: ExitNotPassed, o: &postflight.Outcome{Phase: postflight.PhasePostflight, Outcome: postflight.OutcomePostRefused,
			Task: t1, Message: "pre-flight is required"}},
		"run-task history pending": runTaskView{exit: ExitOK, o: &postflight.Outcome{Phase: postflight.PhaseCompletion, Outcome: postflight.OutcomeHistoryPending,
			Task: t1, Findings: []finding.Finding{review}, Message: "history review pending"}},
		"run-task error":         runTaskView{exit: ExitOperational, o: &postflight.Outcome{Task: t1}, err: errors.New("git failed"), msg: "git failed"},
		"run-task error no task": runTaskView{exit: ExitOperational, o: &postflight.Outcome{}, err: errors.New("not a git repository"), msg: "not a git repository"},
		"gate":                   gateView{res: gate, opts: opts, summary: "gate: error", exit: ExitOperational},
		"gate error":             gateView{res: &postflight.GateResult{}, opts: opts, exit: ExitOperational, err: "not a git repository"},
		"report validate from a subdirectory": reportView{display: "../fix/r.md", file: "/repo/fix/r.md",
			res: report.Result{Findings: []finding.Finding{{Rule: "schema.enum", Class: finding.ClassError, File: "../fix/r.md", Line: 5, Column: 9, Message: "bad"}}}},
		"report validate error": reportView{display: "../fix/r.md", file: "/repo/fix/r.md", err: errors.New("unreadable")},
	}
}

// placed is one result as a format shows it: level, path and line (1 when unknown, as SARIF
// writes it).
type placed struct {
	level, path string
	line        int
}

func renderView(t *testing.T, format string, v render.View) []byte {
	t.Helper()
	r, err := render.For(format, render.Options{Tool: render.ToolMeta{Name: "mastermind"}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := r.Render(render.Streams{Out: &out, Err: &bytes.Buffer{}}, v); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// githubPlaced are the ::error and ::warning annotations of a github rendering.
func githubPlaced(out []byte) []placed {
	var ps []placed
	for _, l := range strings.Split(string(out), "\n") {
		level, rest, ok := strings.Cut(strings.TrimPrefix(l, "::"), " ")
		if !strings.HasPrefix(l, "::") || (level != "error" && level != "warning") {
			continue
		}
		if !ok {
			ps = append(ps, placed{level: strings.SplitN(level, "::", 2)[0], line: 1})
			continue
		}
		props, _, _ := strings.Cut(rest, "::")
		p := placed{level: level, line: 1}
		for _, kv := range strings.Split(props, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "file":
				p.path, _ = url.PathUnescape(v)
			case "line":
				p.line, _ = strconv.Atoi(v)
			}
		}
		ps = append(ps, p)
	}
	return ps
}

func sarifPlaced(t *testing.T, out []byte) []placed {
	t.Helper()
	var log struct {
		Runs []struct {
			Results []struct {
				Level     string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatalf("sarif: %v\n%s", err, out)
	}
	var ps []placed
	for _, r := range log.Runs[0].Results {
		loc := r.Locations[0].PhysicalLocation
		path, _ := url.PathUnescape(strings.TrimPrefix(loc.ArtifactLocation.URI, "file://"))
		ps = append(ps, placed{level: r.Level, path: path, line: loc.Region.StartLine})
	}
	return ps
}

func rdjsonPlaced(t *testing.T, out []byte) []placed {
	t.Helper()
	var res struct {
		Diagnostics []struct {
			Severity string
			Location struct {
				Path  string
				Range *struct{ Start struct{ Line int } }
			}
		}
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("rdjson: %v\n%s", err, out)
	}
	var ps []placed
	for _, d := range res.Diagnostics {
		p := placed{level: strings.ToLower(d.Severity), path: d.Location.Path, line: 1}
		if d.Location.Range != nil {
			p.line = d.Location.Range.Start.Line
		}
		ps = append(ps, p)
	}
	return ps
}

func sortPlaced(ps []placed) []placed {
	slices.SortFunc(ps, func(a, b placed) int {
		return strings.Compare(a.level+"\x00"+a.path+"\x00"+strconv.Itoa(a.line), b.level+"\x00"+b.path+"\x00"+strconv.Itoa(b.line))
	})
	return ps
}

// TestFormatsShowTheSameResults: github, sarif and rdjson read one projection, so they show
// the same results at the same places; SARIF and rdjson leave out only a result located
// nowhere (an error of the whole command), which code scanning cannot hold.
func TestFormatsShowTheSameResults(t *testing.T) {
	for name, v := range projectionViews() {
		t.Run(name, func(t *testing.T) {
			var gh []placed
			for _, p := range githubPlaced(renderView(t, render.FormatGitHub, v)) {
				if p.path != "" {
					gh = append(gh, p)
				}
			}
			sarif := sarifPlaced(t, renderView(t, render.FormatSARIF, v))
			rd := rdjsonPlaced(t, renderView(t, render.FormatRDJSON, v))
			for _, p := range append(slices.Clone(sarif), rd...) {
				if p.path == "" {
					t.Errorf("a SARIF or rdjson result without a location: %+v", p)
				}
			}
			if g, s := sortPlaced(gh), sortPlaced(sarif); !slices.Equal(g, s) {
				t.Errorf("github shows %+v\nsarif shows  %+v", g, s)
			}
			if s, r := sortPlaced(sarif), sortPlaced(rd); !slices.Equal(s, r) {
				t.Errorf("sarif shows  %+v\nrdjson shows %+v", s, r)
			}
		})
	}
}
