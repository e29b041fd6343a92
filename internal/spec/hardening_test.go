package spec

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// hostileSpecs are 4 MiB bodies of the shapes that made goldmark quadratic, and frontmatter bombs;
// docs/hardening.md has the figures at the full 16 MiB.
func hostileSpecs() map[string][]byte {
	const size = 4 << 20
	rep := func(s string) []byte { return bytes.Repeat([]byte(s), size/len(s)) }
	var indented bytes.Buffer
	for i := 0; indented.Len() < size; i++ {
		indented.WriteString(strings.Repeat("  ", i%2000) + "- a\n")
	}
	fm := func(yaml string) []byte { return []byte("---\n" + yaml + "\n---\n## Goals\nx\n") }
	var alias strings.Builder
	alias.WriteString("x-a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 30; i++ {
		alias.WriteString("x-a" + string(rune('0'+i%10)) + strings.Repeat("_", i) + ": &b" + strings.Repeat("_", i) + " [*a0]\n")
	}
	return map[string][]byte{
		"quotes on one line":         rep("> "),
		"ordered items on one line":  rep("1. "),
		"indented list nesting":      indented.Bytes(),
		"unclosed link destinations": rep("[a]("),
		"mixed emphasis":             rep("_a*"),
		"backticks":                  rep("`a"),
		"frontmatter deep flow":      fm("x-deep: " + strings.Repeat("[", 1<<20)),
		"frontmatter alias":          fm(alias.String()),
		"frontmatter LS":             fm("title: a\u2028touches: []"),
	}
}

// Parse decides every hostile shape (unguarded, the indentation case took 77 s and the link case
// minutes at 16 MiB; BenchmarkHostileSpecs times them now) and fails closed on the frontmatter
// bombs.
func TestHostileSpecsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("cost test")
	}
	// No time is asserted (speed lives in BenchmarkHostileSpecs); a super-linear regression shows
	// up as go test's own timeout, and -v logs each duration.
	for name, src := range hostileSpecs() {
		start := time.Now()
		s, fs := Parse(src, "spec.md")
		el := time.Since(start)
		t.Logf("%s: %d bytes, %v, %d findings", name, len(src), el, len(fs))
		if strings.HasPrefix(name, "frontmatter") {
			invalid := false
			for _, f := range fs {
				invalid = invalid || f.Rule == RuleFrontmatterInvalid
			}
			if !invalid || s.Scope.Source == SourceBackticks {
				t.Errorf("%s: frontmatter accepted (scope %s): %v", name, s.Scope.Source, fs)
			}
		}
	}
}

// Invisible characters in what a spec message quotes are escaped: an unknown key "touches\u200b"
// must not read as the allowed "touches".
func TestSpecInvisibleCharactersEscaped(t *testing.T) {
	_, fs := Parse([]byte("---\ntouches\u200b: []\n---\n## Goals\nx\n"), "spec.md")
	var msgs []string
	for _, f := range fs {
		msgs = append(msgs, f.Message)
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, `touches\u200B`) || strings.ContainsRune(all, '\u200b') {
		t.Errorf("messages:\n%s", all)
	}
}

// BenchmarkHostileSpecs times Parse on each hostile shape.
func BenchmarkHostileSpecs(b *testing.B) {
	for name, src := range hostileSpecs() {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Parse(src, "spec.md")
			}
		})
	}
}
