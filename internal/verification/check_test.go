package verification

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func i64(n int64) *int64 { return &n }

// summarize renders findings as "kind cmd=… reason=… exit_code=…" for table comparisons.
func summarize(r Result) []string {
	var out []string
	for _, f := range r.Findings {
		s := f.Rule
		for _, fl := range f.Fields {
			s += fmt.Sprintf(" %s=%v", fl.Key, fl.Value)
		}
		out = append(out, s)
	}
	return out
}

// TestCoverageExamples is every example row of the §10.5.2 table, with a declared `go test ./...`.
// The scan root is an empty directory with a *_test.go file, so no vacuous warning interferes.
func TestCoverageExamples(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a_test.go", "package a\n")
	const c = "go test ./..."
	pass := func(exit, tests *int64) Row { return Row{Cmd: c, Result: "pass", ExitCode: exit, TestsRun: tests} }
	cases := []struct {
		name string
		rows []Row
		want []string
	}{
		{"none", nil, []string{"verification_requirement_unmet cmd=go test ./... reason=missing_result"}},
		{"pass exit 0", []Row{pass(i64(0), nil)}, nil},
		{"pass no observed", []Row{pass(nil, nil)},
			[]string{"verification_requirement_unmet cmd=go test ./... reason=unobserved_exit"}},
		{"pass empty observed", []Row{{Cmd: c, Result: "pass"}},
			[]string{"verification_requirement_unmet cmd=go test ./... reason=unobserved_exit"}},
		{"pass exit 7", []Row{pass(i64(7), nil)}, []string{
			"observed_exit_code_non_zero cmd=go test ./... exit_code=7",
			"verification_requirement_unmet cmd=go test ./... reason=not_passed"}},
		{"exit 0 and exit 7", []Row{pass(i64(0), nil), pass(i64(7), nil)}, []string{
			"observed_exit_code_non_zero cmd=go test ./... exit_code=7",
			"verification_requirement_unmet cmd=go test ./... reason=conflicting_results"}},
		{"exit 0 tests 0", []Row{pass(i64(0), i64(0))}, []string{
			"observed_zero_tests cmd=go test ./...",
			"verification_requirement_unmet cmd=go test ./... reason=not_passed"}},
		{"two rows exit 0 tests 0", []Row{pass(i64(0), i64(0)), pass(i64(0), i64(0))}, []string{
			"observed_zero_tests cmd=go test ./...",
			"observed_zero_tests cmd=go test ./...",
			"verification_requirement_unmet cmd=go test ./... reason=not_passed"}},
		{"exit 0 and unobserved", []Row{pass(i64(0), nil), pass(nil, nil)},
			[]string{"verification_requirement_unmet cmd=go test ./... reason=conflicting_results"}},
		{"padded plus unrelated", []Row{{Cmd: "  go test ./...  ", Result: "pass", ExitCode: i64(0)},
			{Cmd: "make lint", Result: "pass", ExitCode: i64(0)}}, nil},
		{"different command", []Row{{Cmd: "go test ./... -count=1", Result: "pass", ExitCode: i64(0)}},
			[]string{"verification_requirement_unmet cmd=go test ./... reason=missing_result closest=go test ./... -count=1"}},
		// Further rules of §10.5.1–§10.5.2.
		{"fail row", []Row{{Cmd: c, Result: "fail"}},
			[]string{"verification_requirement_unmet cmd=go test ./... reason=not_passed"}},
		{"pass and fail", []Row{pass(i64(0), nil), {Cmd: c, Result: "fail", ExitCode: i64(1)}},
			[]string{"verification_requirement_unmet cmd=go test ./... reason=conflicting_results"}},
		{"exit 3 with tests 0 gives only the exit finding", []Row{pass(i64(3), i64(0))}, []string{
			"observed_exit_code_non_zero cmd=go test ./... exit_code=3",
			"verification_requirement_unmet cmd=go test ./... reason=not_passed"}},
		{"tests 0 without exit code", []Row{pass(nil, i64(0))}, []string{
			"observed_zero_tests cmd=go test ./...",
			"verification_requirement_unmet cmd=go test ./... reason=not_passed"}},
		{"env prefix does not match", []Row{{Cmd: "env go test ./...", Result: "pass", ExitCode: i64(0)}},
			[]string{"verification_requirement_unmet cmd=go test ./... reason=missing_result closest=env go test ./..."}},
		{"case differs", []Row{{Cmd: "Go test ./...", Result: "pass", ExitCode: i64(0)}},
			[]string{"verification_requirement_unmet cmd=go test ./... reason=missing_result closest=Go test ./..."}},
		// White-space runs collapse before matching (lifecycle-v2.md §7).
		{"spacing differs", []Row{{Cmd: "go test  ./...", Result: "pass", ExitCode: i64(0)}}, nil},
		{"tab and padding", []Row{{Cmd: " go\ttest \t ./... ", Result: "pass", ExitCode: i64(0)}}, nil},
		{"unrelated row is no near miss", []Row{{Cmd: "make lint", Result: "pass", ExitCode: i64(0)}},
			[]string{"verification_requirement_unmet cmd=go test ./... reason=missing_result"}},
		{"same runner is a near miss", []Row{{Cmd: "make lint", Result: "pass", ExitCode: i64(0)},
			{Cmd: "go test -race ./internal/...", Result: "pass", ExitCode: i64(0)}},
			[]string{"verification_requirement_unmet cmd=go test ./... reason=missing_result closest=go test -race ./internal/..."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(Check(root, []string{c}, tc.rows))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

func TestContradictionsOnUndeclaredRows(t *testing.T) {
	root := t.TempDir()
	rows := []Row{
		{Index: 0, Cmd: "make check", Result: "pass", ExitCode: i64(2)},
		{Index: 1, Cmd: "make check", Result: "pass", ExitCode: i64(0), TestsRun: i64(0)}, // unrecognised: nothing
		{Index: 2, Cmd: "cargo test --locked", Result: "pass", TestsRun: i64(0)},
		{Index: 3, Cmd: "pytest -q", Result: "fail", ExitCode: i64(1)},
		{Index: 4, Cmd: "jest --ci", Result: "pass", ExitCode: i64(0), TestsRun: i64(12)},
	}
	res := Check(root, nil, rows)
	want := []string{
		"observed_exit_code_non_zero cmd=make check exit_code=2",
		"observed_zero_tests cmd=cargo test --locked",
	}
	if d := cmp.Diff(want, summarize(res)); d != "" {
		t.Errorf("findings (-want +got)\n%s", d)
	}
	var classes []string
	for _, ev := range res.Rows {
		r := "-"
		if ev.Runner != nil {
			r = *ev.Runner
		}
		classes = append(classes, fmt.Sprintf("%d %s %s", ev.Index, ev.Classification, r))
	}
	wantClasses := []string{"0 unsuccessful -", "1 passed -", "2 unsuccessful cargo", "3 unsuccessful pytest", "4 passed jest"}
	if d := cmp.Diff(wantClasses, classes); d != "" {
		t.Errorf("rows (-want +got)\n%s", d)
	}
	if f := res.Findings[0]; f.Message != `"make check" is reported as pass but its observed exit code is 2; report result: fail with a defect, or fix the failure and report the passing run` || f.Class != "error" {
		t.Errorf("message %q class %s", f.Message, f.Class)
	}
	if f := res.Findings[1]; f.Message != `"cargo test --locked" is reported as pass but observed 0 tests run; make the command run the tests (check its paths and filters) and report the real tests_run` {
		t.Errorf("message %q", f.Message)
	}
}

func TestMessagesEscapeAndQuote(t *testing.T) {
	res := Check(t.TempDir(), []string{"echo \"hi\"\x1b[31m"}, nil)
	if len(res.Findings) != 1 {
		t.Fatalf("%v", res.Findings)
	}
	f := res.Findings[0]
	if strings.ContainsRune(f.Message, 0x1b) || !strings.HasPrefix(f.Message, `declared verification "echo "hi"`) ||
		!strings.HasSuffix(f.Message, `is not satisfied (missing_result); run it and report a row whose cmd is exactly the declared command, or revise the spec`) {
		t.Errorf("message %q", f.Message)
	}
	if f.FieldString("cmd") != "echo \"hi\"\x1b[31m" {
		t.Errorf("cmd field %q", f.FieldString("cmd"))
	}
}

// FuzzCheck checks that Check never panics, classifies every row, and never reports a declared
// command as satisfied when its only row failed.
func FuzzCheck(f *testing.F) {
	root := f.TempDir()
	writeFile(f, root, "pkg/a.go", "package pkg\n")
	f.Add("go test ./pkg", int64(0), int64(-1), true)
	f.Add("cargo test", int64(1), int64(0), true)
	f.Add("vitest run", int64(0), int64(0), false)
	f.Fuzz(func(t *testing.T, cmd string, exit, tests int64, pass bool) {
		r := Row{Cmd: cmd, Result: "fail"}
		if pass {
			r.Result = "pass"
		}
		if exit >= 0 {
			r.ExitCode = &exit
		}
		if tests >= 0 {
			r.TestsRun = &tests
		}
		res := Check(root, []string{cmd}, []Row{r})
		if len(res.Rows) != 1 {
			t.Fatalf("rows %v", res.Rows)
		}
		unmet := false
		for _, fd := range res.Findings {
			unmet = unmet || fd.Rule == KindRequirementUnmet
			// The audit takes Class and Message as they are (Result.Findings).
			if fd.Class == "" || fd.Message == "" {
				t.Fatalf("%s without class or message: %+v", fd.Rule, fd)
			}
		}
		if strings.TrimSpace(cmd) != "" && res.Rows[0].Classification != ClassPassed && !unmet {
			t.Fatalf("%q classified %s but satisfied", cmd, res.Rows[0].Classification)
		}
	})
}

// TestNearMissMessage checks the lifecycle-v2.md §7 message: the declared and the closest reported
// command, what to do, and no auto-accept.
func TestNearMissMessage(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "tests/test_basic.py", "")
	res := Check(root, []string{"python -m pytest tests/test_basic.py -k url"}, []Row{
		{Cmd: "python3 -m pytest tests/test_basic.py -k url", Result: "pass", ExitCode: i64(0), TestsRun: i64(3)},
		{Cmd: "ruff check .", Result: "pass", ExitCode: i64(0)},
	})
	if len(res.Findings) != 1 {
		t.Fatalf("findings %v", res.Findings)
	}
	f := res.Findings[0]
	want := "declared `python -m pytest tests/test_basic.py -k url` has no result; the report ran `python3 -m pytest tests/test_basic.py -k url` — report the declared command or revise the spec (missing_result)"
	if f.Message != want || f.FieldString("reason") != ReasonMissingResult || f.FieldString("closest") != "python3 -m pytest tests/test_basic.py -k url" {
		t.Errorf("got %q fields %v", f.Message, f.Fields)
	}
}

func TestMatchKey(t *testing.T) {
	for in, want := range map[string]string{
		"  go   test\t./...  ": "go test ./...",
		"go test ./...":        "go test ./...",
		"a\nb":                 "a\nb",
		"":                     "",
		" \t ":                 "",
	} {
		if got := MatchKey(in); got != want {
			t.Errorf("MatchKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDeclaredSpacingKeepsTheDeclaredText checks that the finding names the declared command as
// written (trimmed), while matching uses the collapsed form.
func TestDeclaredSpacingKeepsTheDeclaredText(t *testing.T) {
	res := Check(t.TempDir(), []string{"  make   check ", "make check"}, nil)
	if len(res.Findings) != 1 || res.Findings[0].FieldString("cmd") != "make   check" {
		t.Fatalf("findings %v", res.Findings)
	}
}
