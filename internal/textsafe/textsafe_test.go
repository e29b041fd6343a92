package textsafe

import "testing"

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
