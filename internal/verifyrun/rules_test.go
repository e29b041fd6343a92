package verifyrun

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/verification"
)

func i64(n int64) *int64 { return &n }

func renderFindings(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s: %s", f.Class, f.Rule, f.Message)
		for _, fl := range f.Fields {
			fmt.Fprintf(&b, " %s=%v", fl.Key, fl.Value)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestRules(t *testing.T) {
	const cmd = "go test ./..."
	d := spec.DeclaredCommand{Cmd: cmd, Run: true}
	pass := &Receipt{Cmd: cmd, ExitCode: 0, Runner: "go", TestsRun: i64(142), TestsFailed: i64(0), DurationMS: 12300}
	failed := &Receipt{Cmd: cmd, ExitCode: 1, Runner: "go", TestsRun: i64(3), TestsFailed: i64(1), DurationMS: 800,
		OutputTail: "=== RUN TestA\n--- FAIL: TestA (0.00s)\n    a_test.go:9: boom\nFAIL\nFAIL\texample.com/m\t0.01s\nFAIL\n\n"}
	timedOut := &Receipt{Cmd: cmd, ExitCode: -1, TimedOut: true, Signal: "SIGKILL", TimeoutMS: 600000, Runner: "go", DurationMS: 600000}
	zero := &Receipt{Cmd: cmd, ExitCode: 0, Runner: "go", TestsRun: i64(0), TestsFailed: i64(0), DurationMS: 400}
	unknownCount := &Receipt{Cmd: cmd, ExitCode: 0, Runner: "go", TestsFailed: i64(0), DurationMS: 400}
	notRunner := &Receipt{Cmd: "make lint", ExitCode: 0, TestsRun: i64(0), DurationMS: 400}
	row := func(result string, exit, tests *int64) verification.Row {
		return verification.Row{Index: 0, Cmd: "  " + cmd + " ", Result: result, ExitCode: exit, TestsRun: tests}
	}
	other := verification.Row{Index: 1, Cmd: "go vet ./...", Result: "pass", ExitCode: i64(0)}

	cases := []struct {
		name string
		d    spec.DeclaredCommand
		r    *Receipt
		rows []verification.Row
		want string
	}{
		{"pass, report agrees", d, pass, []verification.Row{row("pass", i64(0), i64(142)), other}, ""},
		{"pass, report has no observed", d, pass, []verification.Row{row("pass", nil, nil)}, ""},
		{"pass, report count unknown to the receipt", d, unknownCount, []verification.Row{row("pass", i64(0), i64(7))}, ""},
		{"failed, report claims pass", d, failed, []verification.Row{row("pass", i64(0), i64(142))},
			"error verification_failed: \"go test ./...\" ran by mastermind failed (exit 1); last output lines: --- FAIL: TestA (0.00s) ⏎     a_test.go:9: boom ⏎ FAIL ⏎ FAIL example.com/m 0.01s ⏎ FAIL cmd=go test ./... exit_code=1 timed_out=false output_tail_lines=--- FAIL: TestA (0.00s)\n    a_test.go:9: boom\nFAIL\nFAIL\texample.com/m\t0.01s\nFAIL\n" +
				"error verification_claim_contradicted: the report claims \"go test ./...\" passed (pass, exit 0, 142 tests); mastermind ran it: exit 1, 3 tests (1 failed) cmd=go test ./... index=0 claimed=pass, exit 0, 142 tests receipt=exit 1, 3 tests (1 failed)\n"},
		{"timed out, report claims pass", d, timedOut, []verification.Row{row("pass", nil, nil)},
			"error verification_failed: \"go test ./...\" ran by mastermind failed (timed out after 10m0s) cmd=go test ./... exit_code=-1 timed_out=true output_tail_lines=\n" +
				"error verification_claim_contradicted: the report claims \"go test ./...\" passed (pass); mastermind ran it: timed out after 10m0s cmd=go test ./... index=0 claimed=pass receipt=timed out after 10m0s\n"},
		{"failed, report says fail too", d, failed, []verification.Row{row("fail", i64(1), i64(3))},
			"error verification_failed: \"go test ./...\" ran by mastermind failed (exit 1); last output lines: --- FAIL: TestA (0.00s) ⏎     a_test.go:9: boom ⏎ FAIL ⏎ FAIL example.com/m 0.01s ⏎ FAIL cmd=go test ./... exit_code=1 timed_out=false output_tail_lines=--- FAIL: TestA (0.00s)\n    a_test.go:9: boom\nFAIL\nFAIL\texample.com/m\t0.01s\nFAIL\n"},
		{"zero tests", d, zero, []verification.Row{row("pass", i64(0), i64(0))},
			"error observed_zero_tests: \"go test ./...\" ran by mastermind exited 0 but ran 0 tests cmd=go test ./... source=receipt\n"},
		{"zero from an unrecognised command", spec.DeclaredCommand{Cmd: "make lint"}, notRunner,
			[]verification.Row{{Cmd: "make lint", Result: "pass"}}, ""},
		{"count differs", d, pass, []verification.Row{row("pass", i64(0), i64(150))},
			"warning verification_claim_contradicted: the report's row 0 for \"go test ./...\" differs from mastermind's run: tests_run 150, mastermind saw 142 cmd=go test ./... index=0 claimed=pass, exit 0, 150 tests receipt=exit 0, 142 tests\n"},
		{"exit code differs on a pass", d, pass, []verification.Row{row("pass", i64(2), nil)},
			"warning verification_claim_contradicted: the report's row 0 for \"go test ./...\" differs from mastermind's run: exit code 2, mastermind saw 0 cmd=go test ./... index=0 claimed=pass, exit 2 receipt=exit 0, 142 tests\n"},
		{"report says fail, run passed", d, pass, []verification.Row{row("fail", i64(1), nil)},
			"warning verification_claim_contradicted: the report's row 0 for \"go test ./...\" differs from mastermind's run: result fail, mastermind's run passed; exit code 1, mastermind saw 0 cmd=go test ./... index=0 claimed=fail, exit 1 receipt=exit 0, 142 tests\n"},
		{"unreported", d, pass, []verification.Row{other},
			"warning verification_unreported: declared verification \"go test ./...\" is not in the report; mastermind's run is the evidence (ran by mastermind: exit 0, 142 tests, 12.3 s) cmd=go test ./...\n"},
		{"unreported and failed", d, failed, nil,
			"error verification_failed: \"go test ./...\" ran by mastermind failed (exit 1); last output lines: --- FAIL: TestA (0.00s) ⏎     a_test.go:9: boom ⏎ FAIL ⏎ FAIL example.com/m 0.01s ⏎ FAIL cmd=go test ./... exit_code=1 timed_out=false output_tail_lines=--- FAIL: TestA (0.00s)\n    a_test.go:9: boom\nFAIL\nFAIL\texample.com/m\t0.01s\nFAIL\n" +
				"warning verification_unreported: declared verification \"go test ./...\" is not in the report; mastermind's run is the evidence (ran by mastermind: exit 1, 3 tests (1 failed), 0.8 s) cmd=go test ./...\n"},
		{"two rows, one contradicted", d, failed, []verification.Row{row("pass", i64(0), nil), {Index: 3, Cmd: cmd, Result: "fail", ExitCode: i64(1)}},
			"error verification_failed: \"go test ./...\" ran by mastermind failed (exit 1); last output lines: --- FAIL: TestA (0.00s) ⏎     a_test.go:9: boom ⏎ FAIL ⏎ FAIL example.com/m 0.01s ⏎ FAIL cmd=go test ./... exit_code=1 timed_out=false output_tail_lines=--- FAIL: TestA (0.00s)\n    a_test.go:9: boom\nFAIL\nFAIL\texample.com/m\t0.01s\nFAIL\n" +
				"error verification_claim_contradicted: the report claims \"go test ./...\" passed (pass, exit 0); mastermind ran it: exit 1, 3 tests (1 failed) cmd=go test ./... index=0 claimed=pass, exit 0 receipt=exit 1, 3 tests (1 failed)\n"},
		{"spacing is collapsed", d, pass, []verification.Row{{Cmd: "go  test\t./...", Result: "pass", ExitCode: i64(0)}}, ""},
		{"a different case is another command", d, pass, []verification.Row{{Cmd: "Go test ./...", Result: "pass"}},
			"warning verification_unreported: declared verification \"go test ./...\" is not in the report; mastermind's run is the evidence (ran by mastermind: exit 0, 142 tests, 12.3 s) cmd=go test ./...\n"},
		{"no receipt", d, nil, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := renderFindings(Rules(tc.d, tc.r, tc.rows))
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestRulesEscapeTheCommandAndOutput(t *testing.T) {
	cmd := "printf '\x1b[31m'; exit 1"
	r := &Receipt{Cmd: cmd, ExitCode: 1, OutputTail: "\x1b[2J\u202Ehidden\n"}
	for _, f := range Rules(spec.DeclaredCommand{Cmd: cmd}, r, nil) {
		if strings.ContainsAny(f.Message, "\x1b\u202E") {
			t.Errorf("%s message not escaped: %q", f.Rule, f.Message)
		}
	}
}

func TestModifiedPaths(t *testing.T) {
	before := map[string]string{"a.go": "modified:1", "b.go": "added:2", "gone.go": "untracked:3"}
	after := map[string]string{"a.go": "modified:1", "b.go": "added:9", "new.txt": "untracked:4"}
	got := ModifiedPaths(before, after)
	if strings.Join(got, ",") != "b.go,gone.go,new.txt" {
		t.Errorf("got %q", got)
	}
	if ModifiedPaths(before, before) != nil || ModifiedWorktree(nil) != nil {
		t.Error("no change must give nothing")
	}
	many := make([]string, 12)
	for i := range many {
		many[i] = fmt.Sprintf("f%02d", i)
	}
	if m := ModifiedWorktree(many).Message; !strings.HasSuffix(m, "f08, f09, and 2 more") {
		t.Errorf("message %q", m)
	}
	f := ModifiedWorktree(got)
	if f.Class != finding.ClassWarning || f.Rule != KindModifiedWorktree ||
		f.Message != "the verification runs changed the work tree (the audit uses the changed set from before them): b.go, gone.go, new.txt" {
		t.Errorf("finding %+v", f)
	}
}

func TestSummary(t *testing.T) {
	cases := []struct {
		r    Receipt
		want string
	}{
		{Receipt{TestsRun: i64(142), TestsFailed: i64(0), DurationMS: 12345}, "ran by mastermind: exit 0, 142 tests, 12.3 s"},
		{Receipt{TestsRun: i64(1), DurationMS: 50}, "ran by mastermind: exit 0, 1 test, 0.1 s"},
		{Receipt{ExitCode: 1, TestsFailed: i64(2), DurationMS: 1000}, "ran by mastermind: exit 1, 2 tests failed, 1.0 s"},
		{Receipt{ExitCode: -1, Signal: "SIGSEGV", DurationMS: 1000}, "ran by mastermind: killed by SIGSEGV, 1.0 s"},
	}
	for _, tc := range cases {
		if got := tc.r.Summary(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
