package scaffold

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/spec"
)

// Modes are the spec modes new-spec accepts, in help order (spec-and-lifecycle.md §1.2).
var Modes = []string{spec.ModeVerified, spec.ModeStrict, spec.ModeStandard, spec.ModeLite}

// PlaceholderPrefix starts every section placeholder in a skeleton. A placeholder is an HTML
// comment, so a section that still holds only its placeholder is empty under §1.3 and pre-flight
// reports spec.section_missing for it.
const PlaceholderPrefix = "<!-- TODO(planner):"

// ScopeKeys are the frontmatter scope keys a skeleton leaves empty (null) for the planner. An
// empty key is spec.frontmatter_invalid until it is given a list of paths or deleted.
var ScopeKeys = []string{"touches", "creates", "expected_docs"}

// sectionHints is the placeholder text of each mandatory section (§1.3 names).
var sectionHints = map[string]string{
	"Goals":                      "what this task must achieve and why; say what is out of scope.",
	"Alternatives Considered":    "other approaches and why this one was chosen.",
	"Scope":                      "which files change and why. The frontmatter touches, creates, expected_docs and deletes lists are the exact authorised paths; forbids names what must not change.",
	"Acceptance Criteria":        "observable conditions that make the task done, one per line.",
	"Tests Plan":                 "tests to add or change. A line such as VERIFY: `go test ./...` outside this comment makes a command an obligation the executor must report.",
	"Documentation Plan":         "which documents change (list them under expected_docs), or why none need to.",
	"Observability Plan":         "logs, metrics or messages added or changed, or why none are needed.",
	"Performance Considerations": "expected cost, limits, and any benchmark to run.",
	"Final Verification":         "how a reviewer confirms the result. Fenced command blocks here are not obligations; use VERIFY: lines for those.",
}

// SpecOptions are the inputs of Skeleton.
type SpecOptions struct {
	ID    string // the task number as written in the folder name, e.g. "004"
	Title string // a title accepted by CheckTitle
	Mode  string // one of Modes
}

// Skeleton returns the deterministic spec.md text of a new task: the frontmatter with empty
// scope keys, then a title and every mandatory section of the mode, each holding one placeholder
// comment. An unknown mode gives the standard sections.
func Skeleton(o SpecOptions) []byte {
	mode := o.Mode
	if !slices.Contains(Modes, mode) {
		mode = spec.ModeStandard
	}
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "id: %s\n", yamlSingleQuoted(o.ID))
	fmt.Fprintf(&b, "title: %s\n", yamlSingleQuoted(o.Title))
	fmt.Fprintf(&b, "mode: %s  # verified | strict | standard | lite\n", mode)
	b.WriteString("risk: low  # low | medium | high\n")
	b.WriteString(`# Declared scope: exact repository-relative file paths, no globs. Pre-flight
# refuses this spec while any of the three keys below is left empty: list the
# paths each key needs and delete the keys you do not need.
#   touches:       files that exist now and will be edited (path or {file: path} items)
#   creates:       files that must not exist at the baseline
#   expected_docs: documents that must exist and change
touches:
#  - file: path/to/existing_file.go
creates:
#  - path/to/new_file.go
expected_docs:
#  - docs/page.md
# Files of the baseline the task deletes (a rename: the old path here, the new one under creates).
deletes: []
# Gitignore-style patterns the executor must not change, e.g. tests/**, .github/**, package.json.
forbids: []
`)
	if mode == spec.ModeStrict {
		b.WriteString("# Mode strict needs at least one verify command the executor must run and report:\n")
	} else {
		b.WriteString("# Optional verify commands the executor must run and report:\n")
	}
	b.WriteString("# verify:\n#   - cmd: go test ./...\n")
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "# %s\n", o.Title)
	for _, name := range spec.RequiredSections(mode) {
		fmt.Fprintf(&b, "\n## %s\n\n%s %s Replace this comment. -->\n", name, PlaceholderPrefix, sectionHints[name])
	}
	return []byte(b.String())
}

// yamlSingleQuoted quotes s as a YAML single-quoted scalar, in which a quote is written twice.
// Callers pass one-line text without control characters (CheckTitle).
func yamlSingleQuoted(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
