package spec

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// parser carries one Parse call.
type parser struct {
	file     string
	spec     *Spec
	findings []finding.Finding
}

func newParser(data []byte, file string) *parser {
	sum := sha256.Sum256(data)
	return &parser{file: file, spec: &Spec{Raw: data, Hash: hex.EncodeToString(sum[:]),
		Frontmatter: Frontmatter{Risk: RiskLow, Mode: ModeStandard}, Scope: Scope{Source: SourceNone}}}
}

func (p *parser) run() {}
