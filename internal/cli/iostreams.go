package cli

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the injected standard streams. The TTY is decided once in Main and colour once,
// from --color, before any command runs (conventions.md practice 5); tests use buffers with both
// off.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// IsStdoutTTY is true when Out is a terminal; IsStderrTTY when ErrOut is one, for progress
	// lines.
	IsStdoutTTY bool
	IsStderrTTY bool
	// ColorEnabled is true when coloured text may be written to Out; the root command's
	// PersistentPreRunE sets it (decideColor).
	ColorEnabled bool
}

// systemStreams builds IOStreams for the real process, with IsStdoutTTY set when stdout is a
// terminal. A character device is not enough: /dev/null is one, and output sent there is not
// read by anyone, so term.IsTerminal asks the terminal driver.
func systemStreams(in io.Reader, out, errOut io.Writer) *IOStreams {
	s := &IOStreams{In: in, Out: out, ErrOut: errOut}
	if f, ok := out.(*os.File); ok {
		s.IsStdoutTTY = term.IsTerminal(int(f.Fd()))
	}
	if f, ok := errOut.(*os.File); ok {
		s.IsStderrTTY = term.IsTerminal(int(f.Fd()))
	}
	return s
}
