package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/markdown"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// bom is the UTF-8 byte order mark stripped from the start of spec.md (§1.1).
var bom = []byte{0xEF, 0xBB, 0xBF}

// parser carries one Parse call.
type parser struct {
	file     string
	spec     *Spec
	findings []finding.Finding

	text []byte // the file after BOM stripping

	// Frontmatter state.
	fmPresent     bool // text starts with the opening delimiter
	fmTerminated  bool // a closing line was found
	fmValid       bool // present, terminated, decoded, and every field has its shape
	modeKnown     bool // no frontmatter, or a valid or absent mode field
	modeLine      int  // position of the mode value, for spec.no_verify_command
	modeCol       int
	fmCmds        []fmCmd
	fmDecls       []decl
	fmEnd         int // byte offset of the closing delimiter line
	bodyStart     int // byte offset of the body in text
	bodyLineShift int // lines before the body

	body *markdown.Doc
}

// posString is a string with its spec.md position.
type posString struct {
	value     string
	line, col int
	pointer   string
}

func newParser(data []byte, file string) *parser {
	sum := sha256.Sum256(data)
	return &parser{file: file, spec: &Spec{file: file, Raw: data, Hash: hex.EncodeToString(sum[:]),
		Frontmatter: Frontmatter{Risk: RiskLow, Mode: ModeStandard}, Scope: Scope{Source: SourceNone}}}
}

// add appends an error-class finding at a spec.md position.
func (p *parser) add(rule string, line, col int, pointer, msg string, fields ...finding.Field) {
	p.findings = append(p.findings, finding.Finding{Rule: rule, Class: finding.ClassError, File: p.file,
		Line: line, Column: col, Pointer: pointer, Message: textsafe.Escape(msg), Fields: fields})
}

func (p *parser) run() {
	raw := p.spec.Raw
	p.text = bytes.TrimPrefix(raw, bom)
	if !utf8.Valid(p.text) {
		line, col := invalidUTF8Position(p.text)
		p.add(RuleUnreadable, line, col, "",
			fmt.Sprintf("spec is not valid UTF-8 (first invalid byte at line %d, column %d); save it as UTF-8", line, col),
			finding.Field{Key: "reason", Value: "not_utf8"})
		p.text = nil
		p.body = markdown.Parse(nil)
		p.spec.fallback = &Scope{Source: SourceNone}
		return
	}
	p.splitFrontmatter()
	if p.fmPresent && p.fmTerminated {
		p.decodeFrontmatter()
	}
	p.body = markdown.Parse(p.text[p.bodyStart:])
	p.bodyLineShift = lineCountBefore(p.text, p.bodyStart)
	p.readSections()
	p.readScope()
	p.readVerify()
}

// bodyPos maps a body line and column to spec.md.
func (p *parser) bodyPos(line, col int) (int, int) {
	if line == 0 {
		return 0, 0
	}
	return line + p.bodyLineShift, col
}

// lineCountBefore returns the number of line feeds in text[:off].
func lineCountBefore(text []byte, off int) int {
	return bytes.Count(text[:off], []byte("\n"))
}

// invalidUTF8Position returns the 1-based line and code-point column of the first invalid byte.
func invalidUTF8Position(b []byte) (line, col int) {
	line, col = 1, 1
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			return line, col
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		b = b[size:]
	}
	return line, col
}
