package postflight

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/jsonstrict"
)

// StateSchemaVersion is the state.json schema_version this package reads and writes (§5.1).
const StateSchemaVersion = 1

// MaxStateBytes is the largest state.json accepted, in bytes (§5.1: 1 MiB).
const MaxStateBytes = 1 << 20

// Statuses (§5.2).
const (
	StatusApproved              = "approved"
	StatusAuditRequired         = "audit_required"
	StatusBlocked               = "blocked"
	StatusDrift                 = "drift"
	StatusBroken                = "broken"
	StatusHistoryReviewRequired = "history_review_required"
	StatusLearned               = "learned"
)

// Next steps (§5.2).
const (
	NextRunExecutor    = "run_executor"
	NextRunAudit       = "run_audit"
	NextRunPreflight   = "run_preflight"
	NextPlannerReview  = "planner_review"
	NextReturnToDesign = "return_to_design"
	NextReviewHistory  = "review_history"
	NextClose          = "close"
)

// Verdict is the audit verdict (§9.2), audit's own type.
type Verdict = audit.Verdict

// Verdicts (§9.2).
const (
	VerdictHeld   = audit.VerdictHeld
	VerdictDrift  = audit.VerdictDrift
	VerdictBroken = audit.VerdictBroken
)

// Risks (§5.1).
const (
	RiskLow    = "low"
	RiskMedium = "medium"
	RiskHigh   = "high"
)

// Artifact file names used in last_artifact (§5.1).
const (
	ArtifactSpec          = "spec.md"
	ArtifactReport        = "executor-report.md"
	ArtifactAudit         = "audit.md"
	ArtifactHistoryReview = "history-review.md"
)

// allowedNext is the status → next_step table of §5.2.
var allowedNext = map[string][]string{
	StatusApproved:              {NextRunExecutor},
	StatusAuditRequired:         {NextRunAudit},
	StatusBlocked:               {NextRunPreflight, NextPlannerReview, NextReturnToDesign},
	StatusDrift:                 {NextPlannerReview, NextReturnToDesign},
	StatusBroken:                {NextPlannerReview, NextReturnToDesign},
	StatusHistoryReviewRequired: {NextReviewHistory},
	StatusLearned:               {NextClose},
}

// Counts are the audit finding counts by class (§5.1 findings).
type Counts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// State is state.json (spec-and-lifecycle.md §5.1). Field order is the documented key order, so
// json.Marshal writes keys in table order. Optional fields are pointers or omitted when empty.
type State struct {
	SchemaVersion int     `json:"schema_version"`
	Status        string  `json:"status"`
	NextStep      string  `json:"next_step"`
	Verdict       Verdict `json:"verdict,omitempty"`
	Findings      *Counts `json:"findings,omitempty"`
	Risk          string  `json:"risk"`
	// OutcomeRisk is the risk the last post-flight's outcome implies, from low for held to high
	// for broken; Risk stays the spec's. Pre-flight removes it.
	OutcomeRisk           string `json:"outcome_risk,omitempty"`
	BlockingReason        string `json:"blocking_reason,omitempty"`
	LastArtifact          string `json:"last_artifact"`
	SpecPath              string `json:"spec_path"`
	SpecHash              string `json:"spec_hash"`
	BaselineRef           string `json:"baseline_ref"`
	StartedAt             int64  `json:"started_at"`
	Iteration             int    `json:"iteration"`
	Degraded              *bool  `json:"degraded,omitempty"`
	HistorySnapshotSHA256 string `json:"history_snapshot_sha256,omitempty"`
	BlockingFingerprint   string `json:"blocking_fingerprint,omitempty"`
	BlockingStreak        int    `json:"blocking_streak"`
	// InputsFingerprint is the lifecycle-v2.md §5 fingerprint of the inputs the recorded verdict
	// was computed from.
	InputsFingerprint string `json:"inputs_fingerprint,omitempty"`
	// AcceptedReason, AcceptedAt and AcceptedSnapshot record a planner's `mastermind accept` of a
	// drift verdict (lifecycle-v2.md §3); all three or none.
	AcceptedReason   string `json:"accepted_reason,omitempty"`
	AcceptedAt       *int64 `json:"accepted_at,omitempty"`
	AcceptedSnapshot string `json:"accepted_snapshot,omitempty"`
}

// Accepted reports whether the planner accepted this state's drift verdict.
func (s *State) Accepted() bool { return s.AcceptedSnapshot != "" }

// requiredStateKeys are the keys present in every state (§5.1 "always").
var requiredStateKeys = []string{"schema_version", "status", "next_step", "risk", "last_artifact",
	"spec_path", "spec_hash", "baseline_ref", "started_at", "iteration", "blocking_streak"}

var (
	hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// CorruptStateError says state.json exists but cannot be used (§5.3). It maps to exit 3 and the
// file is left byte-for-byte unchanged.
type CorruptStateError struct {
	Path   string // repository-relative state path
	Reason string // what is wrong, one phrase
}

func (e *CorruptStateError) Error() string {
	return fmt.Sprintf("state file %s is unreadable (%s); restore it, for example from git history, before retrying, to keep the task baseline and iteration budget", e.Path, e.Reason)
}

// ClearVerdict removes the verdict fields a new pre-flight or post-flight must clear, by §3.1 step
// 2 and §4 step 1.
func (s *State) ClearVerdict() {
	s.Verdict = ""
	s.Findings = nil
	s.Degraded = nil
	s.HistorySnapshotSHA256 = ""
	s.InputsFingerprint = ""
	s.AcceptedReason, s.AcceptedAt, s.AcceptedSnapshot = "", nil, ""
}

// Validate checks every rule of §5.3 except the file checks and the spec_path comparison, and
// returns the first violation as a phrase, or "" when the state is valid.
func (s *State) Validate() string {
	if s.SchemaVersion != StateSchemaVersion {
		if s.SchemaVersion > StateSchemaVersion {
			return fmt.Sprintf("schema_version %d was written by a newer mastermind; this mastermind reads schema_version 1", s.SchemaVersion)
		}
		return fmt.Sprintf("schema_version %d is not supported; expected 1", s.SchemaVersion)
	}
	next, ok := allowedNext[s.Status]
	if !ok {
		return fmt.Sprintf("status %q is not one of approved, audit_required, blocked, drift, broken, history_review_required, learned", s.Status)
	}
	if !slices.Contains(next, s.NextStep) {
		return fmt.Sprintf("next_step %q is not allowed for status %q (allowed: %s)", s.NextStep, s.Status, strings.Join(next, ", "))
	}
	switch s.Verdict {
	case "", VerdictHeld, VerdictDrift, VerdictBroken:
	default:
		return fmt.Sprintf("verdict %q is not one of held, drift, broken", s.Verdict)
	}
	if (s.Verdict == "") != (s.Findings == nil) {
		return "findings must be present exactly when verdict is"
	}
	if s.Findings != nil && (s.Findings.Errors < 0 || s.Findings.Warnings < 0) {
		return "findings counts must not be negative"
	}
	if s.Degraded != nil && s.Verdict == "" {
		return "degraded must only be present with verdict"
	}
	switch s.Risk {
	case RiskLow, RiskMedium, RiskHigh:
	default:
		return fmt.Sprintf("risk %q is not one of low, medium, high", s.Risk)
	}
	switch s.OutcomeRisk {
	case "", RiskLow, RiskMedium, RiskHigh:
	default:
		return fmt.Sprintf("outcome_risk %q is not one of low, medium, high", s.OutcomeRisk)
	}
	switch s.LastArtifact {
	case ArtifactSpec, ArtifactReport, ArtifactAudit, ArtifactHistoryReview:
	default:
		return fmt.Sprintf("last_artifact %q is not one of spec.md, executor-report.md, audit.md, history-review.md", s.LastArtifact)
	}
	if s.SpecPath == "" {
		return "spec_path is empty"
	}
	if !hex64.MatchString(s.SpecHash) {
		return "spec_hash is not 64 lowercase hex digits"
	}
	if !gitscope.IsFullOID(s.BaselineRef) {
		return "baseline_ref is not 40 lowercase hex digits"
	}
	if s.StartedAt < 0 {
		return "started_at is negative"
	}
	if s.Iteration < 0 {
		return "iteration is negative"
	}
	if s.BlockingStreak < 0 {
		return "blocking_streak is negative"
	}
	needSnap := s.Status == StatusHistoryReviewRequired || s.Status == StatusLearned
	if needSnap != (s.HistorySnapshotSHA256 != "") {
		if needSnap {
			return "history_snapshot_sha256 is required for status " + s.Status
		}
		return "history_snapshot_sha256 is only allowed for status history_review_required or learned"
	}
	if s.HistorySnapshotSHA256 != "" && !hex64.MatchString(s.HistorySnapshotSHA256) {
		return "history_snapshot_sha256 is not 64 lowercase hex digits"
	}
	if (s.BlockingStreak > 0) != (s.BlockingFingerprint != "") {
		return "blocking_fingerprint must be present exactly when blocking_streak > 0"
	}
	if s.BlockingFingerprint != "" && !hex64.MatchString(s.BlockingFingerprint) {
		return "blocking_fingerprint is not 64 lowercase hex digits"
	}
	if s.InputsFingerprint != "" {
		if s.Verdict == "" {
			return "inputs_fingerprint must only be present with verdict"
		}
		if !hex64.MatchString(s.InputsFingerprint) {
			return "inputs_fingerprint is not 64 lowercase hex digits"
		}
	}
	return s.validateAcceptance()
}

// ParseState decodes state.json bytes strictly (§5.3): one JSON object, no unknown or duplicate
// fields, every required key present, types, enums, pairs and hex forms valid. The error is a
// phrase suitable for CorruptStateError.Reason.
func ParseState(data []byte) (*State, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if v, ok := raw["schema_version"]; ok {
		var n int64
		if err := json.Unmarshal(v, &n); err == nil && n > StateSchemaVersion {
			return nil, fmt.Errorf("schema_version %d was written by a newer mastermind; this mastermind reads schema_version 1", n)
		}
	}
	for _, k := range requiredStateKeys {
		if _, ok := raw[k]; !ok {
			return nil, fmt.Errorf("required field %s is missing", k)
		}
	}
	var dup *jsonstrict.DuplicateKeyError
	if _, err := jsonstrict.Decode(data, jsonstrict.Options{}); errors.As(err, &dup) {
		return nil, fmt.Errorf("duplicate field %s (byte offset %d; first at byte offset %d)", dup.Name, dup.Offset, dup.FirstOffset)
	} else if err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	for k, v := range raw {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return nil, fmt.Errorf("field %s is null", k)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s State
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("invalid field: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON object")
	}
	if _, ok := raw["verdict"]; ok && s.Verdict == "" {
		return nil, errors.New("verdict is empty")
	}
	if _, ok := raw["blocking_reason"]; ok && s.BlockingReason == "" {
		return nil, errors.New("blocking_reason is empty")
	}
	if r := s.Validate(); r != "" {
		return nil, errors.New(r)
	}
	return &s, nil
}

// MarshalState renders s as state.json: 2-space indentation, keys in table order, no HTML
// escaping, trailing newline (§5.1).
func MarshalState(s *State) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	if b.Len() > MaxStateBytes {
		return nil, fmt.Errorf("state would be %d bytes; the limit is %d", b.Len(), MaxStateBytes)
	}
	return b.Bytes(), nil
}

// LoadState reads the state file at abs, shown as rel, under the §5.3 rules: nil for a missing
// file, and a *CorruptStateError for any other problem, leaving the file untouched.
func LoadState(abs, rel, specPath string) (*State, error) {
	data, err := fsx.ReadFile(abs, MaxStateBytes)
	if err != nil {
		switch fsx.ReasonOf(err) {
		case fsx.ReasonMissing:
			return nil, nil
		case fsx.ReasonSymlink:
			return nil, &CorruptStateError{Path: rel, Reason: "it is a symbolic link"}
		case fsx.ReasonNotRegular:
			return nil, &CorruptStateError{Path: rel, Reason: "it is not a regular file"}
		case fsx.ReasonTooLarge:
			return nil, &CorruptStateError{Path: rel, Reason: "larger than 1 MiB"}
		case fsx.ReasonUnstable:
			return nil, &CorruptStateError{Path: rel, Reason: "it changed while being read"}
		}
		return nil, &CorruptStateError{Path: rel, Reason: err.Error()}
	}
	s, err := ParseState(data)
	if err != nil {
		return nil, &CorruptStateError{Path: rel, Reason: err.Error()}
	}
	if s.SpecPath != specPath {
		return nil, &CorruptStateError{Path: rel, Reason: fmt.Sprintf("spec_path %q does not match the spec %q", s.SpecPath, specPath)}
	}
	return s, nil
}

// MaxAcceptedReasonBytes bounds accepted_reason (lifecycle-v2.md §3).
const MaxAcceptedReasonBytes = 4096

// validateAcceptance checks the accepted_* fields: all three or none; only on a drift verdict
// with status history_review_required or learned; the snapshot is the state's history snapshot.
func (s *State) validateAcceptance() string {
	n := 0
	for _, set := range []bool{s.AcceptedReason != "", s.AcceptedAt != nil, s.AcceptedSnapshot != ""} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return ""
	case n != 3:
		return "accepted_reason, accepted_at and accepted_snapshot must be present together"
	case s.Verdict != VerdictDrift:
		return "an acceptance (accepted_*) is only allowed with verdict drift"
	case s.Status != StatusHistoryReviewRequired && s.Status != StatusLearned:
		return "an acceptance (accepted_*) is only allowed for status history_review_required or learned"
	case !hex64.MatchString(s.AcceptedSnapshot):
		return "accepted_snapshot is not 64 lowercase hex digits"
	case s.AcceptedSnapshot != s.HistorySnapshotSHA256:
		return "accepted_snapshot must equal history_snapshot_sha256"
	case *s.AcceptedAt < 0:
		return "accepted_at is negative"
	case len(s.AcceptedReason) > MaxAcceptedReasonBytes:
		return fmt.Sprintf("accepted_reason is longer than %d bytes", MaxAcceptedReasonBytes)
	}
	return ""
}
