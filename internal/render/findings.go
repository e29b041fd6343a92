package render

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// RuleMeta describes one finding kind or report rule for the machine formats. ReportSide is true
// for kinds about the executor report's own content, which are located on executor-report.md when
// they name no file of their own.
type RuleMeta struct {
	ID         string
	Class      finding.Class
	Short      string
	Full       string
	Help       string
	ReportSide bool
}

// ToolMeta names the producing tool, SARIF's tool.driver and rdjson's source.
type ToolMeta struct {
	Name           string // "mastermind"
	Version        string // buildinfo version, "" when unknown
	InformationURI string // project home page, "" to omit
}

// Findings is a command's results as every findings format reads them: one FindingSet per task,
// each result located by FindingSet.Locate.
type Findings struct {
	// Title heads the markdown summary; "" is "mastermind".
	Title string
	// Footer ends the markdown summary, such as the gate's summary line; "" for none.
	Footer string
	// Command titles the GitHub annotations of the results that are not findings, such as
	// "mastermind gate".
	Command string
	// NameTasks starts the GitHub message of each task's result with "<task>: ", for a command
	// over several tasks.
	NameTasks bool
	Sets      []FindingSet
}

// logRenderer writes the view's findings as one log of a machine format, such as WriteSARIF, with
// the rules of the finding-kind table.
type logRenderer struct {
	tool  ToolMeta
	write func(w io.Writer, tool ToolMeta, rules []RuleMeta, sets []FindingSet) error
}

func (r logRenderer) Render(s Streams, v View) error {
	return r.write(s.Out, r.tool, KindRules(), v.Findings().Sets)
}

// FindingSet is one task's results in output order: audit findings, positioned report and spec
// findings, then results that are not findings, such as RuleRefused. A set without a Task holds
// results about no task, such as the range findings of gate --base.
type FindingSet struct {
	Task     string // task folder name, "<NNN>-<slug>"
	Spec     string // repository-relative spec.md
	Report   string // repository-relative executor-report.md
	Verdict  string
	Message  string // the outcome's one-line message, may be ""
	Findings []finding.Finding
	// Lines reads the lines of the files the findings are located in, for the UTF-8 and UTF-16
	// columns of rdjson and SARIF; nil when they cannot be read.
	Lines LineSource
}

// LineSource returns the 1-based line n of the file at a Location's path without its line break,
// as the findings' code-point columns count it, and false when it cannot be read.
type LineSource func(path string, n int) (string, bool)

// Location is where a finding is reported: a slash-separated path, repository-relative unless the
// file is outside the repository, and a 1-based line and code-point column, 0 when unknown.
type Location struct {
	Path   string
	Line   int
	Column int
}

// Locate returns where f is reported: its own position, else the path in its "file" field, else
// executor-report.md for report-side kinds and spec.md for the rest. The "file" field of
// changed_path_unrepresentable is an escaped byte string and locates nothing.
func (s FindingSet) Locate(f finding.Finding, rules map[string]RuleMeta) Location {
	if f.File != "" {
		return Location{Path: f.File, Line: f.Line, Column: f.Column}
	}
	if v := f.FieldString("file"); v != "" && f.Rule != finding.KindChangedPathUnrepresentable {
		return Location{Path: v}
	}
	if rules[f.Rule].ReportSide && s.Report != "" {
		return Location{Path: s.Report}
	}
	return Location{Path: s.Spec}
}

// Fingerprint is the coarse group that findings of one kind on one path share, SARIF's
// "mastermind/v1" (integrations.md §4). Each field is followed by a NUL byte so no two triples
// share an encoding.
func Fingerprint(task, kind, path string) string {
	h := sha256.New()
	for _, s := range []string{task, kind, path} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// KindRules are the rule metadata of every finding kind in table order, with a short description
// made from the id, such as "Unexpected file".
func KindRules() []RuleMeta {
	out := make([]RuleMeta, 0, len(finding.Kinds))
	for _, k := range finding.Kinds {
		out = append(out, RuleMeta{ID: k.ID, Class: k.Class, Short: kindTitle(k.ID), Help: k.Help, ReportSide: k.ReportSide})
	}
	return out
}

func kindTitle(id string) string {
	s := strings.ReplaceAll(id, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// ruleIndex maps rule ids to RuleMeta.
func ruleIndex(rules []RuleMeta) map[string]RuleMeta {
	m := make(map[string]RuleMeta, len(rules))
	for _, r := range rules {
		m[r.ID] = r
	}
	return m
}

// located returns sets without their results located nowhere (an error of the whole command):
// a SARIF result or rdjson diagnostic needs a file. sets is copied only when a result is dropped.
func located(sets []FindingSet, idx map[string]RuleMeta) []FindingSet {
	var out []FindingSet
	for i, s := range sets {
		if !slices.ContainsFunc(s.Findings, func(f finding.Finding) bool { return s.Locate(f, idx).Path == "" }) {
			continue
		}
		if out == nil {
			out = slices.Clone(sets)
		}
		out[i].Findings = slices.DeleteFunc(slices.Clone(s.Findings), func(f finding.Finding) bool { return s.Locate(f, idx).Path == "" })
	}
	if out == nil {
		return sets
	}
	return out
}
