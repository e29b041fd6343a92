package render

import (
	"io"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// The reviewdog Diagnostic Format objects (rdjson, reviewdog's proto/rdf/reviewdog.proto in its
// JSON mapping): a DiagnosticResult with a source and diagnostics.
type rdResult struct {
	Source      rdSource       `json:"source"`
	Diagnostics []rdDiagnostic `json:"diagnostics"`
}

type rdSource struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

type rdDiagnostic struct {
	Message  string     `json:"message"`
	Location rdLocation `json:"location"`
	Severity string     `json:"severity"`
	Source   rdSource   `json:"source"`
	Code     rdCode     `json:"code"`
}

type rdLocation struct {
	Path  string   `json:"path"`
	Range *rdRange `json:"range,omitempty"`
}

type rdRange struct {
	Start rdPosition `json:"start"`
}

type rdPosition struct {
	Line   int `json:"line"`
	Column int `json:"column,omitempty"`
}

type rdCode struct {
	Value string `json:"value"`
	URL   string `json:"url,omitempty"`
}

// WriteRDJSON writes one reviewdog DiagnosticResult with one diagnostic per located finding, as
// integrations.md §4 lays it out. Each message starts with the task name, since reviewdog shows
// no other grouping, and a finding without a line gets no range.
func WriteRDJSON(w io.Writer, tool ToolMeta, rules []RuleMeta, sets []FindingSet) error {
	idx := ruleIndex(rules)
	src := rdSource{Name: tool.Name, URL: tool.InformationURI}
	res := rdResult{Source: src, Diagnostics: []rdDiagnostic{}}
	for _, s := range located(sets, idx) {
		prefix := ""
		if s.Task != "" {
			prefix = "[" + s.Task + "] "
		}
		for _, f := range s.Findings {
			loc := s.Locate(f, idx)
			d := rdDiagnostic{Message: prefix + nonEmpty(f.Text(), f.Rule),
				Location: rdLocation{Path: loc.Path}, Severity: rdSeverity(f.Class), Source: src,
				Code: rdCode{Value: f.Rule}}
			if loc.Line > 0 {
				d.Location.Range = &rdRange{Start: rdPosition{Line: loc.Line}}
				if bytes, _, ok := s.columns(loc); ok {
					d.Location.Range.Start.Column = bytes
				}
			}
			res.Diagnostics = append(res.Diagnostics, d)
		}
	}
	return WriteJSON(w, res)
}

func rdSeverity(c finding.Class) string {
	if c == finding.ClassWarning {
		return "WARNING"
	}
	return "ERROR"
}
