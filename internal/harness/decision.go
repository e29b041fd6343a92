package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// Verdict is what the hook makes of a post-flight: its audit verdict, or VerdictRefused for a
// post-flight that refused to audit.
type Verdict string

// The verdicts an Outcome can carry.
const (
	VerdictHeld    Verdict = "held"
	VerdictDrift   Verdict = "drift"
	VerdictBroken  Verdict = "broken"
	VerdictRefused Verdict = "refused"
)

// MaxReasonFindings is the number of findings a block reason lists (integrations.md §2); the
// rest are counted and left to audit.md.
const MaxReasonFindings = 20

// Outcome is what the post-flight of one task produced, as the hook needs it. The caller fills
// it from the same audit the CLI runs; the package never audits itself.
type Outcome struct {
	Task    string // task folder name, "<NNN>-<slug>"
	Verdict Verdict
	// Accepted is set for a drift the planner accepted, which --fail-on drift lets through as
	// run-task's exit code does.
	Accepted bool
	// Reason is why the post-flight did not pass in words of its own, such as a refusal's; "" when
	// its verdict and counts say it all.
	Reason   string
	Findings []finding.Finding // audit findings and report violations, in audit order
	Audit    string            // repository-relative path of audit.md, "" when none was written
	// InputsFingerprint identifies the audited inputs, lifecycle-v2.md §5; "" disables the loop
	// guard for this outcome.
	InputsFingerprint string
}

// Options are the `hook run` flags that change the decision.
type Options struct {
	FailOnDrift bool // --fail-on drift: a drift verdict blocks too
	FailOpen    bool // --fail-open: an operational error allows the stop instead of blocking
}

// Decision is the hook's answer. Its JSON (Decision.JSON) goes to stdout with exit status 0.
type Decision struct {
	Block  bool
	Reason string // the block reason, shown to the agent as its next instruction
	// SystemMessage is an allow's note to the user; "" for a plain allow.
	SystemMessage string
	// HandBack is true when the loop guard let an unchanged, still-blocking task stop, so the task
	// goes back to the planner.
	HandBack bool
	// Record is the loop-guard record to save after a block of an audit outcome; nil otherwise.
	Record *BlockRecord
}

// DefaultNextStep ends a block reason with findings and DefaultRefusedStep a refusal's. Neither
// may invite the agent to remove its own hook or edit the controller's records, which are the
// planner's (integrations.md §2).
const (
	DefaultNextStep = "Fix the findings about your work above and update executor-report.md to match what you changed, then stop again: mastermind re-runs the post-flight when you stop. " +
		"Do not edit or remove the mastermind hook, the harness settings (.claude/settings.json, .codex/hooks.json) or mastermind's records under .mastermind/ (only executor-report.md is yours): " +
		"a finding about them is for the planner, so if only such findings remain, stop again without changing anything and the task goes back to the planner."
	DefaultRefusedStep = "Resolve the problem above (or ask the user to), then stop again: mastermind re-runs the post-flight when you stop."
)

// Allow is the plain "let the agent stop" decision: `{}`.
func Allow() Decision { return Decision{} }

// AllowNoRepository is the decision in a folder dir with no git repository at or above it. There
// is no task to audit, so the stop is allowed, with a note saying why.
func AllowNoRepository(dir string) Decision {
	return Decision{SystemMessage: fmt.Sprintf("mastermind: no git repository at %s or above it, so there is no task to audit; the stop is allowed.", textsafe.Escape(dir))}
}

// Decide turns a post-flight outcome into the hook decision of integrations.md §2: allow what
// passes, block the rest with BlockReason, and let the loop guard hand an unchanged block back to
// the planner. last is the previous block's record for this task, nil when there is none.
func Decide(in Input, out Outcome, last *BlockRecord, opts Options) Decision {
	if !blocks(out, opts) {
		return Allow()
	}
	if in.StopHookActive && last != nil && out.InputsFingerprint != "" && last.Fingerprint == out.InputsFingerprint {
		return Decision{HandBack: true, SystemMessage: fmt.Sprintf(
			"mastermind: task %s is still %s and nothing changed since the last block; stopping and handing back to the planner (next_step: planner_review). %s",
			textsafe.Escape(out.Task), out.Verdict, auditPointer(out))}
	}
	rec := &BlockRecord{Task: out.Task, Fingerprint: out.InputsFingerprint, Verdict: out.Verdict, SessionID: in.SessionID}
	return Decision{Block: true, Reason: BlockReason(out), Record: rec}
}

// blocks reports whether outcome out keeps the agent working. A verdict the hook does not know
// blocks, failing closed.
func blocks(out Outcome, opts Options) bool {
	switch out.Verdict {
	case VerdictHeld:
		return false
	case VerdictDrift:
		return opts.FailOnDrift && !out.Accepted
	case VerdictBroken, VerdictRefused:
		return true
	}
	return true
}

// DecideError is the decision when the audit could not run: a block with the error text, or with
// opts.FailOpen an allow that tells the user why.
func DecideError(task string, err error, opts Options) Decision {
	what := "the post-flight"
	if task != "" {
		what = "the post-flight of task " + textsafe.Escape(task)
	}
	msg := textsafe.Escape(err.Error())
	if opts.FailOpen {
		return Decision{SystemMessage: fmt.Sprintf("mastermind: %s could not run (%s); the stop is allowed because of --fail-open.", what, msg)}
	}
	return Decision{Block: true, Reason: fmt.Sprintf(
		"mastermind could not run %s: %s\nNext: fix the cause named above (or ask the user to), then stop again. The hook fails closed: it blocks until the audit can run.", what, msg)}
}

// DecideUsageError is the decision for a mistake in the hook's own command line: allow the stop and
// tell the user what to fix, since a block would hand the usage text to the agent on every stop.
// harness is the --harness value as far as it was read.
func DecideUsageError(msg, harness string) Decision {
	where := ClaudeSettingsRel + " or " + CodexHooksRel
	install := "mastermind hook install --harness claude|codex"
	if rel := SettingsRel(harness); rel != "" {
		where, install = rel, "mastermind hook install --harness "+harness
	}
	return Decision{SystemMessage: fmt.Sprintf(
		"mastermind: the stop hook's command line is wrong (%s), so this stop was allowed without an audit. Fix the hook command in %s: `%s` rewrites it; `mastermind hook run --help` lists the flags.",
		textsafe.Escape(msg), where, install)}
}

// BlockReason renders the reason of a block: the verdict line, up to MaxReasonFindings findings, a
// count of the rest with the audit.md path, and the next step. Control and bidi characters are
// escaped.
func BlockReason(out Outcome) string {
	var b strings.Builder
	e, w := finding.Count(out.Findings)
	fmt.Fprintf(&b, "mastermind: task %s does not pass its post-flight: verdict %s (errors: %d, warnings: %d).", textsafe.Escape(out.Task), out.Verdict, e, w)
	if out.Reason != "" {
		b.WriteString(" ")
		b.WriteString(textsafe.Escape(out.Reason))
	}
	n := len(out.Findings)
	if n > 0 {
		b.WriteString("\nFindings:")
	}
	for i, f := range out.Findings {
		if i == MaxReasonFindings {
			fmt.Fprintf(&b, "\n… and %d more", n-MaxReasonFindings)
			if out.Audit != "" {
				fmt.Fprintf(&b, " in %s", textsafe.Escape(out.Audit))
			}
			break
		}
		b.WriteString("\n- ")
		b.WriteString(textsafe.Escape(f.String()))
	}
	next := DefaultNextStep
	if n == 0 {
		next = DefaultRefusedStep
	}
	b.WriteString("\nNext: ")
	b.WriteString(next)
	return b.String()
}

func auditPointer(out Outcome) string {
	if out.Audit == "" {
		return ""
	}
	return "See " + textsafe.Escape(out.Audit) + "."
}

// JSON is the hook's stdout with a trailing newline: a block with its reason, `{}` for a plain
// allow, or a systemMessage for an allow with a note. Claude Code and Codex both accept these
// shapes.
func (d Decision) JSON() []byte {
	var v any
	switch {
	case d.Block:
		v = struct {
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
		}{"block", d.Reason}
	case d.SystemMessage != "":
		v = struct {
			SystemMessage string `json:"systemMessage"`
		}{d.SystemMessage}
	default:
		v = struct{}{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only strings are encoded; this cannot fail. Fail closed all the same.
		return []byte(`{"decision":"block","reason":"mastermind: internal error encoding the hook decision"}` + "\n")
	}
	return buf.Bytes()
}
