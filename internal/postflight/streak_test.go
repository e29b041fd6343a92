package postflight

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
)

func sumHex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestFingerprintCanonicalText checks the §6 canonical text and the identity fields per kind,
// including the claim kinds: positions, exit codes, matches and messages never count.
func TestFingerprintCanonicalText(t *testing.T) {
	mk := func(kind string, kv ...any) finding.Finding { return testFinding(kind, "msg "+kind, kv...) }
	cases := []struct {
		name    string
		fs      []finding.Finding
		verdict Verdict
		text    string
	}{
		{"drift counts warnings", []finding.Finding{mk(finding.KindUnexpectedFile, "file", "b.go"), mk(finding.KindMissingExpectedFile, "file", "a.go")},
			VerdictDrift, "mastermind-blocking v1\nmissing_expected_file\x1fa.go\nunexpected_file\x1fb.go\n"},
		{"broken counts errors only", []finding.Finding{mk(finding.KindUnexpectedFile, "file", "b.go"),
			mk(finding.KindDeclaredFileUnavailable, "file", "x.go", "reason", "target_missing")},
			VerdictBroken, "mastermind-blocking v1\ndeclared_file_unavailable\x1fx.go\x1ftarget_missing\n"},
		{"cmd without exit code", []finding.Finding{mk(finding.KindObservedExitCodeNonZero, "cmd", "go test ./...", "exit_code", 7),
			mk(finding.KindVerificationRequirementUnmet, "cmd", "go test ./...", "reason", "not_passed")},
			VerdictBroken, "mastermind-blocking v1\nobserved_exit_code_non_zero\x1fgo test ./...\nverification_requirement_unmet\x1fgo test ./...\x1fnot_passed\n"},
		{"claim kinds", []finding.Finding{
			mk(finding.KindClaimedSymbolMissing, "symbol", "Foo"),
			mk(finding.KindClaimedSignatureMismatch, "symbol", "Get", "file", "a.go", "claimed", "func Get()", "actual", "func Get() error"),
			mk(finding.KindHallucinatedSymbol, "from_symbol", "A", "to_symbol", "B"),
			mk(finding.KindMissingCallEdge, "from_symbol", "A", "to_symbol", "C"),
			mk(finding.KindExecutorClaimUnresolved, "claim_index", 3, "reason", "ambiguous", "matches", 2),
		}, VerdictBroken, "mastermind-blocking v1\nclaimed_signature_mismatch\x1fGet\x1fa.go\nclaimed_symbol_missing\x1fFoo\x1f\n" +
			"executor_claim_unresolved\x1f3\x1fambiguous\nhallucinated_symbol\x1fA\x1fB\nmissing_call_edge\x1fA\x1fC\n"},
		{"degraded and frontmatter reasons", []finding.Finding{mk(finding.KindChangedSetDegraded, "reason", "git_unavailable"),
			mk(finding.KindInvalidFrontmatter, "reason", "frontmatter_invalid")},
			VerdictBroken, "mastermind-blocking v1\ninvalid_frontmatter\x1ffrontmatter_invalid\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := Fingerprint(fingerprintLines(tc.fs, tc.verdict)), sumHex(tc.text); got != want {
				t.Errorf("fingerprint %s, want sha256(%q) = %s", got, tc.text, want)
			}
		})
	}
	// Rejected report: one line per violation, rule and pointer, no positions.
	lines := []string{finding.KindExecutorReportRejected + "\x1fschema.enum\x1f/status", finding.KindExecutorReportRejected + "\x1fvalue.null\x1f/spec"}
	if got, want := Fingerprint(lines), sumHex("mastermind-blocking v1\nexecutor_report_rejected\x1fschema.enum\x1f/status\nexecutor_report_rejected\x1fvalue.null\x1f/spec\n"); got != want {
		t.Errorf("rejected fingerprint %s, want %s", got, want)
	}
}

// driftWith writes the cache task's work plus extra unscoped files, all listed in the report, so
// the verdict is drift with one unexpected_file per extra file.
func driftWith(t *testing.T, root string, extra ...string) {
	t.Helper()
	files := []string{"internal/cache/cache.go", "internal/cache/lru.go", "docs/cache.md"}
	writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = newLRU()\n")
	writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 0 }\n")
	writeFile(t, root, "docs/cache.md", "# Cache\n\nLRU.\n")
	for _, e := range extra {
		writeFile(t, root, e, "x\n")
		files = append(files, e)
	}
	writeFile(t, root, reportRel, reportText(files, ""))
}

// TestThreeCycleRule: the same drift three times returns the task to design (exit code still by
// verdict); another condition restarts the streak; an unchanged re-pre-flight keeps it; a changed
// spec re-approved and a held verdict reset it.
func TestThreeCycleRule(t *testing.T) {
	root, opts := newTaskRepo(t)
	driftWith(t, root, "internal/cache/shard.go")
	for i := 1; i <= 4; i++ {
		// The same condition on changed inputs (the streak counts distinct inputs, §5).
		writeFile(t, root, "internal/cache/shard.go", fmt.Sprintf("x%d\n", i))
		res := run(t, opts, ModePostOnly)
		next := NextPlannerReview
		if i >= 3 {
			next = NextReturnToDesign
		}
		wantOutcome(t, res, OutcomePostDrift, StatusDrift, next)
		st := res.State
		if st.BlockingStreak != i || !hex64.MatchString(st.BlockingFingerprint) {
			t.Fatalf("run %d: streak %d fingerprint %q", i, st.BlockingStreak, st.BlockingFingerprint)
		}
		const base = "post-flight verdict: ⚠️ Drift — errors: 0, warnings: 1"
		want := base
		if i >= 3 {
			want = base + "; the same blocking condition has repeated in 3 consecutive post-flights — revise the spec (return to design) or ask the user"
			if !strings.Contains(res.AuditSummary, ReturnToDesignLine) {
				t.Errorf("run %d audit summary:\n%s", i, res.AuditSummary)
			}
		}
		if st.BlockingReason != want || res.Message != want {
			t.Fatalf("run %d: blocking_reason %q", i, st.BlockingReason)
		}
		if res.State.NextStep != next || res.Next.Step != next {
			t.Fatalf("outcome next %+v, state next %s, want %s", res.Next, res.State.NextStep, next)
		}
	}
	lessons := string(readFile(t, root, ".mastermind/tasks/_lessons.md"))
	if !strings.Contains(lessons, "- **Occurrences:** 4\n") ||
		!strings.Contains(lessons, "- **Observed:** contract drift; 1× unexpected file; returned to design after 3 identical post-flights\n") {
		t.Fatalf("lessons:\n%s", lessons)
	}
	// A different condition starts a new streak.
	driftWith(t, root, "internal/cache/shard.go", "internal/cache/extra.go")
	res := run(t, opts, ModePostOnly)
	wantOutcome(t, res, OutcomePostDrift, StatusDrift, NextPlannerReview)
	fp := res.State.BlockingFingerprint
	if res.State.BlockingStreak != 1 {
		t.Fatalf("streak %d", res.State.BlockingStreak)
	}
	// Re-pre-flight of the unchanged spec keeps the streak.
	res = run(t, opts, ModePreOnly)
	wantOutcome(t, res, OutcomePreReady, StatusApproved, NextRunExecutor)
	if res.State.BlockingStreak != 1 || res.State.BlockingFingerprint != fp {
		t.Fatalf("unchanged re-pre-flight reset the streak: %+v", res.State)
	}
	if res = run(t, opts, ModePostOnly); res.State.BlockingStreak != 2 {
		t.Fatalf("streak %d after re-pre-flight", res.State.BlockingStreak)
	}
	// A changed spec, approved again, resets it.
	writeFile(t, root, taskSpec, strings.Replace(specText, "Add an LRU cache.", "Add an LRU cache with shards.", 1))
	res = run(t, opts, ModePreOnly)
	wantOutcome(t, res, OutcomePreReady, StatusApproved, NextRunExecutor)
	if res.State.BlockingStreak != 0 || res.State.BlockingFingerprint != "" {
		t.Fatalf("changed spec kept the streak: %+v", res.State)
	}
	if res = run(t, opts, ModePostOnly); res.State.BlockingStreak != 1 {
		t.Fatalf("streak %d", res.State.BlockingStreak)
	}
	// A held verdict resets it.
	for _, p := range []string{"internal/cache/shard.go", "internal/cache/extra.go"} {
		if err := os.Remove(filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	driftWith(t, root)
	res = run(t, opts, ModePostOnly)
	wantOutcome(t, res, OutcomePostHeld, StatusHistoryReviewRequired, NextReviewHistory)
	if res.State.BlockingStreak != 0 || res.State.BlockingFingerprint != "" {
		t.Fatalf("held kept the streak: %+v", res.State)
	}
}

// TestRepeatedPostflightIsARead: three post-flights on identical inputs audit once — the second
// and third return the recorded outcome (Repeated), write nothing and leave the streak at 1; a
// changed report after that audits again and moves the streak (lifecycle-v2.md §5).
func TestRepeatedPostflightIsARead(t *testing.T) {
	root, opts := newTaskRepo(t)
	driftWith(t, root, "internal/cache/shard.go")
	first := run(t, opts, ModePostOnly)
	wantOutcome(t, first, OutcomePostDrift, StatusDrift, NextPlannerReview)
	if first.Repeated || first.State.InputsFingerprint == "" {
		t.Fatalf("first post-flight: repeated %v, fingerprint %q", first.Repeated, first.State.InputsFingerprint)
	}
	state, audit := readFile(t, root, stateRel), readFile(t, root, ".mastermind/tasks/020-cache/audit.md")
	lessons := readFile(t, root, ".mastermind/tasks/_lessons.md")
	for i := 2; i <= 3; i++ {
		res := run(t, opts, ModePostOnly)
		if !res.Repeated || res.Outcome != OutcomePostDrift || res.Verdict != VerdictDrift || res.Message != first.Message {
			t.Fatalf("run %d: repeated %v outcome %s verdict %s message %q", i, res.Repeated, res.Outcome, res.Verdict, res.Message)
		}
		if fs := slices.Collect(res.AllFindings()); len(fs) != 1 || fs[0].Rule != "unexpected_file" || fs[0].FieldString("file") != "internal/cache/shard.go" {
			t.Fatalf("run %d findings %+v", i, fs)
		}
		if res.AuditSummary != first.AuditSummary || res.Next.Step != NextPlannerReview {
			t.Fatalf("run %d: summary or next differ: %+v", i, res.Next)
		}
		if !bytes.Equal(readFile(t, root, stateRel), state) || !bytes.Equal(readFile(t, root, ".mastermind/tasks/020-cache/audit.md"), audit) ||
			!bytes.Equal(readFile(t, root, ".mastermind/tasks/_lessons.md"), lessons) {
			t.Fatalf("run %d wrote something", i)
		}
	}
	if st := readState(t, root); st.BlockingStreak != 1 {
		t.Fatalf("streak %d after three identical post-flights", st.BlockingStreak)
	}
	// A changed report (the same block after a line of prose): audited again, the same condition, streak 2.
	writeFile(t, root, reportRel, "Ran it again.\n\n"+string(readFile(t, root, reportRel)))
	res := run(t, opts, ModePostOnly)
	if res.Repeated || res.State.BlockingStreak != 2 || res.State.InputsFingerprint == first.State.InputsFingerprint {
		t.Fatalf("changed report: repeated %v streak %d", res.Repeated, res.State.BlockingStreak)
	}
}

// TestRepeatNeedsTheRecordedAudit: an audit.md changed outside mastermind is restored from the
// controller store, and unchanged inputs are audited again (the audit reports the tampering)
// instead of being a read.
func TestRepeatNeedsTheRecordedAudit(t *testing.T) {
	root, opts := newTaskRepo(t)
	driftWith(t, root, "internal/cache/shard.go")
	run(t, opts, ModePostOnly)
	const auditRel = ".mastermind/tasks/020-cache/audit.md"
	writeFile(t, root, auditRel, strings.Replace(string(readFile(t, root, auditRel)), `"warnings": 1`, `"warnings": 0`, 1))
	res := run(t, opts, ModePostOnly)
	if res.Repeated || res.Outcome != OutcomePostBroken || !strings.Contains(res.AuditSummary, finding.KindControllerRecordTampered) {
		t.Fatalf("repeated %v outcome %s streak %d", res.Repeated, res.Outcome, res.State.BlockingStreak)
	}
	// The tampering was reported once: the next post-flight audits again, then it is a read.
	if res = run(t, opts, ModePostOnly); res.Repeated || res.Outcome != OutcomePostDrift {
		t.Fatalf("after the report: repeated %v outcome %s", res.Repeated, res.Outcome)
	}
	if res = run(t, opts, ModePostOnly); !res.Repeated || res.Outcome != OutcomePostDrift {
		t.Fatalf("then: repeated %v outcome %s", res.Repeated, res.Outcome)
	}
}

// TestSpecChangedKeepsStreak: "spec changed" is not a blocking post-flight; the streak is kept.
func TestSpecChangedKeepsStreak(t *testing.T) {
	root, opts := newTaskRepo(t)
	driftWith(t, root, "x.txt")
	run(t, opts, ModePostOnly)
	writeFile(t, root, "x.txt", "y\n")
	run(t, opts, ModePostOnly)
	writeFile(t, root, taskSpec, specText+"\n")
	res := run(t, opts, ModePostOnly)
	wantOutcome(t, res, OutcomePostRefused, StatusBlocked, NextRunPreflight)
	if res.State.BlockingStreak != 2 {
		t.Fatalf("streak %d", res.State.BlockingStreak)
	}
}

// TestRejectedFingerprint: a rejected report's fingerprint is its violations' lines plus the
// feedback round's error findings (lifecycle-v2.md §6), never its warnings, positions or
// messages, and never the rejection finding itself: identical inputs give the same fingerprint,
// and a fixed feedback error changes it.
func TestRejectedFingerprint(t *testing.T) {
	rej := audit.Rejection{
		Finding: testFinding(finding.KindExecutorReportRejected, "executor report rejected (report_invalid): x", "reason", "report_invalid"),
		Lines:   []string{finding.KindExecutorReportRejected + "\x1fschema.enum\x1f/status"},
	}
	fs := []finding.Finding{
		testFinding(finding.KindReportMissingChangedFile, "changed but not listed: c.go (line 3)", "file", "c.go"),
		rej.Finding,
		testFinding(finding.KindObservedExitCodeNonZero, "exit 1", "cmd", "go test ./...", "exit_code", 1),
		testFinding(finding.KindUnexpectedFile, "outside scope", "file", "c.go"),
	}
	lines, others := rejectedLines(rej, fs)
	want := "mastermind-blocking v1\nexecutor_report_missing_changed_file\x1fc.go\nexecutor_report_rejected\x1fschema.enum\x1f/status\n" +
		"observed_exit_code_non_zero\x1fgo test ./...\n"
	if got := Fingerprint(lines); got != sumHex(want) {
		t.Errorf("fingerprint of %q, want sha256(%q)", lines, want)
	}
	if len(others) != 3 {
		t.Errorf("feedback findings %v, want the 3 besides the rejection", others)
	}
	moved := slices.Clone(fs)
	moved[0] = testFinding(finding.KindReportMissingChangedFile, "another message", "file", "c.go")
	moved[2] = testFinding(finding.KindObservedExitCodeNonZero, "exit 2", "cmd", "go test ./...", "exit_code", 2)
	if l2, _ := rejectedLines(rej, moved); Fingerprint(l2) != Fingerprint(lines) {
		t.Error("messages or exit codes changed the fingerprint")
	}
	if l3, _ := rejectedLines(rej, fs[1:]); Fingerprint(l3) == Fingerprint(lines) {
		t.Error("fixing a feedback error left the fingerprint unchanged")
	}
}
