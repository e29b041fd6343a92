package verification

import (
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
)

// MatchKey is the form in which a declared command and a report row's cmd are compared
// (spec-and-lifecycle.md §10.5.2 as amended by lifecycle-v2.md §7): trimmed, with every run of
// spaces and tabs collapsed to one space. Case, quoting, line breaks and every other byte still
// count; there is no shell equivalence.
func MatchKey(cmd string) string {
	return strings.Join(strings.FieldsFunc(strings.TrimSpace(cmd), func(r rune) bool { return r == ' ' || r == '\t' }), " ")
}

// maxNearMissRunes bounds the commands compared by edit distance, so that the quadratic
// distance never runs on huge report values.
const maxNearMissRunes = 512

// nearMiss returns the reported command closest to the declared command c when c has no row, by
// the rule of spec-and-lifecycle.md §10.5.2, or "". keys[i] is MatchKey(rows[i].Cmd) and invs[i]
// the row's parsed invocation. It never satisfies c.
func nearMiss(c string, rows []Row, keys []string, invs []*invocation, reason string) string {
	if reason != ReasonMissingResult || len(rows) == 0 {
		return ""
	}
	cn := utf8.RuneCountInString(c)
	if cn > maxNearMissRunes {
		return ""
	}
	runner, cRecognised := Recognize(c)
	best, bestDist := "", -1
	for i, r := range rows {
		k := keys[i]
		kn := utf8.RuneCountInString(k)
		if k == "" || kn > maxNearMissRunes {
			continue
		}
		d := levenshtein.ComputeDistance(c, k) // in runes, like cn and kn
		sameRunner := cRecognised && invs[i] != nil && invs[i].runner == runner
		if d > max(cn, kn)/3 && !sameRunner {
			continue
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = strings.TrimSpace(r.Cmd), d
		}
	}
	return best
}
