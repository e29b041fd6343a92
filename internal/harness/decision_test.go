package harness

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

func brokenOutcome(n int) Outcome {
	fs := []finding.Finding{
		{Rule: "executor_report_missing_changed_file", Class: finding.ClassError,
			Message: "changed since the baseline but not listed in files_modified: src/retry.go",
			Fields:  []finding.Field{{Key: "file", Value: "src/retry.go"}}},
		{Rule: "schema.type", Class: finding.ClassError, File: ".mastermind/tasks/001-retry/executor-report.md", Line: 7, Column: 3,
			Message: "verification[0].observed.exit_code must be an integer"},
	}
	for i := len(fs); i < n; i++ {
		fs = append(fs, finding.Finding{Rule: "unexpected_file", Class: finding.ClassWarning,
			Message: fmt.Sprintf("changed outside the declared scope: gen/file%02d.go", i)})
	}
	return Outcome{Task: "001-retry", Verdict: VerdictBroken,
		Findings: fs[:n], Audit: ".mastermind/tasks/001-retry/audit.md", InputsFingerprint: strings.Repeat("a", 64)}
}

func TestDecide(t *testing.T) {
	fp := strings.Repeat("a", 64)
	lastSame := &BlockRecord{SchemaVersion: 1, Task: "001-retry", Fingerprint: fp, Verdict: VerdictBroken}
	lastOther := &BlockRecord{SchemaVersion: 1, Task: "001-retry", Fingerprint: strings.Repeat("b", 64), Verdict: VerdictBroken}
	held := Outcome{Task: "001-retry", Verdict: VerdictHeld, InputsFingerprint: fp}
	drift := Outcome{Task: "001-retry", Verdict: VerdictDrift,
		Findings: []finding.Finding{{Rule: "missing_expected_file", Class: finding.ClassWarning,
			Message: "declared in scope but unchanged since the baseline: docs/retry.md"}},
		Audit: ".mastermind/tasks/001-retry/audit.md", InputsFingerprint: fp}
	refused := Outcome{Task: "001-retry", Verdict: VerdictRefused,
		Reason: "spec.md changed since pre-flight approval; restore it or ask the planner for a new pre-flight"}

	tests := []struct {
		name      string
		fixture   string
		out       Outcome
		last      *BlockRecord
		opts      Options
		err       error
		wantBlock bool
		handBack  bool
	}{
		{"held", "claude-stop.json", held, nil, Options{}, nil, false, false},
		{"drift", "claude-stop.json", drift, nil, Options{}, nil, false, false},
		{"drift_fail_on_drift", "claude-stop.json", drift, nil, Options{FailOnDrift: true}, nil, true, false},
		{"broken", "codex-stop.json", brokenOutcome(2), nil, Options{}, nil, true, false},
		{"broken_many", "claude-subagent-stop.json", brokenOutcome(25), nil, Options{}, nil, true, false},
		{"refused", "codex-stop.json", refused, nil, Options{}, nil, true, false},
		// claude-stop.json has stop_hook_active: true.
		{"loop_guard_unchanged", "claude-stop.json", brokenOutcome(2), lastSame, Options{}, nil, false, true},
		{"loop_guard_changed", "claude-stop.json", brokenOutcome(2), lastOther, Options{}, nil, true, false},
		// codex-stop.json has stop_hook_active: false: the same inputs as last time still block
		// (a new turn, not a continuation).
		{"same_inputs_not_active", "codex-stop.json", brokenOutcome(2), lastSame, Options{}, nil, true, false},
		{"loop_guard_no_fingerprint", "claude-stop.json", refused, &BlockRecord{SchemaVersion: 1}, Options{}, nil, true, false},
		{"error", "codex-subagent-stop.json", Outcome{}, nil, Options{}, errors.New("git failed: fatal: not a git repository"), true, false},
		{"error_fail_open", "codex-subagent-stop.json", Outcome{}, nil, Options{FailOpen: true}, errors.New("task controller is busy"), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := ParseInput(bytes.NewReader(readFixture(t, "fixtures/"+tt.fixture)))
			if err != nil {
				t.Fatal(err)
			}
			var d Decision
			if tt.err != nil {
				d = DecideError("001-retry", tt.err, tt.opts)
			} else {
				d = Decide(in, tt.out, tt.last, tt.opts)
			}
			if d.Block != tt.wantBlock || d.HandBack != tt.handBack {
				t.Fatalf("Block=%v HandBack=%v, want %v %v (%+v)", d.Block, d.HandBack, tt.wantBlock, tt.handBack, d)
			}
			if tt.err == nil && d.Block && (d.Record == nil || d.Record.Fingerprint != tt.out.InputsFingerprint) {
				t.Errorf("a block of an audit outcome must carry its record, got %+v", d.Record)
			}
			out := d.JSON()
			// Every decision must be what the harness reads: Codex's published output schema
			// for the event, and valid JSON ending in a newline.
			schema := "stop.command.output.schema.json"
			if in.IsSubagent() {
				schema = "subagent-stop.command.output.schema.json"
			}
			if err := codexSchema(t, schema).Validate(jsonValue(t, out)); err != nil {
				t.Errorf("decision does not match %s: %v\n%s", schema, err, out)
			}
			if err := claudeSchema(t).Validate(jsonValue(t, out)); err != nil {
				t.Errorf("decision does not match the Claude Code output shape: %v\n%s", err, out)
			}
			goldenFile(t, filepath.Join("decisions", tt.name+".json"), out)
		})
	}
}

// A mistake in the hook's command line lets the stop through with a note naming the mistake and
// the settings file of the harness when it is known, both files otherwise.
func TestDecideUsageError(t *testing.T) {
	for name, h := range map[string]string{"usage_claude": Claude, "usage_unknown": "cursor"} {
		d := DecideUsageError(`unknown flag: --fail-onn`, h)
		if d.Block || d.SystemMessage == "" || d.Record != nil {
			t.Fatalf("%s: %+v", name, d)
		}
		out := d.JSON()
		for _, s := range []string{"stop.command.output.schema.json", "subagent-stop.command.output.schema.json"} {
			if err := codexSchema(t, s).Validate(jsonValue(t, out)); err != nil {
				t.Errorf("%s: %s: %v", name, s, err)
			}
		}
		if err := claudeSchema(t).Validate(jsonValue(t, out)); err != nil {
			t.Errorf("%s: Claude Code shape: %v", name, err)
		}
		goldenFile(t, filepath.Join("decisions", name+".json"), out)
	}
}

// The Claude Code shape is live too.
func TestClaudeOutputSchemaIsLive(t *testing.T) {
	s := claudeSchema(t)
	for _, bad := range []string{`{"decision":"block"}`, `{"decision":"approve","reason":"x"}`, `{"hookSpecificOutput":{}}`, `{"systemMessage":1}`} {
		if s.Validate(jsonValue(t, []byte(bad))) == nil {
			t.Errorf("%s passed the schema", bad)
		}
	}
}

// The published schema is live: a block without a reason, or an unknown key, fails it.
func TestCodexOutputSchemaIsLive(t *testing.T) {
	s := codexSchema(t, "stop.command.output.schema.json")
	for _, bad := range []string{`{"decision":"block"}`, `{"decision":"block","reason":"  "}`, `{"decision":"approve","reason":"x"}`, `{"ok":true}`} {
		if s.Validate(jsonValue(t, []byte(bad))) == nil {
			t.Errorf("%s passed the schema", bad)
		}
	}
}

func TestBlockReasonCapsFindings(t *testing.T) {
	r := BlockReason(brokenOutcome(25))
	if got := strings.Count(r, "\n- "); got != MaxReasonFindings {
		t.Errorf("%d findings listed, want %d", got, MaxReasonFindings)
	}
	if !strings.Contains(r, "… and 5 more in .mastermind/tasks/001-retry/audit.md") {
		t.Errorf("no overflow line:\n%s", r)
	}
	if !strings.HasSuffix(r, "\nNext: "+DefaultNextStep) {
		t.Errorf("no next step:\n%s", r)
	}
}

func TestBlockReasonEscapesControlCharacters(t *testing.T) {
	out := brokenOutcome(2)
	out.Findings[0].Message = "evil\x1b[31m\u202e name"
	r := BlockReason(out)
	if strings.ContainsAny(r, "\x1b\u202e") {
		t.Errorf("control characters leaked: %q", r)
	}
}

// memRecord is a RecordFile in memory.
type memRecord struct{ data []byte }

func (m *memRecord) ReadRecord() ([]byte, error)   { return m.data, nil }
func (m *memRecord) WriteRecord(data []byte) error { m.data = data; return nil }

func TestBlockRecordRoundTrip(t *testing.T) {
	path := &memRecord{}
	if r, err := LoadBlockRecord(path); r != nil || err != nil {
		t.Fatalf("missing record: %v %v", r, err)
	}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if err := SaveBlockRecord(path, BlockRecord{Task: "001-retry", Fingerprint: "ff", Verdict: VerdictBroken}, now); err != nil {
		t.Fatal(err)
	}
	r, err := LoadBlockRecord(path)
	if err != nil || r == nil || r.Fingerprint != "ff" || r.BlockedAt != "2026-12-01T09:00:00Z" || r.SchemaVersion != 1 {
		t.Fatalf("got %+v %v", r, err)
	}
	// A damaged record is ignored with a warning: the guard then blocks (never allows) by default.
	path.data = []byte("{not json")
	if r, err := LoadBlockRecord(path); r != nil || err == nil {
		t.Fatalf("damaged record: %v %v", r, err)
	}
}

// A verdict the hook does not know blocks (fail closed), and a reason of its own follows the
// verdict line.
func TestDecideUnknownVerdictBlocks(t *testing.T) {
	d := Decide(Input{}, Outcome{Task: "001-retry", Verdict: "retried", Reason: "why"}, nil, Options{})
	if !d.Block || !strings.Contains(d.Reason, "verdict retried (errors: 0, warnings: 0). why\n") {
		t.Fatalf("decision %+v", d)
	}
}
