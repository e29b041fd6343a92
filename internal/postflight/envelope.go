package postflight

import (
	"encoding/json"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// Envelope is the run-task --json output (§13.2). Keys are in documented order.
type Envelope struct {
	SchemaVersion int               `json:"schema_version"`
	Command       string            `json:"command"`
	Phase         string            `json:"phase"`
	Outcome       string            `json:"outcome"`
	ExitCode      int               `json:"exit_code"`
	Message       string            `json:"message"`
	Task          string            `json:"task"`
	Spec          string            `json:"spec"`
	State         *State            `json:"state"`
	Findings      []json.RawMessage `json:"findings"`
	Artifacts     EnvelopeArtifacts `json:"artifacts"`
}

// EnvelopeArtifacts are the artifact paths, null when not written.
type EnvelopeArtifacts struct {
	State         *string `json:"state"`
	Audit         *string `json:"audit"`
	ReleaseNotes  *string `json:"release_notes"`
	HistoryReview *string `json:"history_review"`
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// NewEnvelope builds the --json envelope from a result. err, when non-nil, is an operational
// error: the outcome becomes "error" and its message is used.
func NewEnvelope(r *Result, exitCode int, err error) Envelope {
	e := Envelope{SchemaVersion: 1, Command: "run-task", Phase: r.Phase, Outcome: r.Outcome, ExitCode: exitCode,
		Message: r.Message, Task: r.Task.Name, Spec: r.Task.Spec, State: r.State, Findings: []json.RawMessage{},
		Artifacts: EnvelopeArtifacts{State: strOrNil(r.Artifacts.State), Audit: strOrNil(r.Artifacts.Audit),
			ReleaseNotes: strOrNil(r.Artifacts.ReleaseNotes), HistoryReview: strOrNil(r.Artifacts.HistoryReview)}}
	if e.Phase == "" {
		e.Phase = PhasePreflight
	}
	if err != nil {
		e.Outcome, e.Message = OutcomeError, err.Error()
	}
	add := func(v any) {
		if b, err := finding.MarshalValue(v); err == nil {
			e.Findings = append(e.Findings, b)
		}
	}
	if r.Phase == PhasePostflight {
		for _, f := range r.Findings {
			add(AuditFinding(f))
		}
	} else {
		for _, f := range r.Findings {
			add(f)
		}
	}
	for _, f := range r.ReportViolations {
		add(f)
	}
	return e
}
