package textsafe

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain/path.go", "plain/path.go"},
		{"naïve ünïcode", "naïve ünïcode"},
		{"a\nb", `a\u000Ab`},
		{"\x1b[31mred", `\u001B[31mred`},
		{"x\u202Ey", `x\u202Ey`},
		{"\u2066\u2069\u061c\u200e", `\u2066\u2069\u061C\u200E`},
		{"\u0085", `\u0085`},
		{"bad\xffbyte", `bad\xFFbyte`},
		{"del\x7f", `del\u007F`},
		{"READ\u200BME.md", `READ\u200BME.md`},
		{"no\u00A0break", `no\u00A0break`},
		{"bom\uFEFF", `bom\uFEFF`},
		{"line\u2028sep", `line\u2028sep`},
		{"em — dash ⚠️ ✅", "em — dash ⚠️ ✅"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("a\x1b\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		out := Escape(s)
		for _, r := range out {
			if NeedsEscape(r) {
				t.Fatalf("Escape(%q) = %q still holds %U", s, out, r)
			}
		}
	})
}

func TestEscapeJSON(t *testing.T) {
	in := []byte("{\"path\":\"a\u202Eb\u0085c\x7f\",\"ok\":\"ü\"}")
	want := `{"path":"a\u202Eb\u0085c\u007F","ok":"ü"}`
	if got := string(EscapeJSON(in)); got != want {
		t.Fatalf("EscapeJSON = %s, want %s", got, want)
	}
	plain := []byte(`{"a":"b"}`)
	if got := EscapeJSON(plain); &got[0] != &plain[0] {
		t.Fatal("JSON with nothing to escape must be returned as is")
	}
}

func TestEscapeJSONBeyondBMP(t *testing.T) {
	in := []byte("\"tag\U000E0041x\"")
	want := `"tag\uDB40\uDC41x"`
	got := EscapeJSON(in)
	if string(got) != want {
		t.Fatalf("EscapeJSON = %s, want %s", got, want)
	}
	var a, b string
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &b); err != nil || a != b {
		t.Fatalf("escaped value %q (%v), want %q", b, err, a)
	}
}

// writeSplit writes js to a JSONWriter in pieces cut at the given offsets (taken modulo the
// remaining length) and returns what reached the underlying writer.
func writeSplit(t *testing.T, js []byte, cuts []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := NewJSONWriter(&out)
	rest := js
	for _, c := range cuts {
		if len(rest) == 0 {
			break
		}
		n := int(c) % (len(rest) + 1)
		if k, err := w.Write(rest[:n]); err != nil || k != n {
			t.Fatalf("Write = %d, %v; want %d, nil", k, err, n)
		}
		rest = rest[n:]
	}
	if _, err := w.Write(rest); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestJSONWriterSplitRunes(t *testing.T) {
	in := []byte("{\"a\":\"x\u202Eü\u0085\x7f\U000E0041€\xe2\x80\",\"b\":\"\xf0\x90A\xff\"}\xe2\x80")
	want := EscapeJSON(in)
	// Every way to cut the input in two and in three pieces.
	for i := 0; i <= len(in); i++ {
		for j := 0; j <= len(in)-i; j++ {
			if got := writeSplit(t, in, []byte{byte(i), byte(j)}); !bytes.Equal(got, want) {
				t.Fatalf("cut at %d, %d: got %q, want %q", i, i+j, got, want)
			}
		}
	}
	// One byte at a time.
	if got := writeSplit(t, in, bytes.Repeat([]byte{1}, len(in))); !bytes.Equal(got, want) {
		t.Fatalf("byte by byte: got %q, want %q", got, want)
	}
}

func FuzzJSONWriter(f *testing.F) {
	f.Add([]byte("{\"a\":\"x\u202Eü\u0085\x7f\U000E0041\"}"), []byte{3, 1, 1})
	f.Add([]byte("\xf0\x90A\xe2\x80\xe2\x80\xa8"), []byte{1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, js, cuts []byte) {
		want := EscapeJSON(js)
		if got := writeSplit(t, js, cuts); !bytes.Equal(got, want) {
			t.Fatalf("JSONWriter(%q, cuts %v) = %q, EscapeJSON = %q", js, cuts, got, want)
		}
		var a, b any
		if json.Unmarshal(js, &a) == nil {
			if err := json.Unmarshal(want, &b); err != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("EscapeJSON(%q) = %q decodes to %v (%v), want %v", js, want, b, err, a)
			}
		}
	})
}

type failWriter struct{ after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after -= len(p); w.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestJSONWriterError(t *testing.T) {
	w := NewJSONWriter(&failWriter{after: 2})
	if _, err := w.Write([]byte("abc\u202Edef")); err == nil {
		t.Fatal("Write returned no error from a failing writer")
	}
}
