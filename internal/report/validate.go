package report

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/markdown"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

var bom = []byte{0xEF, 0xBB, 0xBF}

// Validate checks report bytes that have already been read (§1.2 onwards): encoding, locating
// the form, strict decoding, the version gate, schema, value and consistency rules. It is pure
// and never panics. file is the display path put into every finding.
func Validate(data []byte, file string) Result {
	c := &checker{file: file}
	res := c.run(data)
	for i := range res.Findings {
		res.Findings[i].File = file
		res.Findings[i].Class = finding.ClassError
		res.Findings[i].Message = textsafe.Escape(res.Findings[i].Message)
	}
	finding.SortByPosition(res.Findings)
	if len(res.Findings) > 0 {
		res.Report = nil
	}
	for i := range res.Evidence {
		res.Evidence[i].File = file
		res.Evidence[i].Message = textsafe.Escape(res.Evidence[i].Message)
	}
	finding.SortByPosition(res.Evidence)
	return res
}

// checker carries one validation run.
type checker struct {
	file     string
	findings []finding.Finding
	loc      *located
	bareHint string // why the text is not bare form, for report.no_block (locate.go)
	// blockIdx holds the pointers of value.* and schema.* findings (not schema.required) among
	// the first blockSeen findings, for blocked (suppress.go); nil after suppressByValues.
	blockIdx  map[string]bool
	blockSeen int
}

func (c *checker) add(rule string, line, col int, pointer, msg string) {
	c.findings = append(c.findings, finding.Finding{Rule: rule, Line: line, Column: col, Pointer: pointer, Message: msg})
}

func (c *checker) run(data []byte) Result {
	// Stage 2: encoding.
	text := bytes.TrimPrefix(data, bom)
	if !utf8.Valid(text) {
		off := firstInvalid(text)
		line, col := position(text, off)
		c.add(RuleNotUTF8, line, col, "", fmt.Sprintf("executor report is not valid UTF-8 (first invalid byte at line %d, column %d)", line, col))
		return Result{Findings: c.findings}
	}
	if len(bytes.TrimSpace(text)) == 0 {
		c.add(RuleEmpty, 0, 0, "", "executor report is empty")
		return Result{Findings: c.findings}
	}
	// Stage 3: locate the form.
	var md *markdown.Doc
	if mayHoldSentinel(text) {
		md = markdown.ParseBlocks(text)
	}
	loc := c.locate(md, text)
	if loc == nil {
		return Result{Findings: c.findings}
	}
	c.loc = loc
	if hasLoneCR(loc.text) {
		loc.cr = newCRPositions(loc.text)
	}
	res := Result{Form: loc.form}
	// Stage 4: decode; bare form was decoded while it was recognised.
	if !loc.decoded {
		loc.doc, loc.issues = yamlstrict.Decode(loc.text)
	}
	var values []yamlstrict.Issue
	for _, is := range loc.issues {
		if isDecodeRule(is.Rule) {
			line, col := loc.fileIssuePos(is.Pos)
			c.add(is.Rule, line, col, "", loc.fileMessage(is))
		} else {
			values = append(values, is)
		}
	}
	if len(c.findings) > 0 || loc.doc == nil {
		if len(c.findings) == 0 {
			c.add(yamlstrict.RuleSyntax, 0, 0, "", "the report could not be decoded")
		}
		res.Findings = c.findings
		return res
	}
	// Stage 5: version gate.
	if c.versionGate(loc.doc) {
		res.Findings = c.findings
		return res
	}
	// Stage 6: values, schema, consistency.
	for _, is := range values {
		line, col := loc.filePos(is.Pos)
		c.add(is.Rule, line, col, is.Pointer, loc.fileMessage(is))
	}
	c.checkSchema(loc.doc)
	c.suppressByValues()
	c.checkConsistency(loc.doc)
	c.suppressByValues()
	res.Findings = c.findings
	if len(c.findings) == 0 {
		res.Report = buildReport(loc, nil)
		res.Evidence = evidence(res.Report)
	} else {
		skip := unusable(c.findings)
		res.Partial = buildReport(loc, skip)
		res.Partial.Dropped = sortedKeys(skip)
		res.Evidence = evidence(res.Partial)
	}
	return res
}

func isDecodeRule(rule string) bool {
	return rule == yamlstrict.RuleSyntax || rule == yamlstrict.RuleMultiDocument || rule == yamlstrict.RuleNotMapping
}

// firstInvalid returns the byte offset of the first byte that is not part of valid UTF-8.
func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// position returns the 1-based line and code-point column of byte offset off in text. Invalid
// bytes before off count as one column each.
func position(text []byte, off int) (int, int) {
	line, start := 1, 0
	for i := 0; i < off && i < len(text); i++ {
		if text[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, utf8.RuneCount(text[start:off]) + 1
}
