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
