package verifyrun

import (
	"fmt"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/verification"
)

func countsString(c Counts) string {
	s := func(p *int64) string {
		if p == nil {
			return "?"
		}
		return fmt.Sprint(*p)
	}
	return "run=" + s(c.TestsRun) + " failed=" + s(c.TestsFailed)
}

// The outputs are the runners' own, copied from real runs (go 1.26, pytest 8, jest 29,
// vitest 2, cargo 1.8x), trimmed to the lines that matter plus some noise.
func TestParseCounts(t *testing.T) {
	cases := []struct {
		name   string
		runner verification.Runner
		out    string
		want   string
	}{
		{"go plain pass", verification.RunnerGo,
			"ok  \texample.com/m/a\t0.002s\n?   \texample.com/m/b\t[no test files]\n", "run=? failed=0"},
		{"go plain fail", verification.RunnerGo,
			"ok  \texample.com/m/a\t0.002s\n--- FAIL: TestBad (0.00s)\n    c_test.go:3: boom\nFAIL\nFAIL\texample.com/m/c\t0.003s\nFAIL\n", "run=? failed=1"},
		{"go plain zero", verification.RunnerGo,
			"ok  \texample.com/m/d\t0.013s [no tests to run]\n?   \texample.com/m/b\t[no test files]\n", "run=0 failed=0"},
		{"go plain no test files only", verification.RunnerGo, "?   \texample.com/m\t[no test files]\n", "run=0 failed=0"},
		{"go build failed", verification.RunnerGo,
			"# example.com/m\n./m.go:3:1: syntax error\nFAIL\texample.com/m [build failed]\nFAIL\n", "run=? failed=?"},
		{"go verbose", verification.RunnerGo,
			"=== RUN   TestOne\n=== RUN   TestOne/sub\n--- PASS: TestOne (0.00s)\n    --- PASS: TestOne/sub (0.00s)\n" +
				"=== RUN   TestTwo\n--- SKIP: TestTwo (0.00s)\nPASS\nok  \texample.com/m/a\t0.006s\n" +
				"=== RUN   TestBad\n    c_test.go:3: boom\n--- FAIL: TestBad (0.00s)\nFAIL\nFAIL\texample.com/m/c\t0.004s\n", "run=3 failed=1"},
		{"go verbose crlf", verification.RunnerGo, "=== RUN   TestA\r\n--- PASS: TestA (0.00s)\r\nPASS\r\n", "run=1 failed=0"},
		{"go json", verification.RunnerGo,
			`{"Action":"start","Package":"example.com/m/a"}` + "\n" +
				`{"Action":"run","Package":"example.com/m/a","Test":"TestOne"}` + "\n" +
				`{"Action":"output","Package":"example.com/m/a","Test":"TestOne","Output":"--- PASS: TestOne (0.00s)\n"}` + "\n" +
				`{"Action":"pass","Package":"example.com/m/a","Test":"TestOne/sub","Elapsed":0}` + "\n" +
				`{"Action":"pass","Package":"example.com/m/a","Test":"TestOne","Elapsed":0}` + "\n" +
				`{"Action":"fail","Package":"example.com/m/a","Test":"TestTwo","Elapsed":0}` + "\n" +
				`{"Action":"skip","Package":"example.com/m/a","Test":"TestThree","Elapsed":0}` + "\n" +
				`{"Action":"fail","Package":"example.com/m/a","Elapsed":0.01}` + "\n", "run=3 failed=1"},
		{"go json no tests", verification.RunnerGo,
			`{"Action":"start","Package":"example.com/m"}` + "\n" +
				`{"Action":"output","Package":"example.com/m","Output":"?   \texample.com/m\t[no test files]\n"}` + "\n" +
				`{"Action":"skip","Package":"example.com/m","Elapsed":0}` + "\n", "run=0 failed=0"},
		{"go nothing", verification.RunnerGo, "go: cannot find main module\n", "run=? failed=?"},

		{"pytest pass", verification.RunnerPytest,
			"============================= test session starts ==============================\ncollected 3 items\n\n" +
				"tests/test_a.py ...                                                      [100%]\n\n" +
				"============================== 3 passed in 0.01s ===============================\n", "run=3 failed=0"},
		{"pytest mixed", verification.RunnerPytest,
			"FAILED tests/test_a.py::test_x - assert 1 == 2\n" +
				"===== 2 failed, 5 passed, 1 skipped, 1 xfailed, 1 error, 3 warnings in 0.52s =====\n", "run=9 failed=3"},
		{"pytest quiet", verification.RunnerPytest, "..F\n1 failed, 2 passed in 0.03s\n", "run=3 failed=1"},
		{"pytest none", verification.RunnerPytest,
			"collected 0 items\n\n============================ no tests ran in 0.00s =============================\n", "run=0 failed=0"},
		{"pytest deselected", verification.RunnerPytest, "======= 4 deselected in 0.01s =======\n", "run=0 failed=0"},
		{"pytest colour", verification.RunnerPytest, "\x1b[32m====== \x1b[32m\x1b[1m2 passed\x1b[0m\x1b[32m in 0.01s\x1b[0m\x1b[32m ======\x1b[0m\n", "run=2 failed=0"},
		{"pytest colour 256 colon form", verification.RunnerPytest, "\x1b[38:5:2m====== 3 passed in 0.01s ======\x1b[0m\n", "run=3 failed=0"},
		{"cargo hyperlink", verification.RunnerCargo, "\x1b]8;;file:///x\x1b\\test result: ok. 2 passed; 0 failed;\x1b]8;;\x1b\\\n", "run=2 failed=0"},
		{"pytest unrelated", verification.RunnerPytest, "ERROR: file or directory not found: tests\n", "run=? failed=?"},

		{"jest", verification.RunnerJest,
			"PASS src/a.test.js\nFAIL src/b.test.js\n\nTest Suites: 1 failed, 1 passed, 2 total\n" +
				"Tests:       1 failed, 1 skipped, 4 passed, 6 total\nSnapshots:   0 total\nTime:        0.512 s\n", "run=5 failed=1"},
		{"jest pass", verification.RunnerJest, "Tests:       3 passed, 3 total\n", "run=3 failed=0"},
		{"jest none", verification.RunnerJest, "No tests found, exiting with code 1\nRun with `--passWithNoTests` to exit with code 0\n", "run=0 failed=0"},

		{"vitest", verification.RunnerVitest,
			" ✓ src/a.test.ts (2 tests) 3ms\n ❯ src/b.test.ts (2 tests | 1 failed) 5ms\n\n" +
				" Test Files  1 failed | 1 passed (2)\n      Tests  1 failed | 3 passed (4)\n   Start at  10:00:00\n", "run=4 failed=1"},
		{"vitest colour", verification.RunnerVitest, "\x1b[2m      Tests \x1b[22m \x1b[1m\x1b[32m2 passed\x1b[39m\x1b[22m\x1b[90m (2)\x1b[39m\n", "run=2 failed=0"},
		{"vitest none", verification.RunnerVitest, "No test files found, exiting with code 1\n", "run=0 failed=0"},
		{"vitest skipped", verification.RunnerVitest, " Test Files  1 failed (1)\n      Tests  1 failed | 1 passed | 1 skipped (3)\n", "run=2 failed=1"},
		{"vitest load error", verification.RunnerVitest, " Test Files  1 failed (1)\n      Tests  no tests\n", "run=0 failed=0"},

		{"cargo", verification.RunnerCargo,
			"running 3 tests\ntest a ... ok\ntest b ... ok\ntest c ... FAILED\n\n" +
				"test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n" +
				"   Doc-tests core\n\nrunning 1 test\ntest src/lib.rs - f (line 3) ... ok\n\n" +
				"test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.20s\n", "run=4 failed=1"},
		{"cargo zero", verification.RunnerCargo,
			"running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n", "run=0 failed=0"},
		{"cargo compile error", verification.RunnerCargo, "error[E0425]: cannot find value `x` in this scope\nerror: could not compile `core`\n", "run=? failed=?"},

		{"cargo huge counts saturate", verification.RunnerCargo,
			"test result: ok. 9223372036854775807 passed; 0 failed;\ntest result: ok. 99999999999999999999 passed; 1 failed;\n", "run=9223372036854775807 failed=1"},
		{"jest huge counts saturate", verification.RunnerJest, "Tests:       9223372036854775807 failed, 1 passed, 1 total\n", "run=9223372036854775807 failed=9223372036854775807"},
		{"pytest huge counts saturate", verification.RunnerPytest, "== 18446744073709551616 passed in 0.01s ==\n", "run=9223372036854775807 failed=0"},

		{"unrecognised", "", "Tests: 3 passed, 3 total\n", "run=? failed=?"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := countsString(ParseCounts(tc.runner, "", tc.out)); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestGoVerboseWithoutRunLines: with -v declared, "ok" without a single "=== RUN" line ran no
// test (a TestMain that exits before m.Run); without -v the count stays unknown.
func TestGoVerboseWithoutRunLines(t *testing.T) {
	out := "ok  \texample.com/m\t0.002s\n"
	if got := countsString(ParseCounts(verification.RunnerGo, "go test -count=1 -v ./...", out)); got != "run=0 failed=0" {
		t.Errorf("-v: %s", got)
	}
	if got := countsString(ParseCounts(verification.RunnerGo, "go test ./...", out)); got != "run=? failed=0" {
		t.Errorf("plain: %s", got)
	}
}

// TestStreamingMatchesWhole: the recorder's line splitting, fed in arbitrary chunks, gives the
// counts of the whole output.
func TestStreamingMatchesWhole(t *testing.T) {
	out := "=== RUN   TestA\r\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n--- FAIL: TestB (0.00s)\nFAIL\n--- PASS: TestC (0.00s)"
	want := countsString(ParseCounts(verification.RunnerGo, "go test -v ./...", out))
	for size := 1; size < len(out); size++ {
		r := newRecorder(nil, newCounter(verification.RunnerGo, "go test -v ./..."))
		for i := 0; i < len(out); i += size {
			_, _ = r.Write([]byte(out[i:min(i+size, len(out))]))
		}
		r.finish()
		if got := countsString(r.counter.counts()); got != want {
			t.Fatalf("chunk %d: got %s, want %s", size, got, want)
		}
	}
	if want != "run=3 failed=1" {
		t.Errorf("whole: %s", want)
	}
}

func FuzzParseCounts(f *testing.F) {
	f.Add("ok  \tx\t0.1s\n--- FAIL: T (0s)\n")
	f.Add("Tests:       1 failed, 2 passed, 3 total\n")
	f.Add("      Tests  1 failed | 3 passed (4)\n")
	f.Add("test result: ok. 99999999999999999999 passed; 0 failed;\n")
	f.Add("===== 2 failed, 5 passed in 0.5s =====\n")
	f.Add(`{"Action":"pass","Package":"p","Test":"T"}` + "\n")
	f.Fuzz(func(t *testing.T, out string) {
		for _, r := range []verification.Runner{verification.RunnerGo, verification.RunnerPytest,
			verification.RunnerJest, verification.RunnerVitest, verification.RunnerCargo} {
			c := ParseCounts(r, "go test -v", out)
			if c.TestsRun != nil && c.TestsFailed != nil && *c.TestsFailed > *c.TestsRun && *c.TestsRun >= 0 && r != verification.RunnerGo {
				t.Errorf("%s: failed %d > run %d", r, *c.TestsFailed, *c.TestsRun)
			}
			if (c.TestsRun != nil && *c.TestsRun < 0) || (c.TestsFailed != nil && *c.TestsFailed < 0) {
				t.Errorf("%s: negative count %s", r, countsString(c))
			}
		}
	})
}
