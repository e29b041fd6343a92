package cli

import (
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// runTaskView is a run-task outcome in every output format: the text of §2–§8, the --json
// envelope of §13.2 and its findings. err, when non-nil, is the operational error that ended
// the run, shown as an error envelope or one error result and no text.
type runTaskView struct {
	o    *postflight.Outcome
	exit int
	err  error
	msg  string // err's message as printed
}

// verdictTone is the colour of a verdict: held green, drift yellow, broken red.
func verdictTone(verdict postflight.Verdict) render.Tone {
	switch verdict {
	case postflight.VerdictHeld:
		return render.TonePass
	case postflight.VerdictDrift:
		return render.ToneWarn
	case postflight.VerdictBroken:
		return render.ToneFail
	}
	return render.ToneNone
}

func (v runTaskView) WriteText(t *render.Text) {
	if v.err != nil {
		return
	}
	o := v.o
	switch o.Outcome {
	case postflight.OutcomePreReady:
		if o.Adopted != "" {
			t.Printf("adopted baseline %s from %s (its spec hash matches; an ancestor of HEAD)\n", o.Adopted, o.Task.StateRel())
		}
		for _, w := range o.Findings {
			t.Line(render.ToneWarn, fmt.Sprintf("⚠️ %s [%s]", textsafe.Escape(w.Text()), w.Rule))
		}
		t.Line(render.TonePass, "✅ pre-flight approved — "+o.Task.Spec)
		t.Printf("  baseline: %s\n  iteration: %s\n", o.State.BaselineRef, iterationText(o.State.Iteration, o.Budget))
		for _, n := range o.Notes {
			t.Printf("  %s\n", textsafe.Escape(n))
		}
		t.Printf("  next: implement the task, write %s,\n        then run: %s\n", o.Next.Edit, o.Next.Run)
		t.WriteString(briefPointer(o.Task.Spec))
	case postflight.OutcomePreRefused:
		t.Line(render.ToneFail, "❌ pre-flight refused — "+o.Task.Spec)
		for _, f := range o.Findings {
			t.Printf("  %s\n", textsafe.Escape(f.String()))
		}
		if o.Findings == nil && o.Message != "" {
			t.Printf("  %s\n", textsafe.Escape(o.Message))
		}
		t.Printf("  next: planner: fix %s as listed above, then run: mastermind run-task %s --pre-only\n", o.Task.Spec, o.Task.Spec)
	case postflight.OutcomePostRefused:
		t.Line(render.ToneFail, "❌ "+o.Line())
		switch {
		case o.Next.Step == postflight.NextRunPreflight:
			// The line ends with it.
		case o.Next.Step == postflight.NextRunAudit && o.Next.Run != "":
			t.Printf("  next: run: %s\n", o.Next.Run)
		default:
			// Audit inputs unavailable, such as past the snapshot limits.
			t.Printf("  next: planner: read %s; fix the cause above, then run: mastermind run-task %s --post-only\n", o.Task.AuditRel(), o.Task.Spec)
		}
	case postflight.OutcomePostDrift, postflight.OutcomePostBroken:
		writeAuditSummary(t, o)
		t.Printf("audit: %s\n", o.Artifacts.Audit)
		writeRepeated(t, o)
		t.Printf("%s\n", blockedNext(o))
	case postflight.OutcomePostHeld:
		writeAuditSummary(t, o)
		t.Printf("audit: %s\nrelease notes: %s\n", o.Artifacts.Audit, o.Artifacts.ReleaseNotes)
		writeRepeated(t, o)
		t.Printf("next: complete %s, then run: %s\n", o.Next.Edit, o.Next.Run)
	case postflight.OutcomeHistoryPending:
		t.Line(render.ToneNone, "⏳ history review pending — "+o.Next.Edit)
		for _, m := range o.Review {
			t.Printf("  %s\n", textsafe.Escape(m))
		}
		t.Printf("  next: complete %s, then run: %s\n", o.Next.Edit, o.Next.Run)
	case postflight.OutcomeCompleted:
		if o.Phase == postflight.PhasePostflight && o.Repeated {
			// The post-flight of a learned task: a read of its record.
			writeAuditSummary(t, o)
			t.Printf("audit: %s\nrelease notes: %s\n", o.Artifacts.Audit, o.Artifacts.ReleaseNotes)
			if o.State != nil && o.InputsFingerprint != o.State.InputsFingerprint {
				t.Line(render.ToneWarn, "⚠️ "+o.Message)
				return
			}
			t.Line(render.TonePass, "✅ "+o.Message)
			t.Printf("  next: nothing; the task is closed\n")
			return
		}
		if o.Phase == postflight.PhasePostflight {
			// A held post-flight whose history review was already complete (§4 step 11.5).
			writeAuditSummary(t, o)
			t.Printf("audit: %s\nrelease notes: %s\n", o.Artifacts.Audit, o.Artifacts.ReleaseNotes)
		}
		if o.Next.Run != "" {
			// Learned already: nothing was done.
			t.Line(render.TonePass, "✅ "+o.Message)
			t.Printf("  history review: %s\n  to reopen it, run: %s\n", o.Artifacts.HistoryReview, o.Next.Run)
			t.Printf("  next: nothing; the task is closed\n")
			return
		}
		t.Line(render.TonePass, "✅ "+o.Message+" (learned/close)")
		t.Printf("  history review: %s\n", o.Artifacts.HistoryReview)
		t.Printf("  next: nothing; the task is closed\n")
	}
}

// blockedNext is the "next:" line of a drift or broken outcome (lifecycle-v2.md §9): who acts and
// the command, by the state's next step and verdict. docs/workflows.md explains each.
func blockedNext(o *postflight.Outcome) string {
	spec := o.Task.Spec
	post := "mastermind run-task " + spec + " --post-only"
	pre := "mastermind run-task " + spec + " --pre-only"
	st := o.State
	switch {
	case o.Accepted:
		return fmt.Sprintf("next: planner: the drift is accepted; complete %s, then run: mastermind run-task %s", o.Task.HistoryReviewRel(), spec)
	case o.Next.Step == postflight.NextReturnToDesign:
		return fmt.Sprintf("next: planner: return to design — revise %s (or ask the user), then run: %s", spec, pre)
	case st != nil && st.Status == postflight.StatusBlocked:
		if line := stoppedNext(o, post, pre); line != "" {
			return line
		}
		return fmt.Sprintf("next: executor: write a valid %s (check it with: mastermind report validate %s), then run: %s", o.Task.ReportRel(), o.Task.ReportRel(), post)
	case o.Outcome == postflight.OutcomePostDrift:
		return fmt.Sprintf("next: planner: review %s — accept the drift (mastermind accept %s --reason TEXT), have the executor fix it and run: %s, or revise the spec and run: %s", o.Task.AuditRel(), spec, post, pre)
	}
	return fmt.Sprintf("next: executor: fix the work or %s as %s lists, then run: %s (or the planner revises the spec and runs: %s)", o.Task.ReportRel(), o.Task.AuditRel(), post, pre)
}

// stoppedNext is the "next:" line of a valid report whose executor stopped as partial or failed:
// the planner acts on what the rejection names. It is "" for any other rejection, which the
// executor fixes by writing a valid report.
func stoppedNext(o *postflight.Outcome, post, pre string) string {
	for _, f := range o.Findings {
		if f.Rule != finding.KindExecutorReportRejected {
			continue
		}
		var status string
		switch f.FieldString("reason") {
		case audit.ReasonStatusPartial:
			status = "partial"
		case audit.ReasonStatusFailed:
			status = "failed"
		default:
			return ""
		}
		what := "the executor reported status " + status
		if d := f.FieldString("defect"); d != "" {
			what += " with defect " + textsafe.Escape(d)
		}
		if c := f.FieldString("failed_cmd"); c != "" {
			what += fmt.Sprintf(", and verification \"%s\" failed", textsafe.Escape(c))
		}
		return fmt.Sprintf("next: planner: %s; resolve it (or ask the user), then have the executor finish the task and run: %s, or revise the spec and run: %s", what, post, pre)
	}
	return ""
}

// writeRepeated says that a post-flight on unchanged inputs returned the recorded outcome
// (lifecycle-v2.md §5).
func writeRepeated(t *render.Text, o *postflight.Outcome) {
	if o.Repeated {
		t.Printf("repeated: the inputs are unchanged since this audit; its recorded outcome is shown and nothing was written\n")
	}
}

// writeAuditSummary writes the capped human part of audit.md that Outcome.AuditSummary holds, its
// verdict line coloured by the verdict.
func writeAuditSummary(t *render.Text, o *postflight.Outcome) {
	first, rest, _ := strings.Cut(o.AuditSummary, "\n")
	t.Line(verdictTone(o.Verdict), first)
	t.WriteString(rest)
}

// iterationText is the pre-flight hand-off's iteration line: "<n> of <budget>", or with no
// budget or beyond it.
func iterationText(iter, budget int) string {
	switch {
	case budget == 0:
		return fmt.Sprintf("%d (no budget)", iter)
	case iter > budget:
		return fmt.Sprintf("%d (forced with --force-iteration, beyond the budget of %d)", iter, budget)
	}
	return fmt.Sprintf("%d of %d", iter, budget)
}

// runTaskEnvelope is the run-task --json output (§13.2). Keys are in documented order.
type runTaskEnvelope struct {
	render.Header
	Phase    postflight.Phase       `json:"phase"`
	Outcome  postflight.OutcomeKind `json:"outcome"`
	ExitCode int                    `json:"exit_code"`
	// Repeated is present (true) only for a post-flight on unchanged inputs (lifecycle-v2.md §5).
	Repeated bool              `json:"repeated,omitempty"`
	Message  string            `json:"message"`
	Task     string            `json:"task"`
	Spec     string            `json:"spec"`
	State    *postflight.State `json:"state"`
	// Findings are written one at a time (render.Array): a post-flight on 200,000 changed paths
	// has as many findings.
	Findings render.Array `json:"findings"`
	// Receipts are the post-flight's verification runs (verification-receipts.md §3), null
	// when none was planned.
	Receipts  []verifyrun.ReceiptEvidence `json:"receipts"`
	Artifacts envelopeArtifacts           `json:"artifacts"`
	// InputsFingerprint identifies what a post-flight decided from (Outcome.InputsFingerprint):
	// the hook's loop guard compares it; absent when there is none.
	InputsFingerprint string `json:"inputs_fingerprint,omitempty"`
}

// envelopeArtifacts are the artifact paths, null when not written.
type envelopeArtifacts struct {
	State         *string `json:"state"`
	Audit         *string `json:"audit"`
	ReleaseNotes  *string `json:"release_notes"`
	HistoryReview *string `json:"history_review"`
}

// artifactsOf is a's paths in the envelope's shape (run-task and accept share it).
func artifactsOf(a postflight.Artifacts) envelopeArtifacts {
	return envelopeArtifacts{State: strOrNull(a.State), Audit: strOrNull(a.Audit),
		ReleaseNotes: strOrNull(a.ReleaseNotes), HistoryReview: strOrNull(a.HistoryReview)}
}

func (v runTaskView) JSON() any {
	r := v.o
	e := runTaskEnvelope{Header: render.NewHeader("run-task"), Phase: r.Phase, Outcome: r.Outcome, ExitCode: v.exit,
		Repeated: r.Repeated, Message: r.Line(), Task: r.Task.Name, Spec: r.Task.Spec, State: r.State,
		Receipts:  r.Receipts,
		Artifacts: artifactsOf(r.Artifacts), InputsFingerprint: r.InputsFingerprint}
	if e.Phase == "" {
		e.Phase = postflight.PhasePreflight
	}
	if v.err != nil {
		e.Outcome, e.Message = postflight.OutcomeError, v.err.Error()
	}
	e.Findings = render.NewArray(func(yield func(any) bool) {
		for f := range r.AllFindings() {
			var x any = f
			if r.Phase == postflight.PhasePostflight {
				x = finding.Audit(f)
			}
			if !yield(x) {
				return
			}
		}
		for _, f := range r.ReportViolations {
			if !yield(f) {
				return
			}
		}
	})
	return e
}
