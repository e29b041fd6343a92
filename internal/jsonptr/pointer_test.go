package jsonptr

import (
	"slices"
	"testing"
)

func TestEscapeUnescape(t *testing.T) {
	for _, tc := range []struct{ raw, esc string }{
		{"", ""},
		{"a", "a"},
		{"a b", "a b"},
		{"a%20b", "a%20b"},
		{"a/b", "a~1b"},
		{"~", "~0"},
		{"~1", "~01"},
		{"/~", "~1~0"},
		{"~/~/", "~0~1~0~1"},
		{"é/ü", "é~1ü"},
	} {
		if got := Escape(tc.raw); got != tc.esc {
			t.Errorf("Escape(%q) = %q, want %q", tc.raw, got, tc.esc)
		}
		if got := Unescape(tc.esc); got != tc.raw {
			t.Errorf("Unescape(%q) = %q, want %q", tc.esc, got, tc.raw)
		}
	}
	// Not RFC 6901: a lone or unknown escape stays as written.
	for _, s := range []string{"~", "a~", "~2", "~~"} {
		if got := Unescape(s); got != s {
			t.Errorf("Unescape(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestSplitJoin(t *testing.T) {
	for _, tc := range []struct {
		ptr  string
		toks []string
	}{
		{"", nil},
		{"/", []string{""}},
		{"/a", []string{"a"}},
		{"/a b/0", []string{"a b", "0"}},
		{"/a~1b/c~0d", []string{"a/b", "c~d"}},
		{"/%/~01", []string{"%", "~1"}},
		{"//", []string{"", ""}},
	} {
		if got := Split(tc.ptr); !slices.Equal(got, tc.toks) {
			t.Errorf("Split(%q) = %q, want %q", tc.ptr, got, tc.toks)
		}
		if got := Join(tc.toks...); got != tc.ptr {
			t.Errorf("Join(%q) = %q, want %q", tc.toks, got, tc.ptr)
		}
	}
}

func TestAppendParentLast(t *testing.T) {
	p := Append(Append("", "a/b"), "c~d")
	if p != "/a~1b/c~0d" {
		t.Fatalf("Append = %q", p)
	}
	if got := AppendIndex(p, 3); got != "/a~1b/c~0d/3" {
		t.Errorf("AppendIndex = %q", got)
	}
	if got := Parent(p); got != "/a~1b" {
		t.Errorf("Parent = %q", got)
	}
	if got := Parent("/a"); got != "" {
		t.Errorf("Parent(/a) = %q", got)
	}
	if got := Last(p); got != "c~d" {
		t.Errorf("Last = %q", got)
	}
	if got := Last(""); got != "" {
		t.Errorf("Last(\"\") = %q", got)
	}
}

func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "a", "~", "/", "~0~1", "a b", "%2F"} {
		f.Add(s, "x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if got := Unescape(Escape(a)); got != a {
			t.Fatalf("Unescape(Escape(%q)) = %q", a, got)
		}
		if got := Split(Join(a, b)); !slices.Equal(got, []string{a, b}) {
			t.Fatalf("Split(Join(%q, %q)) = %q", a, b, got)
		}
		if got := Last(Append("/p", a)); got != a {
			t.Fatalf("Last(Append(%q)) = %q", a, got)
		}
	})
}
