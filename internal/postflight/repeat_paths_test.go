package postflight

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
)

// expandAll is every finding of o with its message spelled out.
func expandAll(o *Outcome) []finding.Finding {
	var out []finding.Finding
	for f := range o.AllFindings() {
		out = append(out, f.Expand())
	}
	return out
}

// TestRepeatedOddPathsSameOutcome: paths whose bytes sort differently from their runes or from
// UTF-16, with quotes, spaces and non-ASCII, some listed and some not, give the same findings in
// the same order on a repeated post-flight as on the first.
func TestRepeatedOddPathsSameOutcome(t *testing.T) {
	root, opts := newTaskRepo(t)
	odd := []string{"notes/a\"b.txt", "notes/a b.txt", "notes/é.txt", "notes/\uff61.txt", "notes/\U0001F600.txt",
		"notes/z.txt", "notes/a/b.txt", "notes/a-b.txt", "notes/a.b", "n/x", "n-/x", "n.x", "notes/日本.txt"}
	for _, p := range odd {
		writeFile(t, root, p, "x\n")
	}
	listed := []string{"internal/cache/cache.go", "notes/é.txt", "notes/a/b.txt", "n-/x"}
	writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = 2\n")
	writeFile(t, root, reportRel, reportText(listed, ""))
	first := run(t, opts, ModePostOnly)
	if first.Repeated {
		t.Fatal("first repeated")
	}
	fa := expandAll(first)
	if !slices.IsSortedFunc(fa, func(a, b finding.Finding) int { return audit.Compare(a, b) }) {
		t.Fatalf("first outcome not in audit order: %+v", fa)
	}
	second := run(t, opts, ModePostOnly)
	if !second.Repeated {
		t.Fatalf("second not repeated: %s", second.Message)
	}
	if d := cmp.Diff(fa, expandAll(second)); d != "" {
		t.Fatalf("repeated findings differ (-first +repeated):\n%s", d)
	}
	if first.AuditSummary != second.AuditSummary || first.Message != second.Message || first.Verdict != second.Verdict {
		t.Fatalf("summary/message/verdict differ")
	}
	// No verify command ran: receipts are null in both --json envelopes, not null then [].
	if d := cmp.Diff(first.Receipts, second.Receipts); d != "" {
		t.Errorf("receipts differ (-first +repeated):\n%s", d)
	}
}

// TestRepeatedRejectedManyPaths: a rejected report (its feedback round holds per-path runs)
// over more changed paths than the summary shows gives, repeated, the first outcome: findings,
// violations, summary, message, next step, state and artifacts.
func TestRepeatedRejectedManyPaths(t *testing.T) {
	root, opts := newTaskRepo(t)
	for i := range 70 {
		writeFile(t, root, fmt.Sprintf("gen/f%03d.go", i), "package gen\n")
	}
	writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = 2\n")
	// files_modified lists a path twice: a schema-valid report rejected for consistency, audited
	// in full beside the rejection.
	writeFile(t, root, reportRel, reportText([]string{"internal/cache/cache.go", "gen/f001.go", "gen/f001.go"}, ""))
	first := run(t, opts, ModePostOnly)
	if first.Repeated || first.Verdict != VerdictBroken {
		t.Fatalf("first: repeated %v verdict %s: %s", first.Repeated, first.Verdict, first.Message)
	}
	if !slices.ContainsFunc(expandAll(first), func(f finding.Finding) bool { return f.Rule == finding.KindExecutorReportRejected }) {
		t.Fatalf("report not rejected: %+v", expandAll(first))
	}
	second := run(t, opts, ModePostOnly)
	if !second.Repeated {
		t.Fatalf("second not repeated: %s", second.Message)
	}
	if d := cmp.Diff(expandAll(first), expandAll(second)); d != "" {
		t.Fatalf("repeated findings differ (-first +repeated):\n%s", d)
	}
	if d := cmp.Diff(first.ReportViolations, second.ReportViolations); d != "" {
		t.Errorf("violations differ:\n%s", d)
	}
	if first.AuditSummary != second.AuditSummary || !strings.Contains(first.AuditSummary, "… and") {
		t.Errorf("summary differs or is not capped:\n%s\n---\n%s", first.AuditSummary, second.AuditSummary)
	}
	if first.Message != second.Message || first.Next != second.Next || first.Outcome != second.Outcome {
		t.Errorf("message/next/outcome differ: %q %+v %s; %q %+v %s", first.Message, first.Next, first.Outcome, second.Message, second.Next, second.Outcome)
	}
	if d := cmp.Diff(first.State, second.State); d != "" {
		t.Errorf("state differs:\n%s", d)
	}
	if d := cmp.Diff(first.Artifacts, second.Artifacts); d != "" {
		t.Errorf("artifacts differ:\n%s", d)
	}
}
