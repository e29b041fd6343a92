package yamlstrict

import (
	"strconv"
	"strings"
)

// PointerJoin appends one RFC 6901 reference token to parent, escaping "~" as
// "~0" and "/" as "~1": PointerJoin("/a", "b/c") == "/a/b~1c".
func PointerJoin(parent, token string) string {
	if strings.ContainsAny(token, "~/") {
		token = strings.NewReplacer("~", "~0", "/", "~1").Replace(token)
	}
	return parent + "/" + token
}

func pointerIndex(parent string, i int) string {
	return parent + "/" + strconv.Itoa(i)
}

// FieldName renders a JSON pointer in the dotted message form used by
// executor-report-v1.md §5.2: "/phases/0/id" -> "phases[0].id",
// "" -> "the report". A token made only of ASCII digits renders as an index.
func FieldName(pointer string) string {
	if pointer == "" {
		return "the report"
	}
	var b strings.Builder
	toks := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i, t := range toks {
		if strings.Contains(t, "~") {
			t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		}
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
