package scaffold

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSlug(t *testing.T) {
	tests := []struct{ title, want string }{
		{"Add retry helper", "add-retry-helper"},
		{"  Add   retry\thelper  ", "add-retry-helper"},
		{"Fix #42: crash on empty input!", "fix-42-crash-on-empty-input"},
		{"CamelCase HTTPServer", "camelcase-httpserver"},
		{"über café", "ber-caf"},
		{"日本語", ""},
		{"---", ""},
		{"v1.2.3 release", "v1-2-3-release"},
		{"a_b-c.d", "a-b-c-d"},
		{"0", "0"},
		{"-leading and trailing-", "leading-and-trailing"},
		{strings.Repeat("word ", 20), "word-word-word-word-word-word-word-word-word-word"[:44]},
		{strings.Repeat("x", 60), strings.Repeat("x", MaxSlugBytes)},
	}
	for _, tt := range tests {
		if got := Slug(tt.title); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}

func TestCheckTitle(t *testing.T) {
	tests := []struct {
		title, want string
		errHas      string
	}{
		{"  Add retry helper ", "Add retry helper", ""},
		{"It's a \"quoted\" title: yes", "It's a \"quoted\" title: yes", ""},
		{"", "", "the title is empty"},
		{" \t ", "", "the title is empty"},
		{"two\nlines", "", "control, bidi or invalid UTF-8"},
		{"bidi \u202e trick", "", "control, bidi or invalid UTF-8"},
		{"bad \xff byte", "", "control, bidi or invalid UTF-8"},
		{"日本語", "", "no ASCII letter or digit"},
		{strings.Repeat("é", MaxTitleRunes) + "a", "", "characters long"},
		{strings.Repeat("é", MaxTitleRunes-1) + "a", strings.Repeat("é", MaxTitleRunes-1) + "a", ""},
	}
	for _, tt := range tests {
		got, err := CheckTitle(tt.title)
		if tt.errHas == "" {
			if err != nil || got != tt.want {
				t.Errorf("CheckTitle(%q) = %q, %v; want %q, nil", tt.title, got, err, tt.want)
			}
			continue
		}
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != "title" || !strings.Contains(ie.Msg, tt.errHas) {
			t.Errorf("CheckTitle(%q) error = %v; want an InputError containing %q", tt.title, err, tt.errHas)
		}
	}
}

func FuzzSlug(f *testing.F) {
	for _, s := range []string{"Add retry helper", "日本語", "", "a-b", strings.Repeat("ab ", 40), "\xff\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, title string) {
		s := Slug(title)
		if len(s) > MaxSlugBytes {
			t.Fatalf("Slug(%q) = %q: %d bytes, limit %d", title, s, len(s), MaxSlugBytes)
		}
		if s != "" && !TaskNamePattern.MatchString("001-"+s) {
			t.Fatalf("Slug(%q) = %q does not make a valid task name", title, s)
		}
		if !utf8.ValidString(s) || strings.Contains(s, "--") || strings.HasSuffix(s, "-") {
			t.Fatalf("Slug(%q) = %q is not a clean slug", title, s)
		}
	})
}
