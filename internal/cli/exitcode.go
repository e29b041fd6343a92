package cli

import (
	"context"
	"errors"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/postflight"
)

// Exit codes, mapped in this one place as the README's "Exit codes" lists them. Callers must treat
// any other code as a failure.
const (
	// ExitOK: the input passes, such as an approved pre-flight or a held post-flight.
	ExitOK = 0
	// ExitNotPassed: the input does not pass, such as a broken audit or a rejected report.
	ExitNotPassed = 1
	// ExitUsage: unknown command or flag, wrong argument count, conflicting flags.
	ExitUsage = 2
	// ExitOperational: not a git repository, git failing, lock busy, corrupt state, I/O error, panic.
	ExitOperational = 3
	// ExitEscalate: filter only; the third consecutive rejection of one dispatch.
	ExitEscalate = 4
)

// NotPassedError says the command ran correctly and the input does not pass (exit 1). Its message
// has usually been printed already; Silent suppresses printing it again.
type NotPassedError struct {
	Msg    string
	Silent bool
}

func (e *NotPassedError) Error() string { return e.Msg }

// ExitError carries an explicit exit code for commands whose contract defines its own table, such
// as forge-report and filter. Silent suppresses printing the message.
type ExitError struct {
	Code   int
	Msg    string
	Silent bool
	Err    error
}

func (e *ExitError) Error() string {
	if e.Msg == "" && e.Err != nil {
		return e.Err.Error()
	}
	return e.Msg
}

func (e *ExitError) Unwrap() error { return e.Err }

// exitCodeFor maps an error returned by the command tree to an exit code. Unknown errors are
// operational (3): fail closed.
func exitCodeFor(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	var ue *UsageError
	var np *NotPassedError
	switch {
	case errors.As(err, &ee):
		return ee.Code
	case errors.As(err, &ue):
		return ExitUsage
	case errors.As(err, &np):
		return ExitNotPassed
	case errors.Is(err, fsx.ErrLockBusy), errors.Is(err, context.DeadlineExceeded):
		return ExitOperational
	}
	return ExitOperational
}

// silent reports whether err's message has already been shown to the user.
func silent(err error) bool {
	var ee *ExitError
	var np *NotPassedError
	if errors.As(err, &ee) {
		return ee.Silent
	}
	if errors.As(err, &np) {
		return np.Silent
	}
	return false
}

// runTaskExitCode is the exit code of a run-task outcome (spec-and-lifecycle.md §13.1). A drift is
// 0, and 1 with failOnDrift unless the planner accepted it. An outcome run-task does not know is
// operational, failing closed.
func runTaskExitCode(outcome postflight.OutcomeKind, failOnDrift bool) int {
	switch outcome {
	case postflight.OutcomePreReady, postflight.OutcomePostHeld, postflight.OutcomeHistoryPending, postflight.OutcomeCompleted:
		return ExitOK
	case postflight.OutcomePostDrift:
		if failOnDrift {
			return ExitNotPassed
		}
		return ExitOK
	case postflight.OutcomePreRefused, postflight.OutcomePostBroken, postflight.OutcomePostRefused:
		return ExitNotPassed
	case postflight.OutcomeError, postflight.OutcomeAccepted, postflight.OutcomeAcceptRefused:
		return ExitOperational
	}
	return ExitOperational
}

// acceptExitCode is the exit code of an accept outcome (lifecycle-v2.md §3). An outcome accept does
// not know is operational, failing closed.
func acceptExitCode(outcome postflight.OutcomeKind) int {
	switch outcome {
	case postflight.OutcomeAccepted, postflight.OutcomeCompleted:
		return ExitOK
	case postflight.OutcomeAcceptRefused:
		return ExitNotPassed
	case postflight.OutcomeError, postflight.OutcomePreReady, postflight.OutcomePreRefused, postflight.OutcomePostHeld,
		postflight.OutcomePostDrift, postflight.OutcomePostBroken, postflight.OutcomePostRefused, postflight.OutcomeHistoryPending:
		return ExitOperational
	}
	return ExitOperational
}

// gateExitCode is the exit code of a gate result: 3 when any task has status error, failing closed,
// otherwise 1 when any task does not pass, else 0.
func gateExitCode(res *postflight.GateResult) int {
	if res.Count(postflight.GateError) > 0 {
		return ExitOperational
	}
	if !res.Passed() {
		return ExitNotPassed
	}
	return ExitOK
}

// resultError is the error a command returns for a result it has already printed: nil for
// ExitOK, otherwise the exit code with msg, silent.
func resultError(code int, msg string) error {
	switch code {
	case ExitOK:
		return nil
	case ExitNotPassed:
		return &NotPassedError{Msg: msg, Silent: true}
	}
	return &ExitError{Code: code, Msg: msg, Silent: true}
}
