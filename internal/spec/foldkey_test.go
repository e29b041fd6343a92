package spec

import (
	"strconv"
	"strings"
	"testing"
)

// foldKey agrees with strings.EqualFold on every pair, including the characters whose simple
// case-folding orbit has three members (K k U+212A Kelvin; S s U+017F long s; Σ σ ς).
func TestFoldKeyMatchesEqualFold(t *testing.T) {
	words := []string{"Goals", "goals", "GOALS", "Tests Plan", "tests plan", "Kelvin", "\u212aelvin", "kelvin",
		"Ss", "\u017fs", "SS", "ß", "ẞ", "Σίσυφος", "ΣΊΣΥΦΟΣ", "σίσυφος", "ςίσυφος", "İstanbul", "istanbul", "ISTANBUL",
		"\xff", "\xfe", "", " ", "a\u0301", "á"}
	for _, a := range words {
		for _, b := range words {
			if got, want := foldKey(a) == foldKey(b), strings.EqualFold(a, b); got != want {
				t.Errorf("%q vs %q: foldKey equal %v, EqualFold %v", a, b, got, want)
			}
		}
	}
}

// Duplicate sections are found with one lookup each: 40,000 distinct sections took 3.5 s with
// a comparison of every pair; the duplicates (by EqualFold) are still each reported once.
func TestManySectionsDuplicates(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\ntouches: []\n---\n# T\n\n")
	const n = 40000
	for i := 0; i < n; i++ {
		b.WriteString("## s")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString("\nx\n")
	}
	b.WriteString("## S\u212a\nx\n## sk\nx\n")
	_, fs := Parse([]byte(b.String()), "spec.md")
	dups := 0
	for _, f := range fs {
		if f.Rule == RuleSectionDuplicate {
			dups++
		}
	}
	// 7 × 26 distinct names (7 and 26 are coprime), every later occurrence a duplicate; the two
	// extra sections "S<Kelvin>" and "sk" both repeat the "sk" among them.
	if want := n - 7*26 + 2; dups != want {
		t.Errorf("%d duplicate findings, want %d", dups, want)
	}
}

// BenchmarkDistinctSections: 40,000 distinct level-2 sections (3.5 s per parse when every pair
// was compared).
func BenchmarkDistinctSections(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("---\ntouches: []\n---\n# T\n\n")
	for i := 0; i < 40000; i++ {
		sb.WriteString("## s" + strconv.Itoa(i) + "\nx\n")
	}
	src := []byte(sb.String())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Parse(src, "spec.md")
	}
}
