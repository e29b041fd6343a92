package spec

import (
	"fmt"
	"time"

	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// Timeout bounds of a declared command that mastermind runs (verification-receipts.md §1).
const (
	DefaultVerifyTimeout = 10 * time.Minute
	MaxVerifyTimeout     = 2 * time.Hour
)

// DeclaredCommand is one §1.5 command obligation as mastermind may run it
// (verification-receipts.md §1).
type DeclaredCommand struct {
	// Cmd is the command, trimmed, byte for byte as in VerifyCommands.
	Cmd string
	// Run is true when the frontmatter item says run: true or run: witnessed. Body VERIFY
	// lines never set it; run-task --run-verify runs every declared command regardless.
	// Witnessed is true for run: witnessed: a run the harness transcript shows passing on the
	// unchanged inputs stands in for mastermind's (docs/design/transcripts.md §6).
	Run, Witnessed bool
	// Timeout is the effective timeout: the item's timeout, or DefaultVerifyTimeout.
	Timeout time.Duration
	// Line is the spec.md line that declared the command (its first declaration).
	Line int
}

// verifyFields are the keys allowed in a frontmatter verify command item.
var verifyFields = []string{"cmd", "run", "timeout"}

// fmCmd is a frontmatter {cmd} item with its position and options.
type fmCmd struct {
	posString
	run, witnessed bool
	timeout        time.Duration // 0 when absent or invalid
}

func (c fmCmd) effectiveTimeout() time.Duration {
	if c.timeout == 0 {
		return DefaultVerifyTimeout
	}
	return c.timeout
}

// RunWitnessed is the verify run value that lets the harness transcript stand in for
// mastermind's run (docs/design/transcripts.md §6).
const RunWitnessed = "witnessed"

// verifyRun checks verify[i].run, a boolean or the string witnessed, which reads as true. An
// invalid value is recorded and reads as false.
func (w *fmWalker) verifyRun(ptr string) (run, witnessed bool) {
	v := w.value(ptr)
	if v == nil {
		w.invalid = true
		return false, false
	}
	if s, ok := v.(string); ok && s == RunWitnessed {
		return true, true
	}
	b, ok := v.(bool)
	if !ok {
		n := w.node(ptr)
		msg := fmt.Sprintf("%s must be true, false or witnessed; got %s", yamlstrict.FieldName(ptr), kindName(n))
		if n.Kind == yamlstrict.KindString && !n.Plain && (n.Literal == "true" || n.Literal == "false") {
			msg += " — remove the quotes"
		}
		w.fail(ptr, msg)
		return false, false
	}
	return b, false
}

// verifyTimeout checks verify[i].timeout, a Go duration string such as 90s above 0 and at most
// MaxVerifyTimeout. An invalid value is recorded and reads as 0, the default.
func (w *fmWalker) verifyTimeout(ptr string) time.Duration {
	v := w.value(ptr)
	if v == nil {
		w.invalid = true
		return 0
	}
	name := yamlstrict.FieldName(ptr)
	s, ok := v.(string)
	if !ok {
		n := w.node(ptr)
		msg := fmt.Sprintf("%s must be a duration such as 90s, 10m or 1h30m; got %s", name, kindName(n))
		if n.Kind == yamlstrict.KindInt {
			msg += fmt.Sprintf(" — add a unit, for example %ss", n.Literal)
		}
		w.fail(ptr, msg)
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		w.fail(ptr, fmt.Sprintf("%s must be a duration such as 90s, 10m or 1h30m (units ms, s, m, h); got %q", name, s))
		return 0
	}
	if d <= 0 || d > MaxVerifyTimeout {
		w.fail(ptr, fmt.Sprintf("%s must be more than 0 and at most %s; got %s", name, "2h", s))
		return 0
	}
	return d
}
