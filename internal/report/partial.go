package report

import (
	"sort"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// unusable returns the units of the report value that a partial report leaves out by the rules
// of §5.6: one element of a top-level list, or a top-level field, per finding that refuses a
// value.
func unusable(fs []finding.Finding) map[string]bool {
	skip := map[string]bool{}
	for _, f := range fs {
		switch {
		case strings.HasPrefix(f.Rule, "value."), strings.HasPrefix(f.Rule, "schema."),
			f.Rule == RuleBlank, f.Rule == RulePathInvalid:
		default:
			continue
		}
		if u := unit(f.Pointer); u != "" {
			skip[u] = true
		}
	}
	return skip
}

// unit returns the first one or two tokens of pointer: "/a/1/b" -> "/a/1", "/a" -> "/a".
func unit(pointer string) string {
	if pointer == "" {
		return ""
	}
	toks := strings.SplitN(strings.TrimPrefix(pointer, "/"), "/", 3)
	if len(toks) == 1 {
		return "/" + toks[0]
	}
	return "/" + toks[0] + "/" + toks[1]
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return []string{}
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
