package scaffold

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/golden"
	"github.com/mastermind-controller/mastermind/internal/spec"
)

const specFile = ".mastermind/tasks/004-add-retry-helper/spec.md"

// TestSkeletonGolden pins the exact skeleton text of every mode (testdata/skeleton-<mode>.md).
func TestSkeletonGolden(t *testing.T) {
	for _, mode := range Modes {
		t.Run(mode, func(t *testing.T) {
			got := Skeleton(SpecOptions{ID: "004", Title: "Add retry helper", Mode: mode})
			golden.Check(t, filepath.Join("testdata", "skeleton-"+mode+".md"), got)
		})
	}
}

// TestSkeletonUnfilledRefused: the raw skeleton must not pass pre-flight. Every mandatory section
// is reported empty, every scope key is reported empty, and a strict skeleton has no verify
// command yet. Nothing else is reported.
func TestSkeletonUnfilledRefused(t *testing.T) {
	for _, mode := range Modes {
		t.Run(mode, func(t *testing.T) {
			s, fs := spec.Parse(Skeleton(SpecOptions{ID: "004", Title: "Add retry helper", Mode: mode}), specFile)
			var want []string
			for _, k := range ScopeKeys {
				want = append(want, spec.RuleFrontmatterInvalid+" "+k)
			}
			for _, name := range spec.RequiredSections(mode) {
				want = append(want, spec.RuleSectionMissing+" "+name)
			}
			if mode == spec.ModeStrict {
				want = append(want, spec.RuleNoVerifyCommand+" ")
			}
			var got []string
			for _, f := range fs {
				subject := fieldValue(f, "section")
				if f.Rule == spec.RuleFrontmatterInvalid {
					subject = strings.TrimPrefix(f.Pointer, "/")
				}
				got = append(got, f.Rule+" "+subject)
				if f.Line == 0 || f.File != specFile || f.Message == "" {
					t.Errorf("finding without a position or message: %s", f.String())
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("raw %s skeleton findings (-want +got):\n%s", mode, d)
			}
			if s.Frontmatter.Mode != mode || s.Frontmatter.ID != "004" || s.Frontmatter.Title != "Add retry helper" || s.Title != "Add retry helper" {
				t.Errorf("frontmatter/title = %+v, %q", s.Frontmatter, s.Title)
			}
		})
	}
}

// TestSkeletonFilledPasses: a skeleton filled in as a planner would (each placeholder comment
// replaced by prose, the scope keys given real paths, a verify command added) parses with zero
// findings in every mode, with the declared scope and mode intact.
func TestSkeletonFilledPasses(t *testing.T) {
	for _, mode := range Modes {
		t.Run(mode, func(t *testing.T) {
			raw := string(Skeleton(SpecOptions{ID: "004", Title: "Add retry helper", Mode: mode}))
			filled := fillLikeAPlanner(t, raw)
			s, fs := spec.Parse([]byte(filled), specFile)
			for _, f := range fs {
				t.Errorf("filled %s skeleton: %s", mode, f.String())
			}
			if s == nil {
				t.Fatal("nil spec")
			}
			wantScope := []string{"internal/retry/retry.go", "internal/retry/retry_test.go", "docs/retry.md"}
			if s.Scope.Source != spec.SourceFrontmatter || !cmp.Equal(s.Scope.Declared, wantScope) {
				t.Errorf("scope = %+v, want frontmatter %v", s.Scope, wantScope)
			}
			if s.Frontmatter.Mode != mode {
				t.Errorf("mode = %q, want %q", s.Frontmatter.Mode, mode)
			}
			if !cmp.Equal(s.VerifyCommands, []string{"go test ./internal/retry/..."}) {
				t.Errorf("verify commands = %q", s.VerifyCommands)
			}
			for _, name := range spec.RequiredSections(mode) {
				if sec, ok := s.Section(name); !ok || !sec.NonEmpty {
					t.Errorf("section %q missing or empty after filling", name)
				}
			}
		})
	}
}

// TestSkeletonPartlyFilled: filling the sections but not the scope still refuses the spec, so a
// planner cannot approve a spec that authorises nothing by accident.
func TestSkeletonPartlyFilled(t *testing.T) {
	raw := string(Skeleton(SpecOptions{ID: "004", Title: "Add retry helper", Mode: spec.ModeStandard}))
	sectionsOnly := placeholderRe.ReplaceAllString(raw, "Planner prose.")
	_, fs := spec.Parse([]byte(sectionsOnly), specFile)
	if n, _ := finding.Count(fs); n != len(ScopeKeys) || len(fs) != n {
		t.Errorf("sections filled, scope empty: %d errors, want %d (one per scope key): %v", n, len(ScopeKeys), fs)
	}
	// Deleting the unused scope keys (and keeping one) is the documented way out.
	oneKey := strings.Replace(sectionsOnly, "creates:\n", "", 1)
	oneKey = strings.Replace(oneKey, "expected_docs:\n", "", 1)
	oneKey = strings.Replace(oneKey, "touches:\n", "touches:\n  - file: main.go\n", 1)
	s, fs := spec.Parse([]byte(oneKey), specFile)
	if len(fs) != 0 || !cmp.Equal(s.Scope.Declared, []string{"main.go"}) {
		t.Errorf("one scope key kept: findings %v, scope %v", fs, s.Scope.Declared)
	}
}

func FuzzSkeletonTitle(f *testing.F) {
	for _, s := range []string{"Add retry helper", "It's: \"quoted\" # not a comment", "- [x] *emph* `code`", "'", "a: b: c", "&anchor *alias !tag"} {
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, title string, m uint8) {
		mode := Modes[int(m)%len(Modes)]
		title, err := CheckTitle(title)
		if err != nil {
			return
		}
		s, fs := spec.Parse(Skeleton(SpecOptions{ID: "001", Title: title, Mode: mode}), specFile)
		for _, f := range fs {
			if f.Rule != spec.RuleSectionMissing && f.Rule != spec.RuleNoVerifyCommand &&
				!(f.Rule == spec.RuleFrontmatterInvalid && slices.Contains(ScopeKeys, strings.TrimPrefix(f.Pointer, "/"))) {
				t.Fatalf("title %q: unexpected finding %s", title, f.String())
			}
		}
		if s.Frontmatter.Title != title {
			t.Fatalf("frontmatter title = %q, want %q", s.Frontmatter.Title, title)
		}
	})
}

var placeholderRe = regexp.MustCompile(regexp.QuoteMeta(PlaceholderPrefix) + `[^\n]*-->`)

// fillLikeAPlanner replaces every section placeholder with prose, gives each scope key a path,
// and declares one verify command in the body.
func fillLikeAPlanner(t *testing.T, raw string) string {
	t.Helper()
	if n := len(placeholderRe.FindAllString(raw, -1)); n == 0 {
		t.Fatal("no placeholders in the skeleton")
	}
	s := placeholderRe.ReplaceAllString(raw, "Written by the planner.")
	for key, value := range map[string]string{
		"touches:\n":       "touches:\n  - file: internal/retry/retry.go\n",
		"creates:\n":       "creates:\n  - internal/retry/retry_test.go\n",
		"expected_docs:\n": "expected_docs:\n  - docs/retry.md\n",
	} {
		if !strings.Contains(s, "\n"+key) {
			t.Fatalf("skeleton has no %q line", key)
		}
		s = strings.Replace(s, "\n"+key, "\n"+value, 1)
	}
	return s + "\nVERIFY: `go test ./internal/retry/...`\n"
}

func fieldValue(f finding.Finding, key string) string {
	for _, fl := range f.Fields {
		if fl.Key == key {
			v, _ := fl.Value.(string)
			return v
		}
	}
	return ""
}
