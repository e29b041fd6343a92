package gitscope

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestSimilarityMatchesGit: Similarity equals the similarity index git itself prints for a
// staged deletion + addition (`git diff --cached -M1% --name-status`, R<score>), on text with
// LF and CRLF, long lines, binary content and edits of every size; and with the default -M,
// git pairs exactly the files that score at least RenameThreshold.
func TestSimilarityMatchesGit(t *testing.T) {
	lines := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i) + "\n")
		}
		return b.String()
	}
	base := lines(40, func(i int) string { return fmt.Sprintf("line %d of the original file", i) })
	cases := []struct{ name, src, dst string }{
		{"identical", base, base},
		{"one line edited", base, strings.Replace(base, "line 7 of", "line 7 in", 1)},
		{"a quarter edited", base, lines(40, func(i int) string {
			if i%4 == 0 {
				return fmt.Sprintf("changed %d", i)
			}
			return fmt.Sprintf("line %d of the original file", i)
		})},
		{"half edited", base, lines(40, func(i int) string {
			if i%2 == 0 {
				return fmt.Sprintf("changed line %d of the new file", i)
			}
			return fmt.Sprintf("line %d of the original file", i)
		})},
		{"two thirds edited", base, lines(40, func(i int) string {
			if i%3 != 0 {
				return fmt.Sprintf("changed line %d of the new file", i)
			}
			return fmt.Sprintf("line %d of the original file", i)
		})},
		{"lines appended", base, base + lines(15, func(i int) string { return fmt.Sprintf("appended %d", i) })},
		{"CRLF", base, strings.ReplaceAll(base, "\n", "\r\n")},
		{"long lines", strings.Repeat("x", 500) + "\n" + strings.Repeat("y", 300), strings.Repeat("x", 450) + "z\n" + strings.Repeat("y", 300)},
		{"binary", "\x00\x01" + base, "\x00\x02" + strings.Replace(base, "line 3", "LINE 3", 1)},
		{"unrelated", base, lines(40, func(i int) string { return fmt.Sprintf("something else entirely %d", i*7) })},
		{"no final newline", "a\nb\nc", "a\nb\nd"},
		{"short, no newline, equal", "abc", "abc"},
		{"trailing partial span", strings.Repeat("q", 100) + "\n" + strings.Repeat("r", 40), strings.Repeat("q", 100) + "\n" + strings.Repeat("r", 39) + "s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Similarity([]byte(tc.src), []byte(tc.dst))
			f := newFixture(t)
			f.write("old.txt", tc.src)
			f.commitAll("base")
			f.git("rm", "-q", "old.txt")
			f.write("new.txt", tc.dst)
			f.git("add", "new.txt")
			out := f.git("-c", "core.autocrlf=false", "diff", "--cached", "-M1%", "--name-status")
			want := 0
			if strings.HasPrefix(out, "R") {
				want, _ = strconv.Atoi(strings.Fields(out)[0][1:])
			}
			if got != want {
				t.Errorf("Similarity = %d, git says %d (%q)", got, want, out)
			}
			def := f.git("-c", "core.autocrlf=false", "diff", "--cached", "-M", "--name-status")
			if paired := strings.HasPrefix(def, "R"); paired != (got >= RenameThreshold) {
				t.Errorf("score %d, but git -M pairs: %v (%q)", got, paired, def)
			}
		})
	}
}

// TestSimilaritySizeReject: sizes more than half apart score 0 unread, as in git; empty files too.
func TestSimilaritySizeReject(t *testing.T) {
	a := strings.Repeat("same line\n", 10)
	if s := Similarity([]byte(a), []byte(a+a+a)); s != 0 {
		t.Errorf("a tripled file scores %d", s)
	}
	if s := Similarity(nil, nil); s != 0 {
		t.Errorf("two empty files score %d", s)
	}
	if s := Similarity([]byte(a), []byte(a)); s != 100 {
		t.Errorf("identical files score %d", s)
	}
}
