package filter

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/markdown"
	"github.com/yuin/goldmark/ast"
)

// Reasons for the (output) item when no usable block is found (agent-contracts.md §2.4).
const (
	reasonNoBlock = "no JSON object found; return the report as one JSON object, optionally in a ```json fence"
	reasonNotUTF8 = "not valid UTF-8"
)

// block is the structured block located in a raw return.
type block struct {
	value *Value // parsed value (any kind); nil when the block failed to parse
	fail  *Item  // the (output) item when no block, a malformed block or a non-object root
	yaml  bool
}

// locateBlock implements §2.4: the whole trimmed return when it is one JSON value; otherwise the
// last ```json fence at any depth; otherwise the last ```yaml/```yml fence. A chosen block that
// does not parse is malformed — there is no fallback to an earlier block and no repair. A return
// that starts with "{" but is not JSON and holds no fence is reported as malformed, not absent.
func locateBlock(src []byte) block {
	trimmed := bytes.TrimSpace(src)
	base := bytes.Index(src, trimmed)
	if len(trimmed) > 0 && json.Valid(trimmed) {
		return parsedBlock(trimmed, src, base, false)
	}
	doc := markdown.Parse(src)
	var lastJSON, lastYAML *ast.FencedCodeBlock
	_ = ast.Walk(doc.Root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if f, ok := n.(*ast.FencedCodeBlock); ok {
			switch strings.ToLower(string(f.Language(src))) {
			case "json":
				lastJSON = f
			case "yaml", "yml":
				lastYAML = f
			}
		}
		return ast.WalkContinue, nil
	})
	if lastJSON != nil {
		content, start := fenceContent(lastJSON, src)
		return parsedBlock(content, src, start, false)
	}
	if lastYAML != nil {
		content, start := fenceContent(lastYAML, src)
		return yamlBlock(content, src, start)
	}
	if bytes.HasPrefix(trimmed, []byte("{")) {
		return parsedBlock(trimmed, src, base, false)
	}
	it := rootItem(reasonNoBlock, RuleNoBlock, "object")
	return block{fail: &it}
}

// fenceContent returns the content of a fenced code block, its line segments joined, and the
// source offset of its first line.
func fenceContent(f *ast.FencedCodeBlock, src []byte) ([]byte, int) {
	lines := f.Lines()
	var b bytes.Buffer
	start := -1
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		if start < 0 {
			start = seg.Start
		}
		b.Write(seg.Value(src))
	}
	if start < 0 {
		start = 0
	}
	return b.Bytes(), start
}

func parsedBlock(content, src []byte, base int, isYAML bool) block {
	v, err := ParseJSON(content)
	if err != nil {
		msg := err.Error()
		if se, ok := err.(*SyntaxError); ok {
			off := int(se.Offset)
			if strings.HasPrefix(se.Msg, "unexpected end of JSON input") {
				off++ // point just past the end, where more input was expected
			}
			msg += " " + positionPhrase(src, base, content, off)
		}
		it := rootItem("malformed JSON: "+msg, RuleMalformed, "object")
		return block{fail: &it}
	}
	return objectBlock(v, isYAML)
}

func objectBlock(v *Value, isYAML bool) block {
	if v.Kind != KindObject {
		it := rootItem("got "+typePhrase(v), RuleNotObject, "object")
		return block{value: v, fail: &it, yaml: isYAML}
	}
	return block{value: v, yaml: isYAML}
}

// positionPhrase names the line and column in the raw return of the byte before offset off of
// content, which starts at base in src when contiguous.
func positionPhrase(src []byte, base int, content []byte, off int) string {
	if off > 0 {
		off-- // encoding/json reports the offset after the offending byte
	}
	if off > len(content) {
		off = len(content)
	}
	firstLine := 1 + bytes.Count(src[:min(base, len(src))], []byte("\n"))
	line := firstLine + bytes.Count(content[:off], []byte("\n"))
	ls := bytes.LastIndexByte(content[:off], '\n') + 1
	col := utf8.RuneCount(content[ls:off]) + 1
	if ls == 0 && base <= len(src) {
		// the first line of the block may start after other text on the same source line
		col += utf8.RuneCount(src[bytes.LastIndexByte(src[:base], '\n')+1 : base])
	}
	return "at line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col)
}

func rootItem(reason, rule, typ string) Item {
	return newItem("(output)", Required, typ, reason, rule, "", nil)
}
