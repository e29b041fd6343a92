//go:build !windows

package verifyrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/verification"
)

func parseSpec(t *testing.T, verify string) *spec.Spec {
	t.Helper()
	s, fs := spec.Parse([]byte("---\nmode: lite\nverify:\n"+verify+"---\n# T\n\n## Goals\n\nG.\n"), "spec.md")
	if len(fs) != 0 {
		t.Fatal(fs)
	}
	return s
}

func TestStep(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	sp := parseSpec(t, "  - cmd: echo checked >> count; echo generated > out.txt; echo two > a.txt\n    run: true\n  - cmd: echo claimed-only\n")
	before := []PathState{{Path: "a.txt", Status: "untracked", Content: WorktreeContent(root, "a.txt")}}
	afterCalls := 0
	after := func(context.Context) ([]PathState, error) {
		afterCalls++
		// What the caller's second changed set would hold: a.txt and the run's out.txt and count.
		var ps []PathState
		for _, p := range []string{"a.txt", "count", "out.txt"} {
			ps = append(ps, PathState{Path: p, Status: "untracked", Content: WorktreeContent(root, p)})
		}
		return ps, nil
	}
	rows := []verification.Row{{Index: 0, Cmd: "echo claimed-only", Result: "pass", ExitCode: i64(0)}}
	st := DirStore{Dir: filepath.Join(t.TempDir(), "receipts")}
	in := StepInputs{Root: root, Spec: sp, Baseline: "b", Before: before, Rows: rows, Store: st, After: after}
	res, err := Step(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plan) != 1 || len(res.Receipts) != 1 || res.Reused || !res.Receipts[0].Passed() {
		t.Fatalf("result %+v", res)
	}
	got := renderFindings(res.Findings)
	want := "warning verification_unreported: declared verification \"echo checked >> count; echo generated > out.txt; echo two > a.txt\" is not in the report; mastermind's run is the evidence"
	// a.txt existed before the run: a warning. count and out.txt are new: the controller's.
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "warning verification_modified_worktree: the verification runs changed the work tree (the audit uses the changed set from before them): a.txt files=[a.txt]") {
		t.Errorf("findings:\n%s", got)
	}
	if len(res.Created) != 2 || res.Created[0].Path != "count" || res.Created[1].Path != "out.txt" || !fsx.ContentStable(res.Created[0].Content) {
		t.Errorf("created %+v", res.Created)
	}
	lines := res.Lines(sp.VerifyCommands, rows)
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `verification: "echo checked >> count; echo generated > out.txt; echo two > a.txt" ran by mastermind: exit 0, `) ||
		lines[1] != `verification: "echo claimed-only" claimed by the report: pass, exit 0` {
		t.Errorf("lines %q", lines)
	}
	if b, c := res.RowBasis("echo claimed-only", verification.ClassPassed); b != BasisClaimed || c != ClassClaimed {
		t.Errorf("claim shown as %s/%s", b, c)
	}
	if b, c := res.RowBasis(" "+sp.VerifyCommands[0], verification.ClassUnsuccessful); b != BasisRan || c != ClassPassed {
		t.Errorf("receipt row shown as %s/%s", b, c)
	}
	ev := res.Evidence()
	if len(ev) != 1 || ev[0].N != 1 || ev[0].Basis != BasisRan || ev[0].Reused || ev[0].Signal != nil || ev[0].Runner != nil {
		t.Errorf("evidence %+v", ev)
	}
	// The same inputs again: reused, nothing runs, the work tree is not compared again.
	res2, err := Step(context.Background(), in)
	if err != nil || !res2.Reused || afterCalls != 1 {
		t.Fatalf("repeat: %v reused=%v after=%d", err, res2.Reused, afterCalls)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "count")); string(b) != "checked\n" {
		t.Errorf("the command ran again: %q", b)
	}
	if res2.Evidence()[0].Reused != true || !strings.HasSuffix(res2.Lines(sp.VerifyCommands, rows)[0], " (reused)") {
		t.Errorf("reuse not shown: %+v", res2.Evidence())
	}
	// --run-verify plans the report-only command too.
	in.All = true
	res3, err := Step(context.Background(), in)
	if err != nil || len(res3.Plan) != 2 || res3.Reused {
		t.Fatalf("all: %v %+v", err, res3)
	}
	if res3.Supersedes(finding.Finding{Rule: verification.KindRequirementUnmet, Fields: []finding.Field{{Key: "cmd", Value: "echo claimed-only"}}}) != true ||
		res3.Supersedes(finding.Finding{Rule: verification.KindExitNonZero, Fields: []finding.Field{{Key: "cmd", Value: "echo claimed-only"}}}) {
		t.Error("Supersedes")
	}
	if res.Supersedes(finding.Finding{Rule: verification.KindRequirementUnmet, Fields: []finding.Field{{Key: "cmd", Value: "echo claimed-only"}}}) {
		t.Error("a command that did not run cannot supersede its report evidence")
	}
}

// TestStepDirectoryIsNeverReused: the content id of a changed directory does not pin its files
// ("dir", or a nested repository's "repo:<commit>", which misses uncommitted edits), so its
// receipts are not reused: equal fingerprints would not mean equal work trees.
func TestStepDirectoryIsNeverReused(t *testing.T) {
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "dep"), 0o755))
	must(os.WriteFile(filepath.Join(root, "dep", "value.txt"), []byte("6\n"), 0o644))
	sp := parseSpec(t, "  - cmd: grep -qx 6 dep/value.txt\n    run: true\n")
	st := DirStore{Dir: filepath.Join(t.TempDir(), "receipts")}
	in := StepInputs{Root: root, Spec: sp, Baseline: "b", Store: st,
		Before: []PathState{{Path: "dep", Status: "untracked", Content: WorktreeContent(root, "dep")}}}
	res, err := Step(context.Background(), in)
	if err != nil || res.Reused || !res.Receipts[0].Passed() {
		t.Fatalf("first run: %v %+v", err, res)
	}
	must(os.WriteFile(filepath.Join(root, "dep", "value.txt"), []byte("5\n"), 0o644))
	in.Before = []PathState{{Path: "dep", Status: "untracked", Content: WorktreeContent(root, "dep")}}
	res2, err := Step(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Fingerprint != res.Fingerprint {
		t.Fatal("the control needs equal fingerprints")
	}
	if res2.Reused || res2.Receipts[0].Passed() {
		t.Errorf("the passing receipt stood for the changed directory: reused=%v passed=%v", res2.Reused, res2.Receipts[0].Passed())
	}
}

func TestStepNothingPlanned(t *testing.T) {
	sp := parseSpec(t, "  - cmd: touch marker\n")
	root := t.TempDir()
	res, err := Step(context.Background(), StepInputs{Root: root, Spec: sp, After: func(context.Context) ([]PathState, error) {
		t.Fatal("After called with nothing planned")
		return nil, nil
	}})
	if err != nil || len(res.Plan) != 0 || res.Lines(sp.VerifyCommands, nil) != nil || len(res.Evidence()) != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(root, "marker")); err == nil {
		t.Error("a command without run: true ran")
	}
}
