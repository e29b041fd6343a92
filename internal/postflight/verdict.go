package postflight

import "fmt"

// VerdictCounts is a verdict with its counts: "<icon> <Verdict> — errors: E, warnings: W".
func VerdictCounts(v Verdict, c Counts) string {
	return fmt.Sprintf("%s — errors: %d, warnings: %d", verdictTitle(v), c.Errors, c.Warnings)
}

// verdictSentence is the one-line result of a post-flight that reached verdict v with counts c
// (a drift or broken task's blocking_reason), or with accepted non-empty the line of a drift the
// planner accepted for that reason. Every outcome that states its verdict says it with this line.
func verdictSentence(v Verdict, c Counts, accepted string) string {
	if accepted != "" {
		return "post-flight verdict: ⚠️ Drift, accepted by the planner: " + accepted
	}
	return "post-flight verdict: " + VerdictCounts(v, c)
}
