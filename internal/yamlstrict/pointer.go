package yamlstrict

import (
	"strings"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
)

// FieldName renders a JSON pointer in the dotted message form used by
// executor-report-v1.md §5.2: "/phases/0/id" -> "phases[0].id",
// "" -> "the report". A token made only of ASCII digits renders as an index.
func FieldName(pointer string) string {
	if pointer == "" {
		return "the report"
	}
	var b strings.Builder
	for i, t := range jsonptr.Split(pointer) {
		if i > 0 && isIndexToken(t) {
			b.WriteByte('[')
			b.WriteString(t)
			b.WriteByte(']')
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(t)
	}
	return b.String()
}

func isIndexToken(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}
