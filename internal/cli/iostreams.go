package cli

import (
	"io"
	"os"
)

// IOStreams are the injected standard streams. Colour and TTY are decided once in Main
// (conventions.md practice 5); tests use buffers with both off.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// IsStdoutTTY is true when Out is a terminal.
	IsStdoutTTY bool
	// ColorEnabled is true when coloured text may be written to Out.
	ColorEnabled bool
}

// systemStreams builds IOStreams for the real process: colour only on a terminal, off when
// NO_COLOR is non-empty or TERM=dumb.
func systemStreams(in io.Reader, out, errOut io.Writer) *IOStreams {
	s := &IOStreams{In: in, Out: out, ErrOut: errOut}
	if f, ok := out.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			s.IsStdoutTTY = true
		}
	}
	s.ColorEnabled = s.IsStdoutTTY && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	return s
}
