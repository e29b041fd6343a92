package yamlstrict

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// Message texts follow executor-report-v1.md §5.2. Text taken from the input
// is escaped with textsafe and clipped to maxShown code points, so that a huge
// key or literal cannot blow up a message.

const maxShown = 200

func show(s string) string {
	if utf8.RuneCountInString(s) > maxShown {
		n := 0
		for i := range s {
			if n == maxShown {
				s = s[:i] + "…"
				break
			}
			n++
		}
	}
	return textsafe.Escape(s)
}

func field(ptr string) string { return show(FieldName(ptr)) }

func msgSyntax(lang, msg string) string { return lang + " syntax error: " + textsafe.Escape(msg) }

func msgMultiDocument(line int) string {
	return fmt.Sprintf("the yaml block holds more than one document (second starts at line %d); write exactly one", line)
}

func msgNotMapping(got string) string {
	return "the report must be a mapping of fields; got " + got
}

func msgNull(ptr string) string {
	return field(ptr) + " is null; omit an optional field instead of leaving it empty, or give it a value"
}

func msgTag(ptr, tag string) string {
	return field(ptr) + " uses the YAML tag " + show(tag) + "; tags are not allowed — write the plain value"
}

func msgAnchor(found string) string {
	return "anchors and aliases are not allowed (found " + show(found) + "); write the value out in full"
}

func msgMergeKey() string { return "merge keys (<<) are not allowed; write the fields out in full" }

func msgKeyNotString(literal string) string {
	if literal == "" {
		literal = "(empty)"
	}
	return "mapping key " + show(literal) + " is not a string; field names are strings"
}

func msgDuplicateKey(name string, first, second int) string {
	return fmt.Sprintf("key %s appears twice in the same mapping (lines %d and %d); remove one", show(name), first, second)
}

func msgDepth() string { return fmt.Sprintf("nesting deeper than %d levels", MaxDepth) }

func msgNonFinite(ptr, literal string) string {
	return field(ptr) + " is " + show(strings.TrimSpace(literal)) + "; numbers must be finite"
}

func msgIntRange(ptr, literal string) string {
	return field(ptr) + " integer " + show(literal) + " does not fit in 64 bits"
}
