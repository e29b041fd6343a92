package outputformat

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/mastermind-controller/mastermind/internal/markdown"
	"go.yaml.in/yaml/v3"
)

// Mode is output_format_mode: a strict deviation fails the run, a lenient one warns.
type Mode string

// The two modes; Lenient is the default (§3.1).
const (
	Strict  Mode = "strict"
	Lenient Mode = "lenient"
)

// NoteInvalidYAML is the note of a frontmatter that is not valid YAML and has no output_format
// line (§3.2): the result is "not declared".
const NoteInvalidYAML = "frontmatter is not valid YAML; no output_format read"

// Config is what a SKILL.md declares (§3.2).
type Config struct {
	// Declared is true when output_format is a non-empty string.
	Declared bool
	// Pattern is the output_format value as YAML resolved it.
	Pattern string
	// Mode is output_format_mode, or "" when absent.
	Mode Mode
	// Note explains a "not declared" result from invalid YAML.
	Note string
	// Error is the reason of a configuration error of §3.2 and §3.5, "" when the configuration is
	// usable.
	Error string
}

// Frontmatter returns the frontmatter text of a SKILL.md (BOM stripped): the lines after a first
// line "---" (LF or CRLF) up to the next line equal to "---" once trailing white space and CR are
// removed (markdown.SplitFrontmatter). ok is false when the file has no complete frontmatter.
func Frontmatter(data []byte) (content []byte, ok bool) {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	fm := markdown.SplitFrontmatter(data)
	if !fm.Closed {
		return nil, false
	}
	return data[fm.Start:fm.End], true
}

// ParseSkill reads output_format and output_format_mode from a SKILL.md (§3.2). It never fails:
// problems are Config.Error (configuration errors) or Config.Note (not declared).
func ParseSkill(data []byte) (cfg Config) {
	content, ok := Frontmatter(data)
	if !ok {
		return unclosed(data)
	}
	if err := yamlError(content); err != "" {
		if declaresFormat(content) {
			fix := "quote the output_format value"
			switch {
			case strings.Contains(err, "escape"):
				err += `; a backslash in a double-quoted YAML string starts an escape, so write the pattern in single quotes`
			case strings.Contains(err, `key "output_format" already defined`), strings.Contains(err, `key "output_format_mode" already defined`):
				fix = "keep one of the duplicate keys"
			}
			return Config{Error: fmt.Sprintf("SKILL.md frontmatter is not valid YAML (%s); %s", err, fix)}
		}
		return Config{Note: NoteInvalidYAML}
	}
	var doc yaml.Node
	if err := safeUnmarshal(content, &doc); err != nil || len(doc.Content) == 0 {
		return Config{}
	}
	root := resolve(doc.Content[0])
	if root == nil || root.Kind != yaml.MappingNode {
		return Config{}
	}
	var format, mode *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := resolve(root.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			continue
		}
		switch k.Value {
		case "output_format":
			format = resolve(root.Content[i+1])
		case "output_format_mode":
			mode = resolve(root.Content[i+1])
		}
	}
	if format != nil && !isNull(format) {
		if format.Kind != yaml.ScalarNode || format.ShortTag() != "!!str" {
			return Config{Error: "output_format must be a string; quote it"}
		}
		if format.Value != "" {
			cfg.Declared, cfg.Pattern = true, format.Value
		}
	}
	if mode != nil {
		if mode.Kind == yaml.ScalarNode && mode.ShortTag() == "!!str" && (mode.Value == string(Strict) || mode.Value == string(Lenient)) {
			cfg.Mode = Mode(mode.Value)
		} else {
			return Config{Error: "output_format_mode must be strict or lenient; got " + nodeText(mode)}
		}
	}
	return cfg
}

// declaresFormat reports whether a line of text starts with output_format at column 1.
func declaresFormat(text []byte) bool {
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "output_format") {
			return true
		}
	}
	return false
}

// unclosed handles a SKILL.md whose frontmatter opens on line 1 and never closes, by the rule of
// §3.2: a configuration error when output_format appears before the first near-miss closing line,
// and otherwise not declared, with a note.
func unclosed(data []byte) Config {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	fm := markdown.SplitFrontmatter(data)
	if !fm.Present {
		return Config{}
	}
	region, why := data[fm.Start:], ""
	line := 2
	for off := fm.Start; off < len(data); line++ {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			end += off
			next = end + 1
		} else {
			end = len(data)
		}
		if text := string(bytes.TrimRight(data[off:end], " \t\r")); nearMissClose(text) {
			region, why = data[fm.Start:off], fmt.Sprintf(" (line %d is %q, not \"---\")", line, text)
			break
		}
		off = next
	}
	if declaresFormat(region) {
		return Config{Error: "SKILL.md frontmatter opened at line 1 is never closed" + why + "; end it with a line holding only ---"}
	}
	return Config{Note: "frontmatter opened at line 1 is never closed" + why + "; no output_format read"}
}

// nearMissClose reports whether a line (trailing blanks removed) looks like an attempt to close
// the frontmatter: four or more dashes, "---" after leading blanks, or YAML's "..." end marker.
func nearMissClose(line string) bool {
	if line == "..." {
		return true
	}
	if t := strings.TrimLeft(line, " \t"); t == "---" {
		return true
	}
	return len(line) >= 4 && strings.Trim(line, "-") == ""
}

// yamlError returns the YAML error of content ("" when valid). Decoding into a generic value also
// rejects duplicate mapping keys.
func yamlError(content []byte) string {
	var v any
	if err := safeUnmarshal(content, &v); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
		msg = strings.Join(strings.Fields(msg), " ")
		// yaml.v3 counts lines from the first frontmatter line; SKILL.md line 1 is the "---".
		return yamlLineRe().ReplaceAllStringFunc(msg, func(m string) string {
			n, _ := strconv.Atoi(yamlLineRe().FindStringSubmatch(m)[1])
			return fmt.Sprintf("SKILL.md line %d", n+1)
		})
	}
	return ""
}

var yamlLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bline ([0-9]{1,9})\b`) })

// safeUnmarshal is yaml.Unmarshal with a recovered panic reported as an error.
func safeUnmarshal(content []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: decoder failure: %v", r)
		}
	}()
	return yaml.Unmarshal(content, v)
}

// resolve follows alias nodes a bounded number of times, so an alias cycle cannot loop.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// nodeText renders a node for a message: a scalar's source text, or its kind.
func nodeText(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		if isNull(n) {
			return "null"
		}
		return n.Value
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return "an unsupported value"
}
