package postflight

import (
	"slices"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
)

// TestFingerprintAllEqualsLines: the streaming §6 fingerprint over explicit findings and path
// runs equals the fingerprint of every finding's line, for both verdicts, with duplicates and
// with a run whose paths are out of order.
func TestFingerprintAllEqualsLines(t *testing.T) {
	files := []finding.Field{{Key: "file", Value: "a.go"}, {Key: "file", Value: "b/c.go"}, {Key: "file", Value: "b/d.go"}, {Key: "file", Value: "z"}}
	runs := []finding.PathRun{
		{Kind: finding.KindReportMissingChangedFile, Files: files},
		{Kind: finding.KindUnexpectedFile, Files: files[1:]},
	}
	explicit := []finding.Finding{
		{Rule: finding.KindUnexpectedFile, Class: finding.ClassWarning, Message: "changed outside the declared scope: b/c.go", Fields: []finding.Field{{Key: "file", Value: "b/c.go"}}},
		{Rule: finding.KindMissingExpectedFile, Class: finding.ClassWarning, Message: "m", Fields: []finding.Field{{Key: "file", Value: "q.go"}}},
		{Rule: finding.KindForbiddenPathChanged, Class: finding.ClassError, Message: "f", Fields: []finding.Field{{Key: "file", Value: "b/d.go"}}},
	}
	audit.Sort(explicit)
	for _, verdict := range []Verdict{VerdictBroken, VerdictDrift} {
		// A run out of path order (not one the audit builds) falls back to hashing every line.
		unordered := []finding.PathRun{{Kind: finding.KindUnexpectedFile, Files: []finding.Field{files[3], files[0], files[2]}}}
		for _, rs := range [][]finding.PathRun{nil, runs[:1], runs, unordered} {
			all := slices.Collect(audit.All(explicit, rs))
			want := Fingerprint(fingerprintLines(all, verdict))
			if got := fingerprintAll(explicit, rs, verdict); got != want {
				t.Errorf("%s with %d runs: fingerprint %s, want %s", verdict, len(rs), got, want)
			}
		}
	}
}
