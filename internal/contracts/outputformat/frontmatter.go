package outputformat

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

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
	// Error is a configuration error reason (§3.2, §3.5 "output_format configuration invalid:
	// <reason>"); "" when the configuration is usable.
	Error string
}

// Frontmatter returns the frontmatter text of a SKILL.md (BOM stripped): the lines after a first
// line "---" (LF or CRLF) up to the next line equal to "---" once trailing white space and CR are
// removed. ok is false when the file has no complete frontmatter.
func Frontmatter(data []byte) (content []byte, ok bool) {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	var rest []byte
	switch {
	case bytes.HasPrefix(data, []byte("---\n")):
		rest = data[4:]
	case bytes.HasPrefix(data, []byte("---\r\n")):
		rest = data[5:]
	default:
		return nil, false
	}
	for off := 0; off <= len(rest); {
		end := bytes.IndexByte(rest[off:], '\n')
		line := rest[off:]
		next := len(rest) + 1
		if end >= 0 {
			line = rest[off : off+end]
			next = off + end + 1
		}
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			return rest[:off], true
		}
		off = next
	}
	return nil, false
}

// ParseSkill reads output_format and output_format_mode from a SKILL.md (§3.2). It never fails:
// problems are Config.Error (configuration errors) or Config.Note (not declared).
func ParseSkill(data []byte) (cfg Config) {
	content, ok := Frontmatter(data)
	if !ok {
		return Config{}
	}
	if err := yamlError(content); err != "" {
		for _, line := range strings.Split(string(content), "\n") {
			if strings.HasPrefix(line, "output_format") {
				if strings.Contains(err, "escape") {
					err += `; a backslash in a double-quoted YAML string starts an escape, so write the pattern in single quotes`
				}
				return Config{Error: fmt.Sprintf("SKILL.md frontmatter is not valid YAML (%s); quote the output_format value", err)}
			}
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

// yamlError returns the YAML error of content ("" when valid). Decoding into a generic value also
// rejects duplicate mapping keys.
func yamlError(content []byte) string {
	var v any
	if err := safeUnmarshal(content, &v); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
		msg = strings.Join(strings.Fields(msg), " ")
		// yaml.v3 counts lines from the first frontmatter line; SKILL.md line 1 is the "---".
		return yamlLineRe.ReplaceAllStringFunc(msg, func(m string) string {
			n, _ := strconv.Atoi(yamlLineRe.FindStringSubmatch(m)[1])
			return fmt.Sprintf("SKILL.md line %d", n+1)
		})
	}
	return ""
}

var yamlLineRe = regexp.MustCompile(`\bline ([0-9]{1,9})\b`)

// safeUnmarshal is yaml.Unmarshal with a recovered panic reported as an error.
func safeUnmarshal(content []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: decoder failure: %v", r)
		}
	}()
	return yaml.Unmarshal(content, v)
}

// resolve follows alias nodes (bounded, so an alias cycle cannot loop).
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
