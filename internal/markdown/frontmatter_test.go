package markdown

import "testing"

func TestSplitFrontmatter(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Frontmatter
		yaml string
	}{
		{"none", "# title\n", Frontmatter{}, ""},
		{"bom is the caller's", "\uFEFF---\na: 1\n---\n", Frontmatter{}, ""},
		{"leading blank", " ---\na: 1\n---\n", Frontmatter{}, ""},
		{"lf", "---\na: 1\n---\nbody\n", Frontmatter{true, true, 4, 9, 13}, "a: 1\n"},
		{"crlf, trailing blanks", "---\r\na: 1\r\n--- \t\r\nbody", Frontmatter{true, true, 5, 11, 18}, "a: 1\r\n"},
		{"closing at end without newline", "---\na: 1\n---", Frontmatter{true, true, 4, 9, 12}, "a: 1\n"},
		{"empty", "---\n---\n", Frontmatter{true, true, 4, 4, 8}, ""},
		{"four dashes do not close", "---\na: 1\n----\nb\n", Frontmatter{Present: true, Start: 4}, ""},
		{"indented dashes do not close", "---\na: 1\n ---\n", Frontmatter{Present: true, Start: 4}, ""},
		{"opening line only", "---\n", Frontmatter{Present: true, Start: 4}, ""},
		{"opening needs its own line", "---x\n---\n", Frontmatter{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitFrontmatter([]byte(tt.in))
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			if got.Closed && tt.in[got.Start:got.End] != tt.yaml {
				t.Fatalf("yaml %q, want %q", tt.in[got.Start:got.End], tt.yaml)
			}
		})
	}
}
