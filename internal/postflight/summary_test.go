package postflight

import (
	"fmt"
	"strings"
	"testing"
)

// TestCapAuditSummary: at most max findings, shared round-robin among the kinds in their order,
// detail lines kept with their finding, the rest counted by kind; the header and the tail kept;
// a summary within the cap unchanged.
func TestCapAuditSummary(t *testing.T) {
	head := "❌ Broken — s (vs git ref `b`)\n  findings: 9 (errors: 3, warnings: 6)\n  changed files: 6 (source: git)\n\n"
	tail := "\n  next: return to design — x\n\n"
	var body strings.Builder
	body.WriteString("  ❌ executor_report_rejected: rejected\n      a.md:1:1: bad [schema.type]\n")
	for i := range 2 {
		fmt.Fprintf(&body, "  ❌ verification_requirement_unmet: cmd %d\n", i)
	}
	for i := range 6 {
		fmt.Fprintf(&body, "  ⚠️ unexpected_file: changed outside the declared scope: f%d\n", i)
	}
	summary := head + body.String() + tail
	if got := CapAuditSummary(summary, 9); got != summary {
		t.Fatalf("within the cap, changed:\n%s", got)
	}
	want := head +
		"  ❌ executor_report_rejected: rejected\n      a.md:1:1: bad [schema.type]\n" +
		"  ❌ verification_requirement_unmet: cmd 0\n  ❌ verification_requirement_unmet: cmd 1\n" +
		"  ⚠️ unexpected_file: changed outside the declared scope: f0\n  ⚠️ unexpected_file: changed outside the declared scope: f1\n" +
		"  … and 4 more (audit.md lists all): 4 unexpected_file\n" + tail
	if got := CapAuditSummary(summary, 5); got != want {
		t.Fatalf("capped at 5:\n got %q\nwant %q", got, want)
	}
	want = head + "  ❌ executor_report_rejected: rejected\n      a.md:1:1: bad [schema.type]\n" +
		"  ❌ verification_requirement_unmet: cmd 0\n" +
		"  … and 7 more (audit.md lists all): 1 verification_requirement_unmet, 6 unexpected_file\n" + tail
	if got := CapAuditSummary(summary, 2); got != want {
		t.Fatalf("capped at 2:\n got %q\nwant %q", got, want)
	}
	if got := CapAuditSummary("no blank line", 1); got != "no blank line" {
		t.Fatal(got)
	}
}
