package verifyrun

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/verification"
)

// Audit kinds of verification-receipts.md §2 and §4.
const (
	KindVerificationFailed = finding.KindVerificationFailed
	KindZeroTests          = finding.KindObservedZeroTests
	KindClaimContradicted  = finding.KindVerificationClaimContradicted
	KindUnreported         = finding.KindVerificationUnreported
	KindModifiedWorktree   = finding.KindVerificationModifiedWorktree
)

// failedTailLines is how many last output lines a verification_failed message quotes.
const failedTailLines = 5

// Rules applies the audit rules of verification-receipts.md §4, in the order of its table, to one
// declared command d that mastermind ran, its receipt r and all the report's verification rows.
// The rows for d are those matching d.Cmd by verification.MatchKey. It is a pure function.
func Rules(d spec.DeclaredCommand, r *Receipt, rows []verification.Row) []finding.Finding {
	if r == nil {
		return nil
	}
	cmd := d.Cmd
	esc := textsafe.Escape(cmd)
	var out []finding.Finding
	if !r.Passed() {
		tail := r.LastLines(failedTailLines)
		msg := fmt.Sprintf("\"%s\" ran by mastermind failed (%s)", esc, r.Outcome())
		if tail != "" {
			msg += "; last output lines: " + textsafe.Escape(strings.NewReplacer("\n", " ⏎ ", "\t", " ").Replace(tail))
		}
		out = append(out, finding.Finding{Rule: KindVerificationFailed, Class: finding.ClassError, Message: msg,
			Fields: []finding.Field{{Key: "cmd", Value: cmd}, {Key: "exit_code", Value: r.ExitCode},
				{Key: "timed_out", Value: r.TimedOut}, {Key: "output_tail_lines", Value: tail}}})
	} else if r.Runner != "" && r.TestsRun != nil && *r.TestsRun == 0 {
		out = append(out, finding.Finding{Rule: KindZeroTests, Class: finding.ClassError,
			Message: fmt.Sprintf("\"%s\" ran by mastermind exited 0 but ran 0 tests", esc),
			Fields:  []finding.Field{{Key: "cmd", Value: cmd}, {Key: "source", Value: "receipt"}}})
	}
	matched := false
	key := verification.MatchKey(cmd)
	for _, row := range rows {
		if verification.MatchKey(row.Cmd) != key {
			continue
		}
		matched = true
		if f, ok := claimContradiction(cmd, r, row); ok {
			out = append(out, f)
		}
	}
	if !matched {
		out = append(out, finding.Finding{Rule: KindUnreported, Class: finding.ClassWarning,
			Message: fmt.Sprintf("declared verification \"%s\" is not in the report; mastermind's run is the evidence (%s)", esc, r.Summary()),
			Fields:  []finding.Field{{Key: "cmd", Value: cmd}}})
	}
	return out
}

// claimContradiction compares one report row with the receipt.
func claimContradiction(cmd string, r *Receipt, row verification.Row) (finding.Finding, bool) {
	claimed := describeRow(row)
	seen := r.seen()
	fields := []finding.Field{{Key: "cmd", Value: cmd}, {Key: "index", Value: row.Index},
		{Key: "claimed", Value: claimed}, {Key: "receipt", Value: seen}}
	esc := textsafe.Escape(cmd)
	if row.Result == "pass" && !r.Passed() {
		return finding.Finding{Rule: KindClaimContradicted, Class: finding.ClassError, Fields: fields,
			Message: fmt.Sprintf("the report claims \"%s\" passed (%s); mastermind ran it: %s", esc, textsafe.Escape(claimed), seen)}, true
	}
	var diffs []string
	if row.Result == "fail" && r.Passed() {
		diffs = append(diffs, "result fail, mastermind's run passed")
	}
	if row.ExitCode != nil && *row.ExitCode != int64(r.ExitCode) {
		diffs = append(diffs, fmt.Sprintf("exit code %d, mastermind saw %d", *row.ExitCode, r.ExitCode))
	}
	if row.TestsRun != nil && r.TestsRun != nil && *row.TestsRun != *r.TestsRun {
		diffs = append(diffs, fmt.Sprintf("tests_run %d, mastermind saw %d", *row.TestsRun, *r.TestsRun))
	}
	if len(diffs) == 0 {
		return finding.Finding{}, false
	}
	return finding.Finding{Rule: KindClaimContradicted, Class: finding.ClassWarning, Fields: fields,
		Message: fmt.Sprintf("the report's row %d for \"%s\" differs from mastermind's run: %s", row.Index, esc, strings.Join(diffs, "; "))}, true
}

// describeRow renders what a report row claims: "pass, exit 0, 142 tests".
func describeRow(row verification.Row) string {
	parts := []string{row.Result}
	if row.ExitCode != nil {
		parts = append(parts, fmt.Sprintf("exit %d", *row.ExitCode))
	}
	if row.TestsRun != nil {
		parts = append(parts, fmt.Sprintf("%d tests", *row.TestsRun))
	}
	return strings.Join(parts, ", ")
}

// ModifiedPaths returns the paths whose state differs between before and after, sorted by bytes:
// present in one and not the other, or with a different status or content id. before and after
// map a changed path to its status and content id (for example "modified:<sha256>"), as the
// caller computed them before and after the runs (verification-receipts.md §2).
func ModifiedPaths(before, after map[string]string) []string {
	var out []string
	for p, a := range after {
		if b, ok := before[p]; !ok || b != a {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// ModifiedWorktree is the verification_modified_worktree warning for paths the runs changed
// with every path sorted in its files field and the first 10 in its message; nil when there are none.
func ModifiedWorktree(paths []string) *finding.Finding {
	if len(paths) == 0 {
		return nil
	}
	const maxShown = 10
	shown := make([]string, 0, min(len(paths), maxShown+1))
	for _, p := range paths[:min(len(paths), maxShown)] {
		shown = append(shown, textsafe.Escape(p))
	}
	if len(paths) > maxShown {
		shown = append(shown, fmt.Sprintf("and %d more", len(paths)-maxShown))
	}
	return &finding.Finding{Rule: KindModifiedWorktree, Class: finding.ClassWarning,
		Message: fmt.Sprintf("the verification runs changed the work tree (the audit uses the changed set from before them): %s", strings.Join(shown, ", ")),
		Fields:  []finding.Field{{Key: "files", Value: paths}}}
}
