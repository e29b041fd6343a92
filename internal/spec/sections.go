package spec

import "strings"

// NormalizeSectionName applies §1.3 name normalisation to a heading's plain text: remove one
// trailing parenthesised group (with any emphasis markers around it, so "Tests Plan *(MANDATORY)*"
// and "Tests Plan (MANDATORY)" both give "Tests Plan"), trim, and collapse internal white space to
// one space. Case is kept; callers compare with strings.EqualFold.
func NormalizeSectionName(text string) string {
	t := strings.TrimSpace(text)
	if strings.HasSuffix(t, ")") {
		if i := strings.LastIndexByte(t, '('); i >= 0 {
			t = t[:i]
		}
	}
	return strings.Join(strings.Fields(t), " ")
}
