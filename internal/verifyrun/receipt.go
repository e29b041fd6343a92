package verifyrun

import (
	"fmt"
	"strings"
	"time"
)

// SchemaVersion is the receipt's schema_version.
const SchemaVersion = 1

// Receipt is what mastermind saw when it ran one declared command (verification-receipts.md §3).
// Its JSON form is the stored receipts/<n>.json, keys in field order; fields marked omitempty are
// absent when unknown.
type Receipt struct {
	SchemaVersion int `json:"schema_version"`
	// Cmd is the declared command, byte for byte as in the spec (trimmed, §1.5).
	Cmd string `json:"cmd"`
	// StartedAt is the wall-clock start, UTC, millisecond precision.
	StartedAt time.Time `json:"started_at"`
	// DurationMS is the wall-clock run time in milliseconds, until the shell ended.
	DurationMS int64 `json:"duration_ms"`
	// TimeoutMS is the timeout the run had, in milliseconds.
	TimeoutMS int64 `json:"timeout_ms"`
	// ExitCode is the shell's exit status; -1 when a signal ended it or it was killed.
	ExitCode int `json:"exit_code"`
	// TimedOut is true when the timeout killed the run; such a run has failed.
	TimedOut bool `json:"timed_out"`
	// Signal names the signal that ended the shell ("SIGKILL"); absent when it exited.
	Signal string `json:"signal,omitempty"`
	// Runner is the recognised test runner (cargo, go, pytest, jest, vitest); absent when the
	// command is not recognised (spec-and-lifecycle.md §10.5.3).
	Runner string `json:"runner,omitempty"`
	// TestsRun and TestsFailed are the counts the runner grammar read from the output; absent
	// when the output did not show them.
	TestsRun    *int64 `json:"tests_run,omitempty"`
	TestsFailed *int64 `json:"tests_failed,omitempty"`
	// OutputTail is the last TailBytes bytes of the interleaved output in whole UTF-8 sequences.
	// OutputSHA256 and OutputBytes cover the whole stream.
	OutputTail   string `json:"output_tail"`
	OutputSHA256 string `json:"output_sha256"`
	OutputBytes  int64  `json:"output_bytes"`
	// InputsFingerprint is the post-flight inputs fingerprint the run belongs to
	// (lifecycle-v2.md §5); "" when the caller gave none.
	InputsFingerprint string `json:"inputs_fingerprint"`
}

// Passed reports whether the run succeeded: exit 0, not timed out, not ended by a signal.
func (r *Receipt) Passed() bool {
	return r.ExitCode == 0 && !r.TimedOut && r.Signal == ""
}

// Outcome renders how the run ended: "exit 0", "exit 1", "timed out after 10m0s", "killed by
// SIGKILL".
func (r *Receipt) Outcome() string {
	switch {
	case r.TimedOut:
		return "timed out after " + (time.Duration(r.TimeoutMS) * time.Millisecond).String()
	case r.Signal != "":
		return "killed by " + r.Signal
	}
	return fmt.Sprintf("exit %d", r.ExitCode)
}

// Summary is the audit.md text for the run: "ran by mastermind: exit 0, 142 tests, 12.3 s",
// that is seen and the duration. The tests part is absent when the count is unknown; failed tests
// are named when known.
func (r *Receipt) Summary() string {
	return fmt.Sprintf("ran by mastermind: %s, %.1f s", r.seen(), float64(r.DurationMS)/1000)
}

// seen is what the run showed, without its duration: "exit 1, 3 tests (1 failed)".
func (r *Receipt) seen() string {
	parts := []string{r.Outcome()}
	if r.TestsRun != nil {
		t := fmt.Sprintf("%d tests", *r.TestsRun)
		if *r.TestsRun == 1 {
			t = "1 test"
		}
		if r.TestsFailed != nil && *r.TestsFailed > 0 {
			t += fmt.Sprintf(" (%d failed)", *r.TestsFailed)
		}
		parts = append(parts, t)
	} else if r.TestsFailed != nil && *r.TestsFailed > 0 {
		parts = append(parts, fmt.Sprintf("%d tests failed", *r.TestsFailed))
	}
	return strings.Join(parts, ", ")
}

// LastLines returns up to n last non-empty lines of the output tail, joined by "\n", for a
// verification_failed message. The text is as the command wrote it; callers escape it.
func (r *Receipt) LastLines(n int) string {
	lines := strings.Split(strings.TrimRight(r.OutputTail, "\r\n\t "), "\n")
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		l := strings.TrimRight(lines[i], "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		out = append(out, l)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return strings.Join(out, "\n")
}
