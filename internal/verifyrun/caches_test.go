package verifyrun

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWithCachePins(t *testing.T) {
	dir := t.TempDir()
	env, pinned := WithCachePins([]string{"PATH=/bin", "MYPY_CACHE_DIR=/mine", "PYTEST_ADDOPTS=-q"}, dir)
	want := []string{"PATH=/bin", "MYPY_CACHE_DIR=/mine",
		"PYTEST_ADDOPTS=-q -o cache_dir='" + filepath.Join(dir, "pytest") + "'",
		"PYTHONPYCACHEPREFIX=" + filepath.Join(dir, "pycache"),
		"RUFF_CACHE_DIR=" + filepath.Join(dir, "ruff"),
		"CARGO_TARGET_DIR=" + filepath.Join(dir, "cargo-target")}
	if !slices.Equal(env, want) {
		t.Errorf("env\n%q\nwant\n%q", env, want)
	}
	if pinned[".mypy_cache"] || !pinned["__pycache__"] || !pinned[".pytest_cache"] || !pinned["target"] {
		t.Errorf("pinned %v", pinned)
	}
	if e, p := WithCachePins([]string{"A=1"}, ""); !slices.Equal(e, []string{"A=1"}) || p != nil {
		t.Errorf("no dir: %q %v", e, p)
	}
}

func TestPinnedAway(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "target"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "target", "CACHEDIR.TAG"), []byte("Signature: x"), 0o644)
	pinned := map[string]bool{"__pycache__": true, ".pytest_cache": true, "target": true}
	for rel, want := range map[string]bool{
		"src/__pycache__/a.cpython-311.pyc":           true,
		"src/__pycache__/sub/a.pyc":                   false,
		"src/evil.pyc":                                false, // a sourceless .pyc is imported: an input
		".pytest_cache/v/cache/lastfailed":            true,
		"target/debug/app":                            true,
		"crates/x/target/debug/app":                   false, // no CACHEDIR.TAG there
		".mypy_cache/3.11/a.json":                     false, // not pinned
		"node_modules/.vite/vitest/results.json":      true,
		"node_modules/.vite/vitest/0a1b/results.json": true,
		"node_modules/.vite/deps/react.js":            false,
		"x_node_modules/.vite/vitest/results.json":    false,
	} {
		if got := PinnedAway(root, rel, pinned); got != want {
			t.Errorf("PinnedAway(%s) = %v, want %v", rel, got, want)
		}
	}
}

func TestIgnoredInputFinding(t *testing.T) {
	if IgnoredInput(nil) != nil {
		t.Error("a finding for nothing")
	}
	var paths []string
	for i := range 25 {
		paths = append(paths, "gen/"+strings.Repeat("x", i+1))
	}
	f := IgnoredInput(paths)
	if f.Rule != "verification_ignored_input" || f.Class != "warning" || !strings.Contains(f.Message, " and 5 more; remove them") ||
		len(f.Fields) != 2 || len(f.Fields[0].Value.([]string)) != 20 || f.Fields[1].Value != 25 {
		t.Errorf("finding %+v", f)
	}
}
