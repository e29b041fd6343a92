package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// hostileText holds every escape class of the --json output: C0, DEL, C1, bidi, a tag character
// beyond U+FFFF, a line separator, HTML characters (kept raw), invalid UTF-8.
const hostileText = "x\x1b\x7f\u0085\u202E\U000E0041\u2028<&>\"\\\xff"

// envelopeFindings are audit findings as a large changed set produces them (per-path findings
// without a stored message), with hostile paths and kind fields among them.
func envelopeFindings(n int) []finding.Finding {
	fs := make([]finding.Finding, 0, n)
	for i := range n {
		p := fmt.Sprintf("src/d%02d/f%06d.txt", i%100, i)
		if i%9 == 0 {
			p += hostileText
		}
		kind := finding.KindUnexpectedFile
		if i%2 == 1 {
			kind = finding.KindReportMissingChangedFile
		}
		f := finding.PathFinding(kind, []finding.Field{{Key: "file", Value: p}})
		if i%13 == 0 {
			f = finding.Finding{Rule: "claim_mismatch", Class: finding.ClassError, Message: "claim " + hostileText,
				Fields: []finding.Field{{Key: "file", Value: p}, {Key: "line", Value: i}}}
		}
		fs = append(fs, f)
	}
	return fs
}

// oneShotJSON is WriteJSON before it streamed: the envelope encoded and escaped as a whole.
func oneShotJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return textsafe.EscapeJSON(b.Bytes())
}

func streamedJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := render.WriteJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// oldRunTaskEnvelope is the run-task envelope as it was built before its findings became a
// render.Array: each finding encoded into a json.RawMessage up front.
func oldRunTaskEnvelope(v runTaskView) any {
	e := v.JSON().(runTaskEnvelope)
	type old struct {
		render.Header
		Phase     string            `json:"phase"`
		Outcome   string            `json:"outcome"`
		ExitCode  int               `json:"exit_code"`
		Repeated  bool              `json:"repeated,omitempty"`
		Message   string            `json:"message"`
		Task      string            `json:"task"`
		Spec      string            `json:"spec"`
		State     *postflight.State `json:"state"`
		Findings  []json.RawMessage `json:"findings"`
		Receipts  any               `json:"receipts"`
		Artifacts envelopeArtifacts `json:"artifacts"`
	}
	o := old{Header: e.Header, Phase: string(e.Phase), Outcome: string(e.Outcome), ExitCode: e.ExitCode, Repeated: e.Repeated, Message: e.Message,
		Task: e.Task, Spec: e.Spec, State: e.State, Findings: []json.RawMessage{}, Receipts: e.Receipts, Artifacts: e.Artifacts}
	add := func(x any) {
		if b, err := finding.MarshalValue(x); err == nil {
			o.Findings = append(o.Findings, b)
		}
	}
	for f := range v.o.AllFindings() {
		if v.o.Phase == postflight.PhasePostflight {
			add(finding.Audit(f))
		} else {
			add(f)
		}
	}
	for _, f := range v.o.ReportViolations {
		add(f)
	}
	return o
}

// TestEnvelopesStreamSameBytes: the run-task and gate --json envelopes, written by the
// streaming render.WriteJSON, are byte for byte the one-shot encoding (and, for run-task, the
// envelope as it was built before), with hostile text and up to 20,000 findings.
func TestEnvelopesStreamSameBytes(t *testing.T) {
	task := postflight.Task{Name: "001-big", Dir: ".mastermind/tasks/001-big", Spec: ".mastermind/tasks/001-big/spec.md"}
	audit := task.AuditRel()
	for _, n := range []int{0, 1, 20_000} {
		fs := envelopeFindings(n)
		// The per-path findings of a large changed set as post-flight holds them: runs over one
		// shared slice of file fields, merged with the other findings in audit order.
		files := make([]finding.Field, n)
		for i := range files {
			files[i] = finding.Field{Key: "file", Value: fmt.Sprintf("z/%06d%s", i, hostileText[:i%len(hostileText)])}
		}
		odd := []int32{}
		for i := 1; i < n; i += 2 {
			odd = append(odd, int32(i))
		}
		runs := []finding.PathRun{{Kind: finding.KindReportMissingChangedFile, Files: files}, {Kind: finding.KindUnexpectedFile, Files: files, Index: odd}}
		viol := []finding.Finding{{Rule: "schema.type", Class: finding.ClassError, File: task.ReportRel(), Line: 4, Column: 2, Pointer: "/files_modified", Message: hostileText}}
		for _, o := range []*postflight.Outcome{
			{Phase: postflight.PhasePostflight, Outcome: postflight.OutcomePostBroken, Verdict: postflight.VerdictBroken, Message: "broken " + hostileText,
				Task: task, State: &postflight.State{SchemaVersion: 1, Status: postflight.StatusBlocked}, Findings: fs, PathRuns: runs, ReportViolations: viol,
				Artifacts: postflight.Artifacts{State: task.StateRel(), Audit: audit}},
			{Phase: postflight.PhasePreflight, Outcome: postflight.OutcomePreRefused, Task: task, Findings: fs},
			{Phase: postflight.PhasePostflight, Outcome: postflight.OutcomePostHeld, Task: task, Repeated: true},
		} {
			v := runTaskView{o: o, exit: ExitNotPassed}
			got := streamedJSON(t, v.JSON())
			if want := oneShotJSON(t, v.JSON()); !bytes.Equal(got, want) {
				t.Fatalf("run-task %s, %d findings: streamed envelope differs from its one-shot encoding", o.Outcome, n)
			}
			if want := oneShotJSON(t, oldRunTaskEnvelope(v)); !bytes.Equal(got, want) {
				t.Fatalf("run-task %s, %d findings: envelope differs from the one built before:\n%s\n---\n%s", o.Outcome, n, got[:min(len(got), 2000)], want[:min(len(want), 2000)])
			}
			var back struct{ Findings []map[string]any }
			if err := json.Unmarshal(got, &back); err != nil || len(back.Findings) != o.FindingCount()+len(o.ReportViolations) {
				t.Fatalf("run-task %s: envelope decodes to %d findings (%v), want %d", o.Outcome, len(back.Findings), err, o.FindingCount()+len(o.ReportViolations))
			}
		}
		verdict := postflight.VerdictBroken
		res := &postflight.GateResult{
			Tasks: []postflight.GateTask{
				{Task: task, Status: postflight.GateBroken, Verdict: verdict, Counts: &postflight.Counts{Errors: n}, Findings: fs, ReportViolations: viol, Reason: "r"},
				{Task: postflight.Task{Name: "002-held", Spec: "s"}, Status: postflight.GateHeld, Passed: true},
			},
			Range:    &postflight.RangeInfo{Base: "main", Head: "HEAD", Changed: n, AddedTasks: []string{"001-big"}},
			Findings: fs,
		}
		for _, g := range []gateView{
			{res: res, opts: &GateOptions{FailOn: "broken"}, summary: "gate failed", exit: ExitNotPassed},
			{res: &postflight.GateResult{Tasks: res.Tasks}, opts: &GateOptions{FailOn: "drift"}, exit: ExitOK},
			{res: res, opts: &GateOptions{}, err: "boom " + hostileText},
		} {
			got := streamedJSON(t, g.JSON())
			if want := oneShotJSON(t, g.JSON()); !bytes.Equal(got, want) {
				t.Fatalf("gate, %d findings: streamed envelope differs from its one-shot encoding", n)
			}
		}
	}
}

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// probe returns a with the bytes w had received when its last element was made recorded in *at.
func probe(a render.Array, w *countingWriter, at *int) render.Array {
	return render.NewArray(func(yield func(any) bool) {
		for x := range a.All() {
			*at = w.n
			if !yield(x) {
				return
			}
		}
	})
}

// TestEnvelopesAreStreamed: WriteJSON walks the run-task and gate envelope types, so the output
// of the first findings has left before the last finding is encoded (an envelope encoded whole
// would write nothing until every finding was).
func TestEnvelopesAreStreamed(t *testing.T) {
	task := postflight.Task{Name: "001-big", Dir: ".mastermind/tasks/001-big", Spec: ".mastermind/tasks/001-big/spec.md"}
	fs := envelopeFindings(5000)
	const least = 500 << 10 // 5,000 findings are about 900 KiB; the buffer holds 64 KiB
	w := &countingWriter{}
	var at int
	e := runTaskView{o: &postflight.Outcome{Phase: postflight.PhasePostflight, Outcome: postflight.OutcomePostBroken, Task: task, Findings: fs}}.JSON().(runTaskEnvelope)
	e.Findings = probe(e.Findings, w, &at)
	if err := render.WriteJSON(w, e); err != nil || at < least {
		t.Fatalf("run-task: %d of %d bytes written before the last finding was encoded (%v); want at least %d", at, w.n, err, least)
	}
	res := &postflight.GateResult{Tasks: []postflight.GateTask{{Task: task, Status: postflight.GateBroken, Findings: fs}},
		Range: &postflight.RangeInfo{Base: "main"}, Findings: fs}
	g := gateView{res: res, opts: &GateOptions{}, exit: ExitNotPassed}.JSON().(gateJSON)
	var atTask, atRange int
	w = &countingWriter{}
	g.Tasks[0].Findings = probe(g.Tasks[0].Findings, w, &atTask)
	r := probe(*g.Findings, w, &atRange)
	g.Findings = &r
	if err := render.WriteJSON(w, g); err != nil || atTask < least || atRange < 2*least {
		t.Fatalf("gate: %d and %d of %d bytes written before the last task and range finding were encoded (%v)", atTask, atRange, w.n, err)
	}
}
