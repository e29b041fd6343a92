package audit

import (
	"slices"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// TestSortAndVerdict: §9.3 order (class, kind in table order, primary field, message) and the
// §9.2 verdict rule.
func TestSortAndVerdict(t *testing.T) {
	fs := []finding.Finding{
		findUnexpectedFile("b.go"), findUnexpectedFile("a.go"), findChangedSetDegraded("git_unavailable"),
		findReportMissingChangedFile("z.go"), findDeclaredFileUnavailable("d.md", ReasonTargetMissing),
		findMissingExpectedFile("c.go"),
		newFinding(finding.KindExecutorClaimUnresolved, "claim 10", "claim_index", 10, "reason", "ambiguous"),
		newFinding(finding.KindExecutorClaimUnresolved, "claim 9", "claim_index", 9, "reason", "ambiguous"),
	}
	Sort(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule+" "+f.FieldString("file")+f.FieldString("claim_index"))
	}
	want := []string{"declared_file_unavailable d.md", "executor_claim_unresolved 9", "executor_claim_unresolved 10",
		"executor_report_missing_changed_file z.go", "unexpected_file a.go", "unexpected_file b.go",
		"missing_expected_file c.go", "changed_set_degraded "}
	if !slices.Equal(got, want) {
		t.Fatalf("order\n got  %q\n want %q", got, want)
	}
	if VerdictOf(fs) != VerdictBroken || VerdictOf(fs[4:]) != VerdictDrift || VerdictOf(nil) != VerdictHeld {
		t.Fatal("verdict rule")
	}
}

// findUnexpectedFile and findReportMissingChangedFile build one per-path finding as the checks
// do (run.pathFindings, finding.PathFinding), for tables of expected findings.
func findUnexpectedFile(file string) finding.Finding {
	return finding.PathFinding(finding.KindUnexpectedFile, []finding.Field{{Key: "file", Value: file}})
}

func findReportMissingChangedFile(file string) finding.Finding {
	return finding.PathFinding(finding.KindReportMissingChangedFile, []finding.Field{{Key: "file", Value: file}})
}
