package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// Tone is the colour role of a text line or cell, decided from the result it shows (a verdict,
// a status), never from the text.
type Tone int

// Tones: none (plain), pass (green), warn (yellow), fail (red).
const (
	ToneNone Tone = iota
	TonePass
	ToneWarn
	ToneFail
)

// Icon is the mark of a tone in text lines and summaries: ✅ pass, ⚠️ warn, ❌ fail, none "".
func (t Tone) Icon() string {
	switch t {
	case TonePass:
		return "✅"
	case ToneWarn:
		return "⚠️"
	case ToneFail:
		return "❌"
	}
	return ""
}

// ClassTone is the tone of a finding class: warn for a warning, fail for an error.
func ClassTone(c finding.Class) Tone {
	if c == finding.ClassWarning {
		return ToneWarn
	}
	return ToneFail
}

// ANSI SGR sequences. The colours are all five bytes long, which Cell relies on.
const (
	sgrReset   = "\x1b[0m"
	sgrRed     = "\x1b[31m"
	sgrGreen   = "\x1b[32m"
	sgrYellow  = "\x1b[33m"
	sgrDefault = "\x1b[39m"
)

func (t Tone) sgr() string {
	switch t {
	case TonePass:
		return sgrGreen
	case ToneWarn:
		return sgrYellow
	case ToneFail:
		return sgrRed
	}
	return ""
}

// Text is human text being written, with colour when the caller allows it.
type Text struct {
	b     strings.Builder
	Color bool
}

// Line writes s and a newline, in tone's colour (reset before the newline) when colour is on.
func (t *Text) Line(tone Tone, s string) {
	t.b.WriteString(Paint(t.Color, tone, s))
	t.b.WriteByte('\n')
}

// Printf writes plain formatted text.
func (t *Text) Printf(format string, a ...any) { fmt.Fprintf(&t.b, format, a...) }

// Write writes plain bytes (Text is an io.Writer, for tabwriter and the like).
func (t *Text) Write(p []byte) (int, error) { return t.b.Write(p) }

// Grow makes room for n more bytes, so a writer that knows its size copies once.
func (t *Text) Grow(n int) { t.b.Grow(n) }

// WriteString writes plain text.
func (t *Text) WriteString(s string) { t.b.WriteString(s) }

// String is the text written so far.
func (t *Text) String() string { return t.b.String() }

// Paint wraps s in tone's colour and a reset; s is unchanged when colour is off or tone is none.
func Paint(on bool, tone Tone, s string) string {
	if !on || tone == ToneNone {
		return s
	}
	return tone.sgr() + s + sgrReset
}

// Cell paints one cell of a tabwriter column. tabwriter counts escape sequences as text, so with
// colour on every cell of the column, header and plain cells too, carries sequences of the same
// length (a plain cell gets the default colour), and the visible text stays aligned.
func Cell(on bool, tone Tone, s string) string {
	if !on {
		return s
	}
	sgr := tone.sgr()
	if sgr == "" {
		sgr = sgrDefault
	}
	return sgr + s + sgrReset
}

// textRenderer writes View.WriteText to Out and the diagnostics of a Diagnosed view to Err
// (plain: colour is decided for Out).
type textRenderer struct{ color bool }

func (r textRenderer) Render(s Streams, v View) error {
	if d, ok := v.(Diagnosed); ok && s.Err != nil {
		t := &Text{}
		d.WriteDiagnostics(t)
		if _, err := io.WriteString(s.Err, t.String()); err != nil {
			return err
		}
	}
	t := &Text{Color: r.color}
	v.WriteText(t)
	_, err := io.WriteString(s.Out, t.String())
	return err
}
