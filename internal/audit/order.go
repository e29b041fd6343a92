package audit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// primaryField returns the §9.3 sort key of f: the first primary field of its kind that it
// carries, an integer zero-padded so that it sorts by value.
func primaryField(f finding.Finding) string {
	keys := finding.PrimaryFallback
	if k, ok := finding.KindOf(f.Rule); ok {
		keys = k.Primary
	}
	for _, key := range keys {
		if v, ok := f.Field(key); ok {
			if n, isInt := v.(int); isInt {
				return fmt.Sprintf("%020d", n)
			}
			return f.FieldString(key)
		}
	}
	return ""
}

// classRank sorts errors before warnings.
func classRank(c finding.Class) int {
	if c == finding.ClassWarning {
		return 1
	}
	return 0
}

// Compare orders audit findings by §9.3: class (errors first), kind in §9.1 table order, the
// primary field by bytes, then the message.
func Compare(a, b finding.Finding) int {
	if c := cmp.Or(
		cmp.Compare(classRank(a.Class), classRank(b.Class)),
		cmp.Compare(finding.KindRank(a.Rule), finding.KindRank(b.Rule)),
		strings.Compare(a.Rule, b.Rule),
		strings.Compare(primaryField(a), primaryField(b)),
	); c != 0 {
		return c
	}
	// Text builds a per-path finding's message: only a tie reads it.
	return strings.Compare(a.Text(), b.Text())
}

// Sort sorts audit findings in place by Compare.
func Sort(fs []finding.Finding) { slices.SortStableFunc(fs, Compare) }

// VerdictOf applies §9.2: any error ⇒ broken; otherwise any warning ⇒ drift; otherwise held.
func VerdictOf(fs []finding.Finding) Verdict {
	e, w := finding.Count(fs)
	switch {
	case e > 0:
		return VerdictBroken
	case w > 0:
		return VerdictDrift
	}
	return VerdictHeld
}
