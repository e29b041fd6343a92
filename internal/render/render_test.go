package render

import (
	"bytes"
	"testing"
)

type testView struct {
	text string
	tone Tone
	json any
	res  Findings
}

func (v testView) WriteText(t *Text)  { t.Line(v.tone, v.text) }
func (v testView) JSON() any          { return v.json }
func (v testView) Findings() Findings { return v.res }

type testEnvelope struct {
	Header
	Outcome string `json:"outcome"`
	Note    string `json:"note"`
}

// TestRenderers: text colours by tone only when allowed; JSON writes the envelope with the
// header keys first, 2-space indented, control characters escaped; an unknown format is refused.
func TestRenderers(t *testing.T) {
	v := testView{text: "✅ held", tone: TonePass, json: testEnvelope{Header: NewHeader("demo"), Outcome: "ok", Note: "a\u202eb<"}}
	cases := []struct {
		format string
		color  bool
		want   string
	}{
		{FormatText, false, "✅ held\n"},
		{FormatText, true, "\x1b[32m✅ held\x1b[0m\n"},
		{"", true, "\x1b[32m✅ held\x1b[0m\n"},
		{FormatJSON, true, "{\n  \"schema_version\": 1,\n  \"command\": \"demo\",\n  \"outcome\": \"ok\",\n  \"note\": \"a\\u202Eb<\"\n}\n"},
	}
	for _, c := range cases {
		r, err := For(c.format, Options{Color: c.color})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.Render(Streams{Out: &b}, v); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s color=%v: got %q, want %q", c.format, c.color, b.String(), c.want)
		}
	}
	if _, err := For("xml", Options{}); err == nil {
		t.Error("an unknown format was accepted")
	}
	var b bytes.Buffer
	if r, _ := For(FormatJSON, Options{}); r.Render(Streams{Out: &b}, testView{}) != nil || b.Len() != 0 {
		t.Errorf("a view without JSON wrote %q", b.String())
	}
}

// TestCellKeepsWidth: every coloured cell carries sequences of the same length, so tabwriter
// columns stay aligned; with colour off cells are unchanged.
func TestCellKeepsWidth(t *testing.T) {
	if Cell(false, ToneFail, "x") != "x" {
		t.Error("colour off changed a cell")
	}
	for _, tone := range []Tone{ToneNone, TonePass, ToneWarn, ToneFail} {
		if got := len(Cell(true, tone, "x")); got != len(Cell(true, ToneNone, "x")) {
			t.Errorf("tone %d: cell length %d", tone, got)
		}
	}
}

// TestDiagnostics: the text formats write a Diagnosed view's diagnostics to Err, JSON does not.
func TestDiagnostics(t *testing.T) {
	v := Plain{Text: func(t *Text) { t.WriteString("out\n") }, Envelope: map[string]int{"a": 1},
		Diagnostics: func(t *Text) { t.WriteString("note\n") }}
	for _, c := range []struct{ format, out, err string }{
		{FormatText, "out\n", "note\n"},
		{FormatGitHub, "out\n", "note\n"},
		{FormatJSON, "{\n  \"a\": 1\n}\n", ""},
	} {
		r, _ := For(c.format, Options{})
		var out, errOut bytes.Buffer
		if err := r.Render(Streams{Out: &out, Err: &errOut}, v); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.out || errOut.String() != c.err {
			t.Errorf("%s: out %q err %q", c.format, out.String(), errOut.String())
		}
	}
}
