package spec

import (
	"strings"
	"time"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// MaxBytes is the largest spec.md accepted, in bytes (spec-and-lifecycle.md §1.1: 16 MiB).
const MaxBytes = 16 << 20

// MaxDeclarations is the largest number of scope declarations of all four lists accepted,
// counted before deduplication (§1.4).
const MaxDeclarations = 1024

// Scope sources (§1.4).
const (
	SourceFrontmatter = "frontmatter"
	SourceBackticks   = "backticks"
	SourceNone        = "none"
)

// Modes (§1.2) and risks.
const (
	ModeVerified = "verified"
	ModeStrict   = "strict"
	ModeStandard = "standard"
	ModeLite     = "lite"

	RiskLow    = "low"
	RiskMedium = "medium"
	RiskHigh   = "high"
)

// Spec is a parsed spec.md (spec-and-lifecycle.md §1).
type Spec struct {
	// Raw is the file's bytes exactly as read, before BOM stripping: the spec_hash input.
	Raw []byte
	// Hash is the lowercase hex SHA-256 of Raw.
	Hash string
	// HasFrontmatter is true when the text (after the BOM) starts with "---\n" or "---\r\n".
	HasFrontmatter bool
	// Frontmatter holds the decoded fields, with Risk and Mode defaulted to "low" and "standard".
	// Fields that failed their shape check are left at their zero value.
	Frontmatter Frontmatter
	// Sections are the top-level level-2 sections in document order (§1.3).
	Sections []Section
	// Title is the plain text of the first level-1 heading before any level-2 heading, or "".
	Title string
	// Scope is the declared scope S (§1.4).
	Scope Scope
	// VerifyCommands are the §1.5 command obligations, trimmed, non-empty and deduplicated in order,
	// frontmatter items first.
	VerifyCommands []string
	// VerifyLabels are the frontmatter verify string items (informational), in order.
	VerifyLabels []string
	// Forbids are the valid frontmatter forbids patterns, compiled (lifecycle-v2.md §2). They
	// apply whatever the scope source is.
	Forbids Forbids
	// VerifyDeclared holds one entry per VerifyCommands entry, in the same order: whether the
	// spec asks mastermind to run it and its effective timeout (verification-receipts.md §1).
	VerifyDeclared []DeclaredCommand

	declPos  map[string]posString // "list\x00path" -> the first frontmatter declaration
	fallback *Scope               // the backtick scope of the body (BacktickScope)
	file     string               // the display path given to Parse
}

// Frontmatter is the typed YAML frontmatter (§1.2). Every field is optional.
type Frontmatter struct {
	ID    string
	Title string
	// Risk is "low", "medium" or "high"; "low" when absent or invalid.
	Risk string
	// Mode is "verified", "strict", "standard" or "lite"; "standard" when absent or invalid.
	Mode         string
	Touches      []Touch
	Creates      []string // as written
	ExpectedDocs []string // as written
	// Deletes are the files the task may delete (lifecycle-v2.md §1), as written.
	Deletes []string
	// Forbids are the gitignore-style patterns of paths the executor must not change
	// (lifecycle-v2.md §2), as written; Spec.Forbids holds the valid ones compiled.
	Forbids         []string
	Verify          []VerifyItem
	BreakingChanges *BreakingChanges // nil when absent
}

// Touch is one touches item: an existing file that will be edited.
type Touch struct {
	File     string // as written; required
	Language string // "" when absent
	Symbols  []Symbol
}

// Symbol is one touches[].symbols item. A string item sets only Name. Shape-checked and stored;
// not evaluated in v1.
type Symbol struct {
	Name      string
	Signature string
	Callers   *int64 // ≥ 0 when present
	File      string
	Language  string
	Reason    string
}

// VerifyItem is one frontmatter verify item: a string label, or a {cmd, run?, timeout?} command
// obligation.
type VerifyItem struct {
	Label string // the string item; "" for a command item
	Cmd   string // the cmd value as written; "" for a label
	IsCmd bool   // true for a {cmd: …} item
	// Run is the item's run field: true asks mastermind to run the command at post-flight.
	// Witnessed is `run: witnessed`, which sets Run too and lets the harness transcript stand in
	// for the run (docs/design/transcripts.md §6).
	Run, Witnessed bool
	// Timeout is the item's timeout field, 0 when absent, when DefaultVerifyTimeout applies.
	Timeout time.Duration
}

// BreakingChanges is the reserved breaking_changes mapping, stored but not evaluated in v1.
type BreakingChanges struct {
	RemovedSymbols []RemovedSymbol
}

// RemovedSymbol is one breaking_changes.removed_symbols item; a string item sets only Name.
type RemovedSymbol struct {
	Name, File, Reason string
}

// Section is one level-2 section of the body (§1.3).
type Section struct {
	// Name is the normalised name: plain heading text without one trailing parenthesised group,
	// trimmed, internal white space collapsed to one space. Case is kept; compare with EqualFold.
	Name string
	// Heading is the heading's plain text as written (inline markup removed).
	Heading string
	// Line is the 1-based spec.md line of the heading.
	Line int
	// Body is the verbatim source text after the heading up to the next level-1 or level-2
	// heading (or the end), with its line endings as in the file.
	Body string
	// NonEmpty is true when the body holds a block that is not blank and not an HTML comment.
	NonEmpty bool
}

// Scope is the declared scope S (§1.4). Paths are normalised repository-relative file paths.
type Scope struct {
	Source       string   // SourceFrontmatter, SourceBackticks or SourceNone
	Declared     []string // S: the union, deduplicated, in declaration order
	Touches      []string // frontmatter touches[].file, normalised and deduplicated
	Creates      []string
	ExpectedDocs []string
	// Deletes are the frontmatter deletes paths, normalised and deduplicated: files of the
	// baseline tree the task may delete (lifecycle-v2.md §1).
	Deletes []string
	// IgnoredTokens are backtick tokens that qualified but failed path normalisation (for
	// example URLs), in order, deduplicated; audit evidence ignored_scope_tokens.
	IgnoredTokens []string
}

// Section returns the section whose normalised name equals the normalised name without regard
// to case, and whether one exists.
func (s *Spec) Section(name string) (Section, bool) {
	want := NormalizeSectionName(name)
	for _, sec := range s.Sections {
		if strings.EqualFold(sec.Name, want) {
			return sec, true
		}
	}
	return Section{}, false
}

// Parse parses the raw bytes of spec.md; file is the display path put into every finding. It
// never fails and never panics: every problem is a spec.* finding (§3.2), sorted by position.
func Parse(data []byte, file string) (*Spec, []finding.Finding) {
	p := newParser(data, file)
	p.run()
	finding.SortByPosition(p.findings)
	return p.spec, p.findings
}

// DeclarationPos returns the spec.md position and JSON pointer of the first frontmatter
// declaration of the normalised path in the scope list named list, and whether there is one;
// pre-flight places its baseline findings there.
func (s *Spec) DeclarationPos(list, path string) (line, col int, pointer string, ok bool) {
	d, ok := s.declPos[list+"\x00"+path]
	return d.line, d.col, d.pointer, ok
}
