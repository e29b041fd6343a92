package spec

import "testing"

// TestForbidsMatch: the gitignore semantics of lifecycle-v2.md §2 through go-git's matcher, on
// the patterns the design names and the cases where git's and ours are documented to differ.
func TestForbidsMatch(t *testing.T) {
	cases := []struct {
		patterns []string
		path     string
		want     string // the deciding pattern, "" when allowed
	}{
		{[]string{"tests/**"}, "tests/a_test.go", "tests/**"},
		{[]string{"tests/**"}, "tests/unit/deep/a_test.go", "tests/**"},
		{[]string{"tests/**"}, "src/tests/a_test.go", ""},
		{[]string{"tests/**"}, "tests_helper.go", ""},
		{[]string{"tests/"}, "src/tests/a_test.go", "tests/"},
		{[]string{".github/**"}, ".github/workflows/ci.yml", ".github/**"},
		{[]string{".github/**"}, "docs/.github/x", ""},
		{[]string{"package.json"}, "package.json", "package.json"},
		{[]string{"package.json"}, "web/app/package.json", "package.json"},
		{[]string{"/package.json"}, "web/package.json", ""},
		{[]string{"*.snap"}, "ui/__snapshots__/a.snap", "*.snap"},
		{[]string{"docs/*.md"}, "docs/sub/a.md", ""},
		{[]string{"src/**/gen_*.go"}, "src/gen_a.go", "src/**/gen_*.go"},
		{[]string{"tests/**", "!tests/fixtures/**"}, "tests/fixtures/a.json", ""},
		{[]string{"tests/**", "!tests/fixtures/**"}, "tests/a_test.go", "tests/**"},
		{[]string{"!tests/fixtures/**", "tests/**"}, "tests/fixtures/a.json", "tests/**"},
		{[]string{`\#notes`}, "#notes", `\#notes`},
		{nil, "anything", ""},
	}
	for _, tc := range cases {
		f, err := CompileForbids(tc.patterns)
		if err != nil {
			t.Fatalf("%q: %v", tc.patterns, err)
		}
		got, bad := f.Match(tc.path, false)
		if got != tc.want || bad != (tc.want != "") {
			t.Errorf("%q on %s = %q, %v; want %q", tc.patterns, tc.path, got, bad, tc.want)
		}
	}
}

// TestForbidPatternProblem: every refused pattern says why; the patterns of the design pass.
func TestForbidPatternProblem(t *testing.T) {
	for _, ok := range []string{"tests/**", ".github/**", "package.json", "/Makefile", "!tests/keep.go", "**/fixtures", `\#x`, "a[bc]d"} {
		if why := ForbidPatternProblem(ok); why != "" {
			t.Errorf("%q refused: %s", ok, why)
		}
	}
	for _, bad := range []string{"", " ", " a", "a ", "#x", "!", "/", "a//b", "./a", "a/../b", "src/[ab", `a\`, "a\tb", string(make([]byte, MaxForbidBytes+1))} {
		if ForbidPatternProblem(bad) == "" {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := CompileForbids([]string{"ok/**", "[x"}); err == nil {
		t.Error("CompileForbids accepted an invalid pattern")
	}
}

// BenchmarkForbidsMatch: the cost per changed path of the forbids check with the design's three
// patterns (the audit calls Match once per path of D; gitscope.md scenario B has 200,000).
func BenchmarkForbidsMatch(b *testing.B) {
	f, err := CompileForbids([]string{"tests/**", ".github/**", "package.json"})
	if err != nil {
		b.Fatal(err)
	}
	paths := []string{"src/pkg/sub/file_0001.go", "tests/unit/a_test.go", "web/app/package.json", "docs/guide/intro.md"}
	b.ResetTimer()
	for i := range b.N {
		f.Match(paths[i%len(paths)], false)
	}
}
