package verification

import (
	"strings"
	"testing"
)

// TestPassContradicted covers each runner's failure summary (lifecycle-v2.md §7) with passing
// outputs that must not match.
func TestPassContradicted(t *testing.T) {
	cases := []struct {
		cmd, out string
		want     string // the evidence; "" means not contradicted
	}{
		// pytest
		{"python -m pytest tests", "FAILED tests/test_basic.py::test_url_for_simple … 1 failed, 12 passed", "FAILED tests/test_basic.py::test_url_for_simple"},
		{"pytest -q", "............F.\n1 failed, 12 passed in 0.31s\n", "1 failed,"},
		{"pytest", "===== 2 failed in 1.20s =====", "2 failed in 1"},
		{"pytest", "12 passed, 1 error in 0.50s", "1 error in 0"},
		{"pytest", "==== 3 errors ====", "3 errors ="},
		{"uv run pytest", "ERROR tests/test_app.py - ModuleNotFoundError: No module named 'app'", "ERROR tests/test_app.py -"},
		{"pytest", "Traceback (most recent call last):\n  File \"conftest.py\", line 3, in <module>\n    import app\nModuleNotFoundError: No module named 'app'\n", "ModuleNotFoundError: No module named 'app'"},
		{"pytest.exe", "Traceback (most recent call last): File \"x.py\", line 1 … ValueError: boom", "ValueError: boom"},
		{"pytest -q", "13 passed in 0.31s", ""},
		{"pytest -q", "13 passed, 0 failed", ""},
		{"pytest", "test_retry_after_3 failed attempts logged\n13 passed in 1.0s", ""},
		{"pytest", "13 passed, 2 warnings in 0.4s", ""},
		{"pytest", "Traceback is printed by the logger test\n5 passed", ""},
		// go
		{"go test ./...", "--- FAIL: TestLRU (0.00s)\n    lru_test.go:12: got 2\nFAIL\nFAIL\texample.com/cache\t0.01s\n", "--- FAIL: TestLRU"},
		{"go.exe test -v ./...", "ok  \texample.com/a\t0.01s\nFAIL\texample.com/b\t0.02s", "FAIL\texample.com/b\t0.02s"},
		{"go test ./...", "FAIL\texample.com/b [build failed]", "FAIL\texample.com/b [build failed]"},
		{"go test ./...", "ok example.com/a 0.1s FAIL", "FAIL"},
		{"go test -json ./...", `{"Action":"fail","Package":"x"}`, `"Action":"fail"`},
		{"go test ./...", "ok  \texample.com/a\t0.01s\nok  \texample.com/b\t(cached)", ""},
		{"go test -v ./...", "=== RUN   TestFAILover\n--- PASS: TestFAILover (0.00s)\nPASS\nok  \tx\t0.1s", ""},
		{"go test ./...", "PASS: no FAILures", ""},
		// jest / vitest
		{"npx jest", "Tests:       1 failed, 12 passed, 13 total", "Tests: 1 failed"},
		{"jest --ci", "Test Suites: 1 failed, 4 passed, 5 total", "Test Suites: 1 failed"},
		{"jest", "Tests:       1 skipped, 2 failed, 10 passed, 13 total", "Tests: 1 skipped, 2 failed"},
		{"vitest run", " Test Files  1 failed | 3 passed (4)\n      Tests  1 failed | 12 passed (13)", "Test Files 1 failed"},
		{"pnpm vitest run", "Tests  2 passed | 1 failed (3)", "Tests 2 passed | 1 failed"},
		{"jest", "Tests:       13 passed, 13 total", ""},
		{"vitest run", " Test Files  4 passed (4)\n      Tests  13 passed (13)", ""},
		{"jest", "Tests:       0 failed, 13 passed", ""},
		// cargo
		{"cargo test", "test result: FAILED. 3 passed; 1 failed; 0 ignored", "test result: FAILED"},
		{"cargo.exe test --locked", "error: test failed, to rerun pass `--lib`", "error: test failed"},
		{"cargo test", "test result: ok. 4 passed; 0 failed; 0 ignored", ""},
		// Runner-specific: another runner's summary is not this runner's failure.
		{"go test ./...", "1 failed, 12 passed", ""},
		{"cargo test", "--- FAIL: TestX", ""},
		{"pytest", "test result: FAILED. --- FAIL: TestX", ""},
		// Unrecognised commands are never checked.
		{"make test", "1 failed, 12 passed", ""},
		{"npm test", "Tests:       1 failed, 12 passed, 13 total", ""},
	}
	for _, tc := range cases {
		out := tc.out
		res := Check(t.TempDir(), nil, []Row{{Cmd: tc.cmd, Result: "pass", ExitCode: i64(0), TestsRun: i64(13), OutputExcerpt: &out}})
		var got []string
		for _, f := range res.Findings {
			if f.Rule != KindPassContradicted || f.Class != "error" {
				t.Errorf("%s / %q: unexpected finding %v", tc.cmd, tc.out, f)
				continue
			}
			got = append(got, f.FieldString("evidence"))
			if !strings.Contains(f.Message, "report result: fail") || !strings.HasPrefix(f.Message, `"`+tc.cmd+`" is reported as pass but its output_excerpt shows a `) {
				t.Errorf("message %q", f.Message)
			}
		}
		want := []string(nil)
		if tc.want != "" {
			want = []string{strings.Join(strings.Fields(tc.want), " ")}
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s / %q: evidence %q, want %q", tc.cmd, tc.out, got, want)
		}
	}
}

// TestPassContradictedCoverage checks that a contradicted row counts as unsuccessful for its
// declared command and that the exit-code and zero-test findings take precedence.
func TestPassContradictedCoverage(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "tests/test_basic.py", "")
	const c = "python -m pytest tests"
	out := "FAILED tests/test_basic.py::test_url_for_simple … 1 failed, 12 passed"
	cases := []struct {
		name string
		row  Row
		want []string
	}{
		{"contradicted", Row{Cmd: c, Result: "pass", ExitCode: i64(0), TestsRun: i64(13), OutputExcerpt: &out}, []string{
			"verification_pass_contradicted cmd=python -m pytest tests runner=pytest evidence=FAILED tests/test_basic.py::test_url_for_simple",
			"verification_requirement_unmet cmd=python -m pytest tests reason=not_passed"}},
		{"exit code first", Row{Cmd: c, Result: "pass", ExitCode: i64(1), OutputExcerpt: &out}, []string{
			"observed_exit_code_non_zero cmd=python -m pytest tests exit_code=1",
			"verification_requirement_unmet cmd=python -m pytest tests reason=not_passed"}},
		{"zero tests first", Row{Cmd: c, Result: "pass", ExitCode: i64(0), TestsRun: i64(0), OutputExcerpt: &out}, []string{
			"observed_zero_tests cmd=python -m pytest tests",
			"verification_requirement_unmet cmd=python -m pytest tests reason=not_passed"}},
		{"a fail row is not contradicted", Row{Cmd: c, Result: "fail", ExitCode: i64(1), OutputExcerpt: &out}, []string{
			"verification_requirement_unmet cmd=python -m pytest tests reason=not_passed"}},
	}
	for _, tc := range cases {
		got := summarize(Check(root, []string{c}, []Row{tc.row}))
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// FuzzContradiction checks that the summary matchers never panic and that the evidence is one
// bounded line.
func FuzzContradiction(f *testing.F) {
	f.Add("Traceback (most recent call last):\nValueError: x")
	f.Add("1 failed, 2 passed")
	f.Add("Tests: 1 failed")
	f.Fuzz(func(t *testing.T, out string) {
		for _, r := range []Runner{RunnerPytest, RunnerGo, RunnerJest, RunnerVitest, RunnerCargo} {
			if ev, ok := contradiction(r, out); ok && (strings.ContainsAny(ev, "\n\r") || len([]rune(ev)) > maxEvidence+1) {
				t.Fatalf("%s: evidence %q", r, ev)
			}
		}
	})
}

// TestPassContradictedInColour: a coloured excerpt (jest, vitest, pytest and cargo colour their
// summaries on a terminal or with FORCE_COLOR) shows the same failure as the plain one; the
// escape sequences are removed before matching. Before, every case here was a silent pass.
func TestPassContradictedInColour(t *testing.T) {
	zero := int64(0)
	cases := []struct{ cmd, out, want string }{
		{"go test ./...", "\x1b[31mFAIL\x1b[0m\texample.com/x\t0.01s", "FAIL example.com/x 0.01s"},
		{"go test ./...", "--- \x1b[31mFAIL\x1b[0m: TestX (0.00s)", "--- FAIL: TestX"},
		{"pytest", "\x1b[31m1 failed\x1b[0m, 2 passed in 0.1s", "1 failed,"},
		{"pytest", "\x1b]8;;file:///t.py\x07FAILED\x1b]8;;\x07 t.py::test_a - assert 0", "FAILED t.py::test_a"},
		{"npx jest", "Tests:       \x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m, 12 passed, 13 total", "Tests: 1 failed"},
		{"vitest run", " \x1b[2mTests\x1b[22m  \x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m12 passed (13)", "Tests 1 failed"},
		{"cargo test", "test result: \u009b31mFAILED\u009b0m. 1 passed; 1 failed", "test result: FAILED"},
		{"cargo test", "test result: \x1b[32mok\x1b[0m. 3 passed; 0 failed", ""},
	}
	for _, c := range cases {
		out := c.out
		f, ok := Contradiction(Row{Cmd: c.cmd, Result: "pass", ExitCode: &zero, OutputExcerpt: &out})
		got := ""
		if ok {
			got = f.FieldString("evidence")
		}
		if got != c.want {
			t.Errorf("%s %q: evidence %q, want %q", c.cmd, c.out, got, c.want)
		}
	}
}
