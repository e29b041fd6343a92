package render

import (
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// SARIFSchemaURI is the $schema of every SARIF log mastermind writes (the published SARIF 2.1.0
// JSON Schema, as GitHub code scanning documents it).
const SARIFSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

// SARIFFingerprintKey is the partialFingerprints key of a result (integrations.md §4).
const SARIFFingerprintKey = "mastermind/v1"

// The SARIF 2.1.0 objects mastermind writes (OASIS SARIF 2.1.0 §3), keys in spec order.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	Results    []sarifResult `json:"results"`
	ColumnKind string        `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	ShortDescription     sarifMessage   `json:"shortDescription"`
	FullDescription      *sarifMessage  `json:"fullDescription,omitempty"`
	Help                 *sarifMessage  `json:"help,omitempty"`
	DefaultConfiguration sarifRuleLevel `json:"defaultConfiguration"`
}

type sarifRuleLevel struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          sarifProperties   `json:"properties"`
}

type sarifProperties struct {
	Task    string `json:"task"`
	Verdict string `json:"verdict,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactL `json:"artifactLocation"`
	Region           sarifRegion    `json:"region"`
}

type sarifArtifactL struct {
	URI       string `json:"uri,omitempty"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// srcRoot is the uriBaseId of every artifact location: the repository root.
const srcRoot = "%SRCROOT%"

// WriteSARIF writes one SARIF 2.1.0 log (integrations.md §4) for sets: one run whose
// tool.driver is tool with one rule per entry of rules (id = kind, shortDescription, help,
// defaultConfiguration.level from the class) plus one generic rule for any rule id the findings
// use that rules lacks; one result per finding with ruleId, level (error/warning), message, a
// location relative to %SRCROOT% (line and column where known; line 1 otherwise, because code
// scanning requires a start line) and partialFingerprints["mastermind/v1"] =
// Fingerprint(task, kind, path). The JSON is indented with two spaces and ends with a newline;
// control and bidi characters in strings are \u-escaped.
func WriteSARIF(w io.Writer, tool ToolMeta, rules []RuleMeta, sets []FindingSet) error {
	idx := ruleIndex(rules)
	all := append([]RuleMeta(nil), rules...)
	var extra []string
	for _, s := range sets {
		for _, f := range s.Findings {
			if _, ok := idx[f.Rule]; !ok && !slices.Contains(extra, f.Rule) {
				extra = append(extra, f.Rule)
			}
		}
	}
	slices.Sort(extra)
	for _, id := range extra {
		all = append(all, RuleMeta{ID: id, Class: finding.ClassError, Short: "mastermind rule " + id})
	}
	position := make(map[string]int, len(all))
	driver := sarifDriver{Name: tool.Name, Version: tool.Version, InformationURI: tool.InformationURI, Rules: []sarifRule{}}
	for i, r := range all {
		position[r.ID] = i
		sr := sarifRule{ID: r.ID, ShortDescription: sarifMessage{Text: nonEmpty(r.Short, r.ID)},
			DefaultConfiguration: sarifRuleLevel{Level: sarifLevel(r.Class)}}
		if r.Help != "" {
			sr.FullDescription = &sarifMessage{Text: r.Help}
			sr.Help = &sarifMessage{Text: r.Help}
		}
		driver.Rules = append(driver.Rules, sr)
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}, ColumnKind: "unicodeCodePoints"}
	for _, s := range sets {
		for _, f := range s.Findings {
			loc := s.Locate(f, idx)
			line := loc.Line
			if line <= 0 {
				line = 1
			}
			col := 0
			if loc.Line > 0 {
				col = loc.Column
			}
			run.Results = append(run.Results, sarifResult{
				RuleID: f.Rule, RuleIndex: position[f.Rule], Level: sarifLevel(f.Class),
				Message: sarifMessage{Text: nonEmpty(f.Text(), f.Rule)},
				Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
					ArtifactLocation: sarifArtifactL{URI: relativeURI(loc.Path), URIBaseID: srcRoot},
					Region:           sarifRegion{StartLine: line, StartColumn: col}}}},
				PartialFingerprints: map[string]string{SARIFFingerprintKey: Fingerprint(s.Task, f.Rule, loc.Path)},
				Properties:          sarifProperties{Task: s.Task, Verdict: s.Verdict},
			})
		}
	}
	return WriteJSON(w, sarifLog{Schema: SARIFSchemaURI, Version: "2.1.0", Runs: []sarifRun{run}})
}

func sarifLevel(c finding.Class) string {
	if c == finding.ClassWarning {
		return "warning"
	}
	return "error"
}

func nonEmpty(s, fallback string) string {
	if strings.TrimSpace(s) == "" {
		return fallback
	}
	return s
}

// relativeURI turns a repository-relative slash path into a relative URI reference (RFC 3986):
// each segment percent-encoded, and a first segment holding ':' prefixed with "./" so it cannot
// read as a scheme.
func relativeURI(p string) string {
	if p == "" {
		return ""
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	out := strings.Join(segs, "/")
	if strings.Contains(segs[0], ":") {
		out = "./" + out
	}
	return out
}
