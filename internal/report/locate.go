package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/markdown"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
	"github.com/yuin/goldmark/ast"
	yaml "go.yaml.in/yaml/v3"
)

// Rule ids of the locate stage (§5.2 stage 3) and the version gate (stage 5).
const (
	RuleLegacy             = "report.legacy"
	RuleSentinelMalformed  = "report.sentinel_malformed"
	RuleSentinelCount      = "report.sentinel_count"
	RuleSentinelOrder      = "report.sentinel_order"
	RuleBlockContent       = "report.block_content"
	RuleFenceInfo          = "report.fence_info"
	RuleFenceUnclosed      = "report.fence_unclosed"
	RuleSentinelNested     = "report.sentinel_nested"
	RuleNoBlock            = "report.no_block"
	RuleUnsupportedVersion = "report.unsupported_version"
)

// The exact sentinel texts (§1.4) and the tokens that mark an attempt at one.
const (
	BeginSentinel = "<!-- mastermind:report-begin -->"
	EndSentinel   = "<!-- mastermind:report-end -->"
	beginToken    = "mastermind:report-begin"
	endToken      = "mastermind:report-end"
	legacyBegin   = "mastermind:executor-begin"
	legacyEnd     = "mastermind:executor-end"
)

const legacyMessage = "legacy executor block (mastermind:executor-begin/end or a claims/verify-only mapping) is not supported; write schema v1 between <!-- mastermind:report-begin --> and <!-- mastermind:report-end -->"

const noBlockMessage = "no report block found: expected a top-level <!-- mastermind:report-begin --> line, one ```yaml fence and a <!-- mastermind:report-end --> line"

// located is the YAML or JSON text of a located report and how its positions map to the file.
type located struct {
	form    Form
	text    []byte
	json    bool
	fence   *markdown.Fence // sentinel form only
	decoded bool            // doc and issues are already set (bare form)
	doc     *yamlstrict.Doc
	issues  []yamlstrict.Issue
	cr      *crPositions // set when text holds a lone CR (lonecr.go)
}

// filePos maps a position in the decoded text to a file position (§1.6).
func (l *located) filePos(p yamlstrict.Pos) (int, int) {
	if p.IsZero() {
		return 0, 0
	}
	if line, col, ok := l.crFilePos(p); ok {
		return line, col
	}
	if l.fence != nil {
		return l.fence.ContentPosition(p.Line, p.Column)
	}
	return p.Line, p.Column
}

// fileIssuePos is filePos for decode.* issues: an issue without a position is placed at the
// fence's opening line in sentinel form.
func (l *located) fileIssuePos(p yamlstrict.Pos) (int, int) {
	if p.IsZero() && l.fence != nil {
		return l.fence.OpenLine, l.fence.Indent + 1
	}
	return l.filePos(p)
}

// cappedProblem explains why nothing after a line over the nesting cap is trusted.
func cappedProblem(md *markdown.Doc) string {
	lim := md.Limits()
	scaled := ""
	if lim.Markers < markdown.MaxContainerMarkers {
		scaled = fmt.Sprintf(", the limits for a document of %d blank lines", md.BlankLineCount())
	}
	return fmt.Sprintf("which nests more than %d block quotes or list items (or %d columns of indentation before one%s); past such a line mastermind does not read the Markdown structure exactly, so reduce its nesting",
		lim.Markers, lim.Columns, scaled)
}

func containsFold(b []byte, token string) bool {
	return bytes.Contains(bytes.ToLower(b), []byte(token))
}

// locate runs stage 3 (§1.3–§1.5) and returns nil, with the findings in c.findings, when no
// report could be located. md is nil when text holds no sentinel token, and only the bare form
// is then tried.
func (c *checker) locate(md *markdown.Doc, text []byte) *located {
	var begins, ends, legacy []ast.Node
	malformed := 0
	cappedFlagged := false // a sentinel was refused for following a capped line
	var top []ast.Node
	if md != nil {
		top = md.TopLevel()
	}
	for _, n := range top {
		if !markdown.IsTopLevelComment(n) {
			continue
		}
		txt := md.BlockText(n)
		switch {
		case containsFold(txt, legacyBegin) || containsFold(txt, legacyEnd):
			legacy = append(legacy, n)
		case containsFold(txt, beginToken) || containsFold(txt, endToken):
			want := EndSentinel
			if containsFold(txt, beginToken) {
				want = BeginSentinel
			}
			problem := md.CheckSentinel(n, want)
			if capped := md.CappedBefore(md.NodeSpan(n).Start); capped > 0 && problem == "" {
				cappedFlagged = true
				// The nesting guard changed line capped; from there on CommonMark could read
				// this comment as part of an HTML block or a fence, so it is not trusted.
				problem = fmt.Sprintf("comes after line %d, %s", capped, cappedProblem(md))
			}
			if problem != "" {
				line := md.NodeSpan(n).Start
				c.add(RuleSentinelMalformed, line, 1, "", fmt.Sprintf("comment at line %d looks like a report sentinel but %s", line, problem))
				malformed++
			} else if want == BeginSentinel {
				begins = append(begins, n)
			} else {
				ends = append(ends, n)
			}
		}
	}
	// From the first line over the nesting cap on, a CommonMark reader may see a structure the
	// capped parse does not (F1): a sentinel token there, even one the capped parse puts inside
	// a fence or a paragraph, may be a sentinel to it, so neither form is trusted.
	if md != nil && !cappedFlagged {
		if capped := md.CappedBefore(md.LineCount()); capped > 0 {
			for n := capped; n <= md.LineCount(); n++ {
				if lt := md.LineText(n); containsFold(lt, beginToken) || containsFold(lt, endToken) || containsFold(lt, legacyBegin) || containsFold(lt, legacyEnd) {
					c.add(RuleSentinelMalformed, n, 1, "", fmt.Sprintf("line %d mentions a report sentinel after line %d, %s", n, capped, cappedProblem(md)))
					malformed++
					break
				}
			}
		}
	}
	if len(legacy) > 0 {
		c.findings = nil // legacy wins over everything else in this stage
		c.add(RuleLegacy, md.NodeSpan(legacy[0]).Start, 1, "", legacyMessage)
		return nil
	}
	if len(begins)+len(ends)+malformed > 0 {
		return c.locateSentinel(md, begins, ends)
	}
	if loc := c.locateBare(text); loc != nil {
		return loc
	}
	if len(c.findings) > 0 { // legacy mapping
		return nil
	}
	if md != nil {
		c.nested(md)
	}
	if len(c.findings) == 0 {
		c.add(RuleNoBlock, 0, 0, "", noBlockMessage+c.bareHint)
	}
	return nil
}

func lineList(md *markdown.Doc, ns []ast.Node) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(md.NodeSpan(n).Start)
	}
	switch len(parts) {
	case 0:
		return "none"
	case 1:
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// locateSentinel checks the pair, its order and the content between the sentinels (§1.4).
func (c *checker) locateSentinel(md *markdown.Doc, begins, ends []ast.Node) *located {
	failed := len(c.findings) > 0 // malformed sentinels
	line := func(n ast.Node) int { return md.NodeSpan(n).Start }
	if len(begins) == 1 && len(ends) == 0 {
		if f, ok := begins[0].NextSibling().(*ast.FencedCodeBlock); ok {
			fence := md.Fence(f)
			if fence.CloseLine == 0 {
				for _, cl := range fence.Lines {
					if bytes.Equal(bytes.TrimRight(md.LineText(cl.Line), " \t"), []byte(EndSentinel)) {
						c.add(RuleFenceUnclosed, fence.OpenLine, fence.Indent+1, "", fmt.Sprintf(
							"the yaml fence opened at line %d is never closed, so the end sentinel at line %d is inside it; close the fence before the end sentinel",
							fence.OpenLine, cl.Line))
						return nil
					}
				}
			}
		}
	}
	if len(begins) != 1 || len(ends) != 1 {
		if len(begins)+len(ends) > 0 {
			var at ast.Node
			switch {
			case len(begins) >= 2:
				at = begins[1]
			case len(ends) >= 2 && len(begins) == 1:
				at = ends[1]
			case len(ends) >= 1:
				at = ends[0]
			default:
				at = begins[0]
			}
			c.add(RuleSentinelCount, line(at), 1, "", fmt.Sprintf(
				"found %d begin %s (%s) and %d end %s (%s); a report has exactly one of each",
				len(begins), plural(len(begins), "sentinel", "sentinels"), lineList(md, begins),
				len(ends), plural(len(ends), "sentinel", "sentinels"), lineList(md, ends)))
		}
		return nil
	}
	b, e := begins[0], ends[0]
	if line(e) < line(b) {
		c.add(RuleSentinelOrder, line(e), 1, "", fmt.Sprintf("the end sentinel (line %d) comes before the begin sentinel (line %d)", line(e), line(b)))
		return nil
	}
	if failed {
		return nil
	}
	return c.between(md, b, e)
}

func article(kind string) string {
	switch kind[0] {
	case 'a', 'e', 'i', 'o', 'u', 'H':
		return "an " + kind
	}
	return "a " + kind
}

// between checks that exactly one fence, surrounded by blank lines only, lies between the
// sentinels, and that its info string is exactly yaml.
func (c *checker) between(md *markdown.Doc, b, e ast.Node) *located {
	bl, el := md.NodeSpan(b).Start, md.NodeSpan(e).Start
	var fence *markdown.Fence
	offLine, offKind := 0, ""
	for n := b.NextSibling(); n != nil && n != e; n = n.NextSibling() {
		kind := ""
		if f, ok := n.(*ast.FencedCodeBlock); ok {
			if fence == nil {
				fv := md.Fence(f)
				fence = &fv
				continue
			}
			kind = "second code block"
		} else {
			kind = markdown.KindName(n)
		}
		if s := md.NodeSpan(n).Start; offLine == 0 || s < offLine {
			offLine, offKind = s, kind
		}
	}
	// Source-line check: link reference definitions and the like leave no block to see.
	lo, hi := el, el
	if fence != nil {
		lo, hi = fence.OpenLine, fence.CloseLine
	}
	for l := bl + 1; l < el; l++ {
		if fence != nil && l >= lo && l <= hi {
			continue
		}
		if !md.IsBlankLine(l) {
			if offLine == 0 || l < offLine {
				offLine, offKind = l, "link reference definition"
				for n := b.NextSibling(); n != nil && n != e; n = n.NextSibling() {
					if md.NodeSpan(n).Contains(l) {
						offKind = markdown.KindName(n)
						if _, ok := n.(*ast.FencedCodeBlock); ok {
							offKind = "second code block"
						}
					}
				}
			}
			break
		}
	}
	if offLine != 0 {
		c.add(RuleBlockContent, offLine, 1, "", fmt.Sprintf("line %d holds %s between the sentinels; only blank lines and one ```yaml fence may appear there", offLine, article(offKind)))
	} else if fence == nil {
		c.add(RuleBlockContent, bl+1, 1, "", "no fenced code block between the sentinels")
	}
	if fence != nil && fence.Info != "yaml" {
		c.add(RuleFenceInfo, fence.OpenLine, fence.Indent+1, "", fmt.Sprintf("the fence's info string is %q; it must be exactly \"yaml\" (use ```yaml)", fence.Info))
	}
	if len(c.findings) > 0 {
		return nil
	}
	return &located{form: FormSentinel, text: fence.Content, fence: fence}
}

// locateBare tries the bare form of §1.5 and then the legacy mapping. It returns the located bare
// report, or nil, with a report.legacy finding for a claims/verify-only mapping.
func (c *checker) locateBare(text []byte) *located {
	isJSON := false
	trimmed := bytes.TrimLeft(text, " \t\r\n")
	var doc *yamlstrict.Doc
	var issues, jsonIssues []yamlstrict.Issue
	if len(trimmed) > 0 && trimmed[0] == '{' {
		doc, issues = yamlstrict.DecodeJSON(text)
		isJSON = true
		if hasRule(issues, yamlstrict.RuleSyntax) {
			jsonIssues = issues
			doc, issues = yamlstrict.Decode(text)
			isJSON = false
		}
	} else {
		doc, issues = yamlstrict.Decode(text)
	}
	bare := false
	defer func() {
		if !bare && isMarkdownName(c.file) && !startsLikeBare(text) {
			// Markdown prose without the sentinels: its YAML error says nothing useful.
			return
		}
		if !bare {
			if doc == nil && jsonIssues != nil {
				// Neither JSON nor YAML: a text that starts with '{' was meant as JSON, so its
				// JSON error is the useful one.
				c.bareHint = bareHint(text, true, nil, jsonIssues)
			} else {
				c.bareHint = bareHint(text, isJSON, doc, issues)
			}
		}
	}()
	switch {
	case doc != nil && !hasDecodeIssue(issues):
		if root := doc.Nodes[""]; root != nil && root.Kind == yamlstrict.KindMap {
			for _, k := range root.Keys {
				if k == "schema_version" {
					bare = true
				}
			}
			if !bare && len(root.Keys) > 0 && allLegacyKeys(root.Keys) {
				c.add(RuleLegacy, root.Pos.Line, root.Pos.Column, "", legacyMessage)
				return nil
			}
		}
	case hasRule(issues, yamlstrict.RuleMultiDocument):
		bare = firstDocHasVersion(text, isJSON)
	}
	if !bare {
		return nil
	}
	return &located{form: FormBare, text: text, json: isJSON, decoded: true, doc: doc, issues: issues}
}

func allLegacyKeys(keys []string) bool {
	for _, k := range keys {
		if k != "claims" && k != "verify" {
			return false
		}
	}
	return true
}

func hasRule(issues []yamlstrict.Issue, rule string) bool {
	return slices.ContainsFunc(issues, func(is yamlstrict.Issue) bool { return is.Rule == rule })
}

func hasDecodeIssue(issues []yamlstrict.Issue) bool {
	return slices.ContainsFunc(issues, func(is yamlstrict.Issue) bool { return isDecodeRule(is.Rule) })
}

// firstDocHasVersion reports whether the first of several documents is a mapping with the key
// schema_version, so a multi-document bare report is recognised as bare form (§8.3 Y15).
func firstDocHasVersion(text []byte, isJSON bool) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if isJSON {
		var m map[string]json.RawMessage
		if err := json.NewDecoder(bytes.NewReader(text)).Decode(&m); err != nil {
			return false
		}
		_, ok := m["schema_version"]
		return ok
	}
	var n yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(text)).Decode(&n); err != nil {
		return false
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
		return false
	}
	m := n.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == "schema_version" {
			return true
		}
	}
	return false
}

// nested reports every line that holds sentinel text inside a container or non-sentinel block
// (§1.4 "Nothing found").
func (c *checker) nested(md *markdown.Doc) {
	top := md.TopLevel()
	for l := 1; l <= md.LineCount(); l++ {
		txt := md.LineText(l)
		low := bytes.ToLower(txt)
		i := bytes.Index(low, []byte(beginToken))
		if j := bytes.Index(low, []byte(endToken)); i < 0 || (j >= 0 && j < i) {
			i = j
		}
		if i < 0 {
			continue
		}
		if k := bytes.LastIndex(txt[:i], []byte("<!--")); k >= 0 {
			i = k
		}
		col := utf8.RuneCount(txt[:i]) + 1
		kind, span := "paragraph", markdown.Span{Start: l, End: l}
		for _, n := range top {
			s := md.NodeSpan(n)
			if !s.Contains(l) {
				continue
			}
			kind, span = markdown.KindName(n), s
			if _, ok := n.(*ast.List); ok {
				for it := n.FirstChild(); it != nil; it = it.NextSibling() {
					if is := md.NodeSpan(it); is.Contains(l) {
						kind, span = "list item", is
					}
				}
			}
			break
		}
		lines := fmt.Sprintf("lines %d–%d", span.Start, span.End)
		if span.Start == span.End {
			lines = fmt.Sprintf("line %d", span.Start)
		}
		c.add(RuleSentinelNested, l, col, "", fmt.Sprintf("sentinel text at line %d is inside %s (%s), so it is content, not a sentinel; put the report block at the top level", l, article(kind), lines))
	}
}

// bareHint explains, for a text that mentions schema_version and so looks like an attempt at the
// bare form, why it is not one: the decoder's first error, or a root that is not a mapping with
// a schema_version key. It is appended to the report.no_block message ("" otherwise).
func bareHint(text []byte, isJSON bool, doc *yamlstrict.Doc, issues []yamlstrict.Issue) string {
	if !bytes.Contains(text, []byte("schema_version")) {
		return ""
	}
	form := "YAML"
	if isJSON {
		form = "JSON"
	}
	for _, is := range issues {
		if isDecodeRule(is.Rule) {
			where := ""
			if is.Pos.Line > 0 && !strings.Contains(is.Message, " at line ") {
				where = fmt.Sprintf(" at line %d", is.Pos.Line)
			}
			return fmt.Sprintf("; the file is not a bare %s report either (%s%s)", form, is.Message, where)
		}
	}
	if doc != nil {
		return fmt.Sprintf("; the file is not a bare %s report either (its root mapping has no schema_version key)", form)
	}
	return ""
}

// isMarkdownName reports whether the display name is a Markdown file (.md, .markdown, any case).
func isMarkdownName(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

// startsLikeBare reports whether the first non-blank line of text opens a bare report: a JSON
// object, a YAML document start or the schema_version key. A Markdown file that starts any
// other way is prose, and the bare-form hint is not given for it.
func startsLikeBare(text []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(text, bom), " \t\r\n")
	return bytes.HasPrefix(t, []byte("{")) || bytes.HasPrefix(t, []byte("---")) || bytes.HasPrefix(t, []byte("schema_version"))
}

// mayHoldSentinel reports whether text contains, in any case, one of the tokens that make a
// comment a sentinel attempt (report-begin/end, legacy executor-begin/end). Without one, no
// block can be a sentinel and the Markdown structure is not needed: a bare report of 100,000
// list items is then not also parsed as 100,000 Markdown list items.
func mayHoldSentinel(text []byte) bool {
	low := bytes.ToLower(text)
	for _, tok := range []string{beginToken, endToken, legacyBegin, legacyEnd} {
		if bytes.Contains(low, []byte(tok)) {
			return true
		}
	}
	return false
}
