//go:build !windows

package verifyrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The pytest, jest and vitest tests run the real tools when the machine has them: pytest on PATH
// (.ci/run installs Debian's python3-pytest), jest and vitest in MASTERMIND_TEST_NODE_BIN or on
// PATH (.ci/run installs them from the npm registry). Otherwise they are skipped.

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// toolEnv returns an environment whose PATH finds tool, or skips the test.
func toolEnv(t *testing.T, tool string) []string {
	t.Helper()
	path := os.Getenv("PATH")
	if bin := os.Getenv("MASTERMIND_TEST_NODE_BIN"); bin != "" {
		path = bin + string(os.PathListSeparator) + path
	}
	for _, d := range filepath.SplitList(path) {
		if fi, err := os.Stat(filepath.Join(d, tool)); err == nil && !fi.IsDir() {
			env := []string{"PATH=" + path}
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "PATH=") {
					env = append(env, kv)
				}
			}
			return env
		}
	}
	t.Skipf("%s not found (PATH or MASTERMIND_TEST_NODE_BIN)", tool)
	return nil
}

func TestPytest(t *testing.T) {
	env := toolEnv(t, "pytest")
	if err := exec.Command("pytest", "--version").Run(); err != nil {
		t.Skipf("pytest does not run: %v", err)
	}
	pass := writeFiles(t, map[string]string{"tests/test_a.py": "def test_a():\n    assert 1\n\ndef test_b():\n    assert 2\n"})
	r := mustRun(t, pass, "pytest -q tests", time.Minute, Options{Env: env})
	if !r.Passed() || r.Runner != "pytest" || r.TestsRun == nil || *r.TestsRun != 2 || *r.TestsFailed != 0 {
		t.Errorf("pass: %+v\n%s", r, r.OutputTail)
	}
	fail := writeFiles(t, map[string]string{"tests/test_a.py": "def test_a():\n    assert 1\n\ndef test_b():\n    assert 0\n"})
	r = mustRun(t, fail, "pytest tests", time.Minute, Options{Env: env})
	if r.Passed() || r.ExitCode != 1 || r.TestsRun == nil || *r.TestsRun != 2 || *r.TestsFailed != 1 {
		t.Errorf("fail: %+v\n%s", r, r.OutputTail)
	}
	zero := writeFiles(t, map[string]string{"a.py": "x = 1\n"})
	r = mustRun(t, zero, "pytest", time.Minute, Options{Env: env})
	if r.Passed() || r.ExitCode != 5 || r.TestsRun == nil || *r.TestsRun != 0 {
		t.Errorf("zero: %+v\n%s", r, r.OutputTail)
	}
}

func TestJest(t *testing.T) {
	env := toolEnv(t, "jest")
	files := map[string]string{"package.json": `{"name":"x","private":true}` + "\n",
		"a.test.js": "test('a', () => { expect(1).toBe(1) });\ntest('b', () => { expect(2).toBe(2) });\ntest.skip('c', () => {});\n"}
	r := mustRun(t, writeFiles(t, files), "jest --ci", 2*time.Minute, Options{Env: env})
	if !r.Passed() || r.Runner != "jest" || r.TestsRun == nil || *r.TestsRun != 2 || *r.TestsFailed != 0 {
		t.Errorf("pass: %+v\n%s", r, r.OutputTail)
	}
	files["a.test.js"] = "test('a', () => { expect(1).toBe(1) });\ntest('b', () => { expect(1).toBe(2) });\n"
	r = mustRun(t, writeFiles(t, files), "jest --ci", 2*time.Minute, Options{Env: env})
	if r.Passed() || r.TestsRun == nil || *r.TestsRun != 2 || *r.TestsFailed != 1 {
		t.Errorf("fail: %+v\n%s", r, r.OutputTail)
	}
	r = mustRun(t, writeFiles(t, map[string]string{"package.json": `{"name":"y","private":true}` + "\n"}), "jest --ci", 2*time.Minute, Options{Env: env})
	if r.Passed() || r.TestsRun == nil || *r.TestsRun != 0 {
		t.Errorf("zero: %+v\n%s", r, r.OutputTail)
	}
}

func TestVitest(t *testing.T) {
	env := toolEnv(t, "vitest")
	files := map[string]string{"package.json": `{"name":"z","private":true,"type":"module"}` + "\n",
		"a.test.js": "import {test, expect} from 'vitest';\ntest('a', () => { expect(1).toBe(1) });\ntest('b', () => { expect(1).toBe(2) });\ntest.skip('c', () => {});\n"}
	r := mustRun(t, writeFiles(t, files), "vitest run", 2*time.Minute, Options{Env: env})
	if r.Passed() || r.Runner != "vitest" || r.TestsRun == nil || *r.TestsRun != 2 || *r.TestsFailed != 1 {
		t.Errorf("fail: %+v\n%s", r, r.OutputTail)
	}
	files["a.test.js"] = "import {test, expect} from 'vitest';\ntest('a', () => { expect(1).toBe(1) });\n"
	r = mustRun(t, writeFiles(t, files), "vitest run", 2*time.Minute, Options{Env: env})
	if !r.Passed() || r.TestsRun == nil || *r.TestsRun != 1 || *r.TestsFailed != 0 {
		t.Errorf("pass: %+v\n%s", r, r.OutputTail)
	}
}
