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
	zip := []byte("PK\x03\x04evil.py...PK\x05\x06\x00\x00")
	for rel, data := range map[string][]byte{
		"src/__pycache__/a.cpython-311.pyc": []byte("\xa7\r\r\n\x00\x00"),
		"src/__pycache__/z.cpython-311.pyc": zip,
		".pytest_cache/v/cache/lastfailed":  []byte(`{"tests/test_a.py::test_x": true}`),
		".pytest_cache/v/cache/evil":        []byte("import os\n"),
		".pytest_cache/v/cache/evil.py":     []byte(`{}`),
		".pytest_cache/README.md":           []byte("# pytest cache directory #"),
		".pytest_cache/evil.json":           []byte(`{}`),
		".ruff_cache/0.5.0/123":             []byte("\x00\x01bincode"),
		".ruff_cache/0.5.0/evil":            []byte("import os\n"),
		".ruff_cache/0.5.0/zip":             append([]byte("\x00"), zip...),
		".mypy_cache/3.11/a.meta.json":      []byte(`{"mtime": 1}`),
		".mypy_cache/3.11/a.data":           []byte("\x00"),
		"target/debug/app":                  []byte("\x7fELF\x00"),
		"target/debug/evil.zip.bin":         zip,
		"target/evil.py":                    []byte("x = 1\n"),
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pinned := map[string]bool{"__pycache__": true, ".pytest_cache": true, "target": true, ".ruff_cache": true, ".mypy_cache": true}
	for rel, want := range map[string]bool{
		"src/__pycache__/a.cpython-311.pyc":           true,
		"src/__pycache__/z.cpython-311.pyc":           false, // a zip archive: zipimport loads it
		".pytest_cache/v/cache/evil":                  false, // not JSON
		".pytest_cache/v/cache/evil.py":               false, // a loadable name
		".pytest_cache/README.md":                     true,
		".pytest_cache/evil.json":                     false, // not below v/
		".pytest_cache/v/cache/missing":               false, // cannot be read
		".ruff_cache/0.5.0/123":                       true,
		".ruff_cache/0.5.0/evil":                      false, // text: Python source
		".ruff_cache/0.5.0/zip":                       false,
		".mypy_cache/3.11/a.meta.json":                true,
		".mypy_cache/3.11/a.data":                     false,
		"target/debug/evil.zip.bin":                   false,
		"target/evil.py":                              false,
		"src/__pycache__/sub/a.pyc":                   false,
		"src/evil.pyc":                                false, // a sourceless .pyc is imported: an input
		".pytest_cache/v/cache/lastfailed":            true,
		"target/debug/app":                            true,
		"crates/x/target/debug/app":                   false, // no CACHEDIR.TAG there
		".mypy_cache/3.11/a.json":                     false, // missing
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
