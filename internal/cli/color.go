package cli

import (
	"errors"

	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
)

// colorMode is the value of the persistent --color flag.
type colorMode string

const (
	colorAuto   colorMode = "auto"
	colorAlways colorMode = "always"
	colorNever  colorMode = "never"
)

// Set implements pflag.Value: a value other than auto, always or never is a flag error, which the
// root's flag error function turns into a usage error (exit 2).
func (m *colorMode) Set(s string) error {
	switch v := colorMode(s); v {
	case colorAuto, colorAlways, colorNever:
		*m = v
		return nil
	}
	return errors.New("must be auto, always or never")
}

func (m *colorMode) String() string { return string(*m) }

// Type names the value in the help text: --color when.
func (m *colorMode) Type() string { return "when" }

// decideColor is the colour decision of conventions.md practice 5: always and never win; auto
// colours only a terminal, and not when NO_COLOR is non-empty or TERM is dumb.
func decideColor(mode colorMode, stdoutTTY bool, getenv func(string) string) bool {
	switch mode {
	case colorAlways:
		return true
	case colorNever:
		return false
	}
	return stdoutTTY && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// statusTone is the colour of a status or verdict word in the status table: the verdict held and
// the status learned green, drift yellow, the statuses blocked, broken, corrupt and not_a_task
// red. The verdicts drift and broken share the status words; the status blocked is never held.
func statusTone(word string) render.Tone {
	switch word {
	case string(postflight.VerdictHeld), postflight.StatusLearned:
		return render.TonePass
	case postflight.StatusDrift:
		return render.ToneWarn
	case postflight.StatusBlocked, postflight.StatusBroken, postflight.StatusCorrupt, postflight.StatusNotATask:
		return render.ToneFail
	}
	return render.ToneNone
}
