//go:build !windows

package audit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

func i64p(n int64) *int64 { return &n }

// TestComputeWithReceipts: Compute with Verify runs the run: true command after the other
// checks; the receipt replaces the report-evidence findings for it, rows say which evidence they
// rest on, the run's write to a changed file is a warning (its new ran.log is the controller's)
// and the audit keeps the changed set from before the runs.
func TestComputeWithReceipts(t *testing.T) {
	front := "touches:\n  - file: a.go\nverify:\n  - cmd: echo ran >> ran.log; echo // y >> a.go; exit 1\n    run: true\n  - cmd: make lint\n"
	f := newFixture(t, front, map[string]string{"a.go": "package a\n"}, map[string]string{"a.go": "package a\n\n// x\n"})
	rep := completeReport("a.go")
	rep.Verifications = []report.Verification{
		{Index: 0, Cmd: "echo ran >> ran.log; echo // y >> a.go; exit 1", Result: "pass", Observed: &report.Observed{ExitCode: i64p(0)}},
		{Index: 1, Cmd: "make lint", Result: "pass", Observed: &report.Observed{ExitCode: i64p(0)}},
	}
	in := f.inputs(t, report.Result{Report: rep, Form: rep.Form})
	store := verifyrun.DirStore{Dir: filepath.Join(t.TempDir(), "receipts")}
	in.Verify = &VerifyInputs{Store: store, Recompute: func(ctx context.Context) (*gitscope.ChangedSet, error) {
		return f.repo.ChangedSet(ctx, f.baseline)
	}}
	res, err := Compute(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	wantKinds(t, res.Findings,
		"verification_failed echo ran >> ran.log; echo // y >> a.go; exit 1",
		"verification_claim_contradicted echo ran >> ran.log; echo // y >> a.go; exit 1",
		"verification_modified_worktree")
	if res.Verdict != VerdictBroken || len(res.D) != 1 || string(res.D[0].Path) != "a.go" {
		t.Errorf("verdict %s, D %v", res.Verdict, res.D)
	}
	if res.Verify == nil || len(res.Verify.Receipts) != 1 || res.Verify.Receipts[0].ExitCode != 1 {
		t.Fatalf("verify %+v", res.Verify)
	}
	ev := res.Evidence.Verification
	if len(ev.Receipts) != 1 || ev.Receipts[0].Basis != verifyrun.BasisRan {
		t.Errorf("receipts %+v", ev.Receipts)
	}
	if r := ev.Rows[0]; r.Basis != verifyrun.BasisRan || r.Classification != verifyrun.ClassUnsuccessful {
		t.Errorf("row 0 %+v", r)
	}
	if r := ev.Rows[1]; r.Basis != verifyrun.BasisClaimed || r.Classification != verifyrun.ClassClaimed {
		t.Errorf("row 1 %+v", r)
	}
	if len(ev.Lines) != 2 || !strings.HasPrefix(ev.Lines[0], `verification: "echo ran >> ran.log; echo // y >> a.go; exit 1" ran by mastermind: exit 1, `) ||
		ev.Lines[1] != `verification: "make lint" claimed by the report: pass, exit 0` {
		t.Errorf("lines %q", ev.Lines)
	}
	if b, err := os.ReadFile(filepath.Join(f.root, "ran.log")); err != nil || string(b) != "ran\n" {
		t.Errorf("ran.log %q %v", b, err)
	}
}

// TestComputeWithoutVerifyRunsNothing: without Verify (the gate) nothing runs, receipts are
// null, and a report's pass is a claim.
func TestComputeWithoutVerifyRunsNothing(t *testing.T) {
	front := "touches:\n  - file: a.go\nverify:\n  - cmd: touch marker\n    run: true\n"
	f := newFixture(t, front, map[string]string{"a.go": "package a\n"}, map[string]string{"a.go": "package a\n\n// x\n"})
	rep := completeReport("a.go")
	rep.Verifications = []report.Verification{{Index: 0, Cmd: "touch marker", Result: "pass", Observed: &report.Observed{ExitCode: i64p(0)}}}
	res, err := Compute(context.Background(), f.inputs(t, report.Result{Report: rep, Form: rep.Form}))
	if err != nil {
		t.Fatal(err)
	}
	wantKinds(t, res.Findings)
	if _, err := os.Stat(filepath.Join(f.root, "marker")); err == nil {
		t.Error("the command ran without Verify")
	}
	ev := res.Evidence.Verification
	if ev.Receipts != nil || ev.Rows[0].Classification != verifyrun.ClassClaimed || ev.Rows[0].Basis != verifyrun.BasisClaimed || res.Verify != nil {
		t.Errorf("evidence %+v", ev)
	}
}

// TestReceiptSupersedesMissingResult: a run: true command the report leaves out is not
// verification_requirement_unmet (missing_result) once mastermind ran it: the receipt is the
// evidence, and the omission is the verification_unreported warning.
func TestReceiptSupersedesMissingResult(t *testing.T) {
	front := "touches:\n  - file: a.go\nverify:\n  - cmd: \"true\"\n    run: true\n"
	f := newFixture(t, front, map[string]string{"a.go": "package a\n"}, map[string]string{"a.go": "package a\n\n// x\n"})
	rep := completeReport("a.go")
	res, err := Compute(context.Background(), f.inputs(t, report.Result{Report: rep, Form: rep.Form}))
	if err != nil {
		t.Fatal(err)
	}
	wantKinds(t, res.Findings, "verification_requirement_unmet true (missing_result)")
	in := f.inputs(t, report.Result{Report: rep, Form: rep.Form})
	in.Verify = &VerifyInputs{}
	res, err = Compute(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	wantKinds(t, res.Findings, "verification_unreported true")
	if res.Verdict != VerdictDrift {
		t.Errorf("verdict %s", res.Verdict)
	}
}
