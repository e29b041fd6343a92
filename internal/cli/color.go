package cli

import (
	"errors"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/postflight"
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

// ANSI SGR sequences. The colours are all five bytes long, which tableCell relies on.
const (
	sgrReset   = "\x1b[0m"
	sgrRed     = "\x1b[31m"
	sgrGreen   = "\x1b[32m"
	sgrYellow  = "\x1b[33m"
	sgrDefault = "\x1b[39m"
)

// paint wraps s in sgr and a reset; s is unchanged when colour is off or sgr is empty.
func paint(on bool, sgr, s string) string {
	if !on || sgr == "" {
		return s
	}
	return sgr + s + sgrReset
}

// iconColor is the colour of a text line by its leading status icon: ✅ green, ⚠️ yellow,
// ❌ red; any other line has none.
func iconColor(line string) string {
	switch {
	case strings.HasPrefix(line, "✅"):
		return sgrGreen
	case strings.HasPrefix(line, "⚠️"):
		return sgrYellow
	case strings.HasPrefix(line, "❌"):
		return sgrRed
	}
	return ""
}

// paintIconLines colours every line of text that starts with a status icon (the verdict and
// summary lines; indented finding lines start with spaces and stay plain), resetting before the
// newline. With colour off, text is returned unchanged.
func paintIconLines(on bool, text string) string {
	if !on {
		return text
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimSuffix(line, "\n")
		b.WriteString(paint(true, iconColor(body), body))
		b.WriteString(line[len(body):])
	}
	return b.String()
}

// statusColor is the colour of a status or verdict word in the status table: held and learned
// green, drift yellow, broken, corrupt and not_a_task red. The verdicts share the status words.
func statusColor(word string) string {
	switch word {
	case postflight.StatusHeld, postflight.StatusLearned:
		return sgrGreen
	case postflight.StatusDrift:
		return sgrYellow
	case postflight.StatusBroken, postflight.StatusCorrupt, postflight.StatusNotATask:
		return sgrRed
	}
	return ""
}

// tableCell paints one cell of a tabwriter column. tabwriter counts escape sequences as text, so
// with colour on every cell of the column, header and uncoloured cells too, carries sequences of
// the same length (an uncoloured cell gets the default colour), and the visible text stays
// aligned.
func tableCell(on bool, sgr, s string) string {
	if sgr == "" {
		sgr = sgrDefault
	}
	return paint(on, sgr, s)
}
