package render

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// SARIFSchemaURI is the $schema of every SARIF log mastermind writes: the published SARIF 2.1.0
// JSON Schema that GitHub code scanning documents.
const SARIFSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

// SARIFFingerprintKey is the partialFingerprints key of mastermind's coarse result group by task,
// kind and path (integrations.md §4), kept beside the identity GitHub reads.
const SARIFFingerprintKey = "mastermind/v1"

// SARIFLineHashKey is the partialFingerprints key GitHub code scanning matches results across
// runs by; mastermind writes its own per-finding identity, ResultFingerprint, there.
const SARIFLineHashKey = "primaryLocationLineHash"

// GitHub code scanning's limits on an uploaded log (integrations.md §4): the results it keeps, the
// compressed size with a margin below its 10 MB, and the length of a rule description.
const (
	MaxSARIFResults   = 5000
	MaxSARIFGzipBytes = 9_000_000
	maxSARIFRuleText  = 1024
)

// The SARIF 2.1.0 objects mastermind writes, keys in the order of OASIS SARIF 2.1.0 §3.
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
	FullDescription      sarifMessage   `json:"fullDescription"`
	Help                 sarifMessage   `json:"help"`
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

// srcRoot is the uriBaseId of every repository file: the repository root.
const srcRoot = "%SRCROOT%"

// sarifItem is one finding chosen for the log, with what its result needs.
type sarifItem struct {
	seq    int // position among all findings, in output order
	set    int
	f      finding.Finding
	loc    Location
	occurs int
}

// WriteSARIF writes one SARIF 2.1.0 log for sets with one run, laid out as integrations.md §4
// says. It keeps within GitHub's limits, errors before warnings, and ends with a result saying
// how many findings were left out and where they are.
func WriteSARIF(w io.Writer, tool ToolMeta, rules []RuleMeta, sets []FindingSet) error {
	idx := ruleIndex(rules)
	sets = located(sets, idx)
	items, total := chooseSARIF(sets, idx)
	log := sarifFor(tool, rules, idx, sets, items, total)
	m := measureSARIF(log)
	if m.small() {
		_, err := w.Write(m.buf.Bytes())
		return err
	}
	return WriteJSON(w, sarifFor(tool, rules, idx, sets, items[:fitSARIF(tool, rules, idx, sets, items, total, m.size())], total))
}

// chooseSARIF returns the findings a log can hold by count, errors first and then warnings, each
// in output order, leaving room for the truncation result when some must go. total counts every
// finding.
func chooseSARIF(sets []FindingSet, idx map[string]RuleMeta) (items []sarifItem, total int) {
	errs := 0
	for _, s := range sets {
		total += len(s.Findings)
		for _, f := range s.Findings {
			if f.Class != finding.ClassWarning {
				errs++
			}
		}
	}
	keepErr, keepWarn := total, total
	if total > MaxSARIFResults {
		keepErr = min(errs, MaxSARIFResults-1)
		keepWarn = MaxSARIFResults - 1 - keepErr
	}
	seen := map[string]int{}
	var errItems, warnItems []sarifItem
	seq := 0
	for i, s := range sets {
		for _, f := range s.Findings {
			seq++
			warn := f.Class == finding.ClassWarning
			if (warn && len(warnItems) == keepWarn) || (!warn && len(errItems) == keepErr) {
				continue
			}
			loc := s.Locate(f, idx)
			key := identityKey(s.Task, f, loc.Path)
			seen[key]++
			it := sarifItem{seq: seq, set: i, f: f, loc: loc, occurs: seen[key]}
			if warn {
				warnItems = append(warnItems, it)
			} else {
				errItems = append(errItems, it)
			}
		}
	}
	return append(errItems, warnItems...), total
}

// fitSARIF returns how many of items a log can hold under MaxSARIFGzipBytes when all of them make
// size compressed bytes. It starts in proportion to the limit with a 5% margin and shrinks until
// the log fits.
func fitSARIF(tool ToolMeta, rules []RuleMeta, idx map[string]RuleMeta, sets []FindingSet, items []sarifItem, total int, size int64) int {
	n := len(items)
	for n > 0 && size > MaxSARIFGzipBytes {
		n = min(n-1, int(float64(n)*MaxSARIFGzipBytes/float64(size)*0.95))
		size = measureSARIF(sarifFor(tool, rules, idx, sets, items[:n], total)).size()
	}
	return n
}

// sarifMeasure is the encoding of a log, kept while it is at most MaxSARIFGzipBytes and then
// gzip-compressed at gzip.BestSpeed to measure it: that level compresses less than the default
// an upload uses, so the measure errs large.
type sarifMeasure struct {
	buf    bytes.Buffer
	zw     *gzip.Writer
	packed countWriter
	err    error
}

func measureSARIF(log sarifLog) *sarifMeasure {
	m := &sarifMeasure{}
	if err := WriteJSON(m, log); err != nil {
		m.err = err
	}
	if m.zw != nil {
		if err := m.zw.Close(); err != nil && m.err == nil {
			m.err = err
		}
	}
	return m
}

func (m *sarifMeasure) Write(p []byte) (int, error) {
	if m.zw == nil {
		if m.buf.Len()+len(p) <= MaxSARIFGzipBytes {
			return m.buf.Write(p)
		}
		m.zw, _ = gzip.NewWriterLevel(&m.packed, gzip.BestSpeed)
		if _, err := m.zw.Write(m.buf.Bytes()); err != nil {
			return 0, err
		}
		m.buf = bytes.Buffer{}
	}
	return m.zw.Write(p)
}

// small reports whether the log was encoded whole in buf, within the limit uncompressed.
func (m *sarifMeasure) small() bool { return m.err == nil && m.zw == nil }

// size is the log's measure: its length when small, its compressed length otherwise, and more
// than the limit after an encoding error.
func (m *sarifMeasure) size() int64 {
	switch {
	case m.err != nil:
		return math.MaxInt64
	case m.zw == nil:
		return int64(m.buf.Len())
	}
	return m.packed.n
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// sarifFor builds the log of items, written in output order, out of total findings.
func sarifFor(tool ToolMeta, rules []RuleMeta, idx map[string]RuleMeta, sets []FindingSet, items []sarifItem, total int) sarifLog {
	items = slices.Clone(items)
	slices.SortFunc(items, func(a, b sarifItem) int { return a.seq - b.seq })
	all := append([]RuleMeta(nil), rules...)
	position := make(map[string]int, len(all))
	for i, r := range all {
		position[r.ID] = i
	}
	use := func(id string) int {
		if i, ok := position[id]; ok {
			return i
		}
		position[id] = len(all)
		all = append(all, ruleMeta(id, idx))
		return len(all) - 1
	}
	var extra []string
	for _, it := range items {
		if _, ok := idx[it.f.Rule]; !ok && !slices.Contains(extra, it.f.Rule) {
			extra = append(extra, it.f.Rule)
		}
	}
	slices.Sort(extra)
	for _, id := range extra {
		use(id)
	}
	run := sarifRun{Results: make([]sarifResult, 0, len(items)+1), ColumnKind: "utf16CodeUnits"}
	for _, it := range items {
		s := sets[it.set]
		region := sarifRegion{StartLine: max(it.loc.Line, 1)}
		if _, units, ok := s.columns(it.loc); ok {
			region.StartColumn = units
		}
		run.Results = append(run.Results, sarifResult{
			RuleID: it.f.Rule, RuleIndex: use(it.f.Rule), Level: sarifLevel(it.f.Class),
			Message:   sarifMessage{Text: nonEmpty(it.f.Text(), it.f.Rule)},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: artifactLocation(it.loc.Path), Region: region}}},
			PartialFingerprints: map[string]string{
				SARIFFingerprintKey: Fingerprint(s.Task, it.f.Rule, it.loc.Path),
				SARIFLineHashKey:    ResultFingerprint(s.Task, it.f, it.loc.Path, it.occurs),
			},
			Properties: sarifProperties{Task: s.Task, Verdict: s.Verdict},
		})
	}
	if left := total - len(items); left > 0 {
		run.Results = append(run.Results, truncationResult(sets, items, left, total, use(RuleTruncated)))
	}
	driver := sarifDriver{Name: tool.Name, Version: sarifToolVersion(tool.Version), InformationURI: tool.InformationURI,
		Rules: make([]sarifRule, 0, len(all))}
	for _, r := range all {
		m := withRuleDefaults(r)
		driver.Rules = append(driver.Rules, sarifRule{ID: r.ID,
			ShortDescription:     sarifMessage{Text: clipText(nonEmpty(m.Short, r.ID), maxSARIFRuleText)},
			FullDescription:      sarifMessage{Text: clipText(m.Full, maxSARIFRuleText)},
			Help:                 sarifMessage{Text: m.Help},
			DefaultConfiguration: sarifRuleLevel{Level: sarifLevel(r.Class)}})
	}
	run.Tool = sarifTool{Driver: driver}
	return sarifLog{Schema: SARIFSchemaURI, Version: "2.1.0", Runs: []sarifRun{run}}
}

// truncationResult is the last result of a log that leaves findings out: how many, why, and where
// the full list is. It is located at the first audit.md that holds findings the log lacks.
func truncationResult(sets []FindingSet, items []sarifItem, left, total, ruleIndex int) sarifResult {
	shown := make([]int, len(sets))
	for _, it := range items {
		shown[it.set]++
	}
	var audits []string
	for i, s := range sets {
		if shown[i] < len(s.Findings) && s.Task != "" {
			audits = append(audits, taskAudit(s))
		}
	}
	where := "in the output of the same command with --format json"
	path := ""
	if len(audits) > 0 {
		path = audits[0]
		list := audits
		if len(list) > 10 {
			list = append(slices.Clone(list[:10]), fmt.Sprintf("%d more", len(audits)-10))
		}
		where = "in " + strings.Join(list, ", ") + " and " + where
	}
	msg := fmt.Sprintf("%d of %d results are left out of this SARIF log (GitHub code scanning keeps at most %d results per run and 10 MB compressed; errors are kept first). The full list is %s.",
		left, total, MaxSARIFResults, where)
	task := ""
	if len(sets) == 1 {
		task = sets[0].Task
	}
	return sarifResult{RuleID: RuleTruncated, RuleIndex: ruleIndex, Level: sarifLevel(finding.ClassWarning),
		Message:   sarifMessage{Text: msg},
		Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: artifactLocation(path), Region: sarifRegion{StartLine: 1}}}},
		PartialFingerprints: map[string]string{
			SARIFFingerprintKey: Fingerprint(task, RuleTruncated, path),
			SARIFLineHashKey:    ResultFingerprint(task, finding.Finding{Rule: RuleTruncated}, path, 1),
		},
		Properties: sarifProperties{Task: task}}
}

// identityKey is what ResultFingerprint hashes before the occurrence: task, rule, location path,
// JSON pointer and the values of the kind's identity fields, each followed by a NUL byte.
func identityKey(task string, f finding.Finding, path string) string {
	var b strings.Builder
	for _, s := range []string{task, f.Rule, path, f.Pointer} {
		b.WriteString(s)
		b.WriteByte(0)
	}
	if k, ok := finding.KindOf(f.Rule); ok {
		for _, id := range k.Identity {
			b.WriteString(f.FieldString(id))
			b.WriteByte(0)
		}
	}
	return b.String()
}

// ResultFingerprint is a finding's identity across runs, SARIF's primaryLocationLineHash: the
// SHA-256 of its identity key and n, its occurrence among the log's findings with that key. It does
// not depend on the line, so a finding keeps its identity when lines move.
func ResultFingerprint(task string, f finding.Finding, path string, n int) string {
	h := sha256.New()
	io.WriteString(h, identityKey(task, f, path))
	io.WriteString(h, strconv.Itoa(n))
	h.Write([]byte{0})
	return hex.EncodeToString(h.Sum(nil))
}

// artifactLocation is the SARIF artifactLocation of a Location path: a relative URI reference
// under %SRCROOT% for a repository path, an absolute file URI without uriBaseId for an absolute
// path, since SARIF §3.4.4 allows a uriBaseId only with a relative reference.
func artifactLocation(p string) sarifArtifactL {
	switch {
	case p == "":
		return sarifArtifactL{}
	case strings.HasPrefix(p, "/"):
		return sarifArtifactL{URI: (&url.URL{Scheme: "file", Path: p}).String()}
	}
	return sarifArtifactL{URI: relativeURI(p), URIBaseID: srcRoot}
}

// sarifToolVersion is v as tool.driver.version: without a leading "v", and prefixed with "0.0.0-"
// when it would not start with a digit, so consumers can compare versions as multitool rule
// SARIF2005 asks. "" stays "".
func sarifToolVersion(v string) string {
	if v == "" {
		return ""
	}
	if t := strings.TrimPrefix(v, "v"); t != "" && t[0] >= '0' && t[0] <= '9' {
		return t
	}
	return "0.0.0-" + v
}

// clipText cuts s to at most n UTF-16 code units, as GitHub counts characters, on a rune
// boundary, ending with "…" when cut.
func clipText(s string, n int) string {
	if len(s) <= n || len(utf16.Encode([]rune(s))) <= n {
		return s
	}
	units := 0
	for i, r := range s {
		if units+utf16.RuneLen(r) > n-1 {
			return s[:i] + "…"
		}
		units += utf16.RuneLen(r)
	}
	return s
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
