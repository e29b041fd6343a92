// Package brief builds the executor's brief of integrations.md §1, which an orchestrator pastes
// into the executor's prompt so that its report can pass the post-flight. It is a pure function
// of the parsed spec and the audit's own rule table.
package brief

import (
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/spec"
)

// Rule is one rule the audit applies, as the brief states it.
type Rule struct {
	ID    string        `json:"id"`
	Class finding.Class `json:"class"`
	Text  string        `json:"text"`
}

// Brief is the executor's brief. JSON keys are in this order; the command's --json envelope
// puts the schema_version and command header before them.
type Brief struct {
	Task     string `json:"task"`
	Title    string `json:"title"`
	Spec     string `json:"spec"`
	SpecHash string `json:"spec_hash"`
	Mode     string `json:"mode"`
	Risk     string `json:"risk"`
	// Goals is the spec's Goals section as written (trimmed), "" when absent.
	Goals  string      `json:"goals"`
	Scope  Scope       `json:"scope"`
	Verify []Verify    `json:"verify"`
	Report ReportBrief `json:"report"`
	// Rules are the audit's rules: what makes the post-flight hold.
	Rules []Rule `json:"rules"`
}

// Scope is the declared scope: the only files the executor may change.
type Scope struct {
	Source       string   `json:"source"` // frontmatter, backticks or none
	Touches      []string `json:"touches"`
	Creates      []string `json:"creates"`
	Deletes      []string `json:"deletes"`
	ExpectedDocs []string `json:"expected_docs"`
	// Forbids are gitignore-style patterns of paths that must not change at all.
	Forbids []string `json:"forbids"`
	// Declared is the union S the audit compares the changed set with.
	Declared []string `json:"declared"`
}

// Verify is one declared verify command.
type Verify struct {
	Cmd string `json:"cmd"`
	// RunBy is "mastermind" for a command the spec marks run: true, which the controller runs at
	// post-flight, else "executor", which runs it and reports what it observed.
	RunBy string `json:"run_by"`
}

// ReportBrief says where the report goes and what it must hold.
type ReportBrief struct {
	Path string `json:"path"`
	// Template is the report file's text with schema_version, spec and every list pre-filled.
	Template string `json:"template"`
}

// Build assembles the brief of the spec s at specRel (repository-relative, slash-separated) for
// task (its folder name) with the audit's rules. nil slices become empty lists, so the JSON form
// always has every key.
func Build(s *spec.Spec, task, specRel string, rules []Rule) Brief {
	dir := specRel[:strings.LastIndex(specRel, "/")+1]
	b := Brief{Task: task, Title: title(s), Spec: specRel,
		SpecHash: s.Hash, Mode: s.Frontmatter.Mode, Risk: s.Frontmatter.Risk,
		Scope: Scope{Source: s.Scope.Source, Touches: list(s.Scope.Touches), Creates: list(s.Scope.Creates),
			Deletes: list(s.Scope.Deletes), ExpectedDocs: list(s.Scope.ExpectedDocs),
			Forbids: list(s.Frontmatter.Forbids), Declared: list(s.Scope.Declared)},
		Verify: []Verify{},
		Report: ReportBrief{Path: dir + "executor-report.md", Template: Template(specRel)},
		Rules:  append([]Rule{}, rules...)}
	if sec, ok := s.Section("Goals"); ok {
		b.Goals = strings.TrimSpace(strings.ReplaceAll(sec.Body, "\r\n", "\n"))
	}
	for i, c := range s.VerifyCommands {
		by := "executor"
		if i < len(s.VerifyDeclared) && s.VerifyDeclared[i].Run {
			by = "mastermind"
		}
		b.Verify = append(b.Verify, Verify{Cmd: c, RunBy: by})
	}
	return b
}

func title(s *spec.Spec) string {
	if s.Frontmatter.Title != "" {
		return s.Frontmatter.Title
	}
	return s.Title
}

func list(v []string) []string {
	return append([]string{}, v...)
}

// Template is the executor-report.md text for the spec at specRel (executor-report-v1.md §1.4,
// §3.1): the sentinel block with every top-level key, schema_version and spec filled in and the
// lists empty, preceded by a heading the executor replaces with its prose.
func Template(specRel string) string {
	return "## Execution report\n\n" +
		"<!-- Write what you did here. Keep the block below exact: mastermind reads only the block. -->\n\n" +
		"<!-- mastermind:report-begin -->\n```yaml\n" +
		"schema_version: 1\n" +
		"spec: " + yamlString(specRel) + "\n" +
		"status: complete\n" +
		"phases: []\n" +
		"files_modified: []\n" +
		"claims: []\n" +
		"defects: []\n" +
		"verifications: []\n" +
		"```\n<!-- mastermind:report-end -->\n"
}

// yamlString writes s as a YAML scalar: plain when it is a safe path, else as a JSON string,
// which is a valid YAML double-quoted scalar.
func yamlString(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("./_-", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
