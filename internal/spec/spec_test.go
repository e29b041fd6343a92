package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/golden"
)

// render writes the parse result in the golden text form: findings (with their kind fields), then
// the parsed contract.
func render(s *Spec, fs []finding.Finding) string {
	var b strings.Builder
	b.WriteString("# findings\n")
	for _, f := range fs {
		f.Message = abbrev(f.Message)
		b.WriteString(f.String())
		for _, fl := range f.Fields {
			fmt.Fprintf(&b, " %s=%v", fl.Key, abbrev(fmt.Sprint(fl.Value)))
		}
		b.WriteByte('\n')
	}
	if s == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "# spec\nhash: %s\nfrontmatter: %v\ntitle: %q\n", s.Hash, s.HasFrontmatter, s.Title)
	fm := s.Frontmatter
	fmt.Fprintf(&b, "id: %q fm-title: %q risk: %s mode: %s\n", fm.ID, fm.Title, fm.Risk, fm.Mode)
	for _, t := range fm.Touches {
		fmt.Fprintf(&b, "touch: %q language=%q symbols=%d\n", abbrev(t.File), t.Language, len(t.Symbols))
	}
	if fm.BreakingChanges != nil {
		fmt.Fprintf(&b, "breaking_changes: %d removed symbols\n", len(fm.BreakingChanges.RemovedSymbols))
	}
	b.WriteString("# sections\n")
	for _, sec := range s.Sections {
		fmt.Fprintf(&b, "%d %q heading=%q nonempty=%v body=%q\n", sec.Line, sec.Name, sec.Heading, sec.NonEmpty, sec.Body)
	}
	sc := s.Scope
	fmt.Fprintf(&b, "# scope\nsource: %s\n", sc.Source)
	for _, l := range []struct {
		name string
		v    []string
	}{{"declared", sc.Declared}, {"touches", sc.Touches}, {"creates", sc.Creates},
		{"expected_docs", sc.ExpectedDocs}, {"deletes", sc.Deletes}, {"forbids", s.Forbids.Patterns()},
		{"ignored", sc.IgnoredTokens}} {
		switch {
		case len(l.v) > 12:
			fmt.Fprintf(&b, "%s: %d paths, first %q, last %q\n", l.name, len(l.v), abbrev(l.v[0]), abbrev(l.v[len(l.v)-1]))
		case len(l.v) > 0:
			fmt.Fprintf(&b, "%s: %q\n", l.name, l.v)
		}
	}
	b.WriteString("# verify\n")
	for _, c := range s.VerifyCommands {
		fmt.Fprintf(&b, "cmd: %q\n", c)
	}
	for _, l := range s.VerifyLabels {
		fmt.Fprintf(&b, "label: %q\n", l)
	}
	return b.String()
}

// TestGolden parses every testdata/*.md and compares the rendered result with the .out beside it.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range files {
		name := strings.TrimSuffix(filepath.Base(in), ".md")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			s, fs := Parse(data, ".mastermind/tasks/001-x/spec.md")
			got := render(s, fs)
			out := strings.TrimSuffix(in, ".md") + ".out"
			golden.Check(t, out, []byte(got))
		})
	}
}

// abbrev shortens strings longer than 300 bytes for golden files: the first 150 bytes, then the
// total length.
func abbrev(s string) string {
	if len(s) <= 300 {
		return s
	}
	return fmt.Sprintf("%s…(%d bytes)", s[:150], len(s))
}
