package filter

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/markdown"
	"github.com/yuin/goldmark/ast"
)

// Mode is how the OUTPUT schema is declared (agent-contracts.md §2.3).
type Mode string

// The two declaration modes; the strings appear in the --json envelope's "mode".
const (
	ModeJSONSchema Mode = "json-schema"
	ModeHeadings   Mode = "headings"
)

// Declaration is a parsed OUTPUT schema: a compiled JSON Schema or a list of required headings,
// and whether the status union of §2.6 is on.
type Declaration struct {
	Mode     Mode
	Schema   *Schema   // ModeJSONSchema
	Headings []Heading // ModeHeadings
	Union    bool
}

// NoSchemaError is a brief without a machine-readable OUTPUT schema: a usage error whose message
// is the contract text of §2.3.
type NoSchemaError struct{ Path string }

func (e *NoSchemaError) Error() string {
	return "brief " + e.Path + " declares no machine-readable OUTPUT schema (expected a ```json-schema or ```headings block under an OUTPUT heading)"
}

// ParseBrief reads the OUTPUT schema a Markdown dispatch brief declares, found as agent-contracts.md
// §2.3 says; Union is set when any heading reads NEEDS_INPUT. path names the brief in messages.
func ParseBrief(data []byte, path string) (*Declaration, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	doc := markdown.Parse(data)
	d := &Declaration{Union: hasNeedsInputHeading(doc)}
	hs := topHeadings(doc)
	for _, h := range hs {
		if !isOutputHeading(h.text) {
			continue
		}
		for n := h.node.NextSibling(); n != nil; n = n.NextSibling() {
			if nh, ok := n.(*ast.Heading); ok && nh.Level <= h.level {
				break
			}
			if f := firstQualifyingFence(n, data); f != nil {
				content, _ := fenceContent(f, data)
				if lang := strings.ToLower(string(f.Language(data))); lang == "headings" {
					d.Mode = ModeHeadings
					for i, line := range strings.Split(string(content), "\n") {
						if strings.TrimSpace(line) == "" {
							continue
						}
						req, err := ParseHeading(line)
						if err != nil {
							return nil, fmt.Errorf("brief %s: headings block line %d: %w", path, i+1, err)
						}
						d.Headings = append(d.Headings, req)
					}
					if len(d.Headings) == 0 {
						return nil, &NoSchemaError{Path: path}
					}
					return d, nil
				}
				s, err := CompileSchema(content)
				if err != nil {
					return nil, err
				}
				d.Mode, d.Schema = ModeJSONSchema, s
				return d, nil
			}
		}
		break // only the first OUTPUT section counts
	}
	return nil, &NoSchemaError{Path: path}
}

// isOutputHeading: normalised text is OUTPUT, or OUTPUT followed by a space, ":" or "(".
func isOutputHeading(text string) bool {
	u := strings.ToUpper(text)
	if !strings.HasPrefix(u, "OUTPUT") {
		return false
	}
	rest := u[len("OUTPUT"):]
	return rest == "" || rest[0] == ' ' || rest[0] == ':' || rest[0] == '('
}

func hasNeedsInputHeading(doc *markdown.Doc) bool {
	found := false
	_ = ast.Walk(doc.Root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering && h.Lines().Len() > 0 {
			var parts []string
			for i := 0; i < h.Lines().Len(); i++ {
				seg := h.Lines().At(i)
				parts = append(parts, string(seg.Value(doc.Source)))
			}
			t := strings.ToUpper(normalizeHeading(strings.Join(parts, " ")))
			if t == "NEEDS_INPUT" || t == "NEEDS INPUT" {
				found = true
				return ast.WalkStop, nil
			}
		}
		return ast.WalkContinue, nil
	})
	return found
}

// firstQualifyingFence finds the first qualifying fenced block at or below n.
func firstQualifyingFence(n ast.Node, src []byte) *ast.FencedCodeBlock {
	var found *ast.FencedCodeBlock
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		f, ok := c.(*ast.FencedCodeBlock)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		switch strings.ToLower(string(f.Language(src))) {
		case "json-schema", "headings":
			found = f
		case "json":
			content, _ := fenceContent(f, src)
			if v, err := ParseJSON(content); err == nil && v.Kind == KindObject {
				_, hasSchema := v.Get("$schema")
				_, hasType := v.Get("type")
				if hasSchema || hasType {
					found = f
				}
			}
		}
		if found != nil {
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return found
}
