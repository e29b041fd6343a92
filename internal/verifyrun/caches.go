package verifyrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// cachePin is one tool whose cache a controller run is pointed at a directory of the
// controller's (verification-receipts.md §2.1): the variable, the sub-directory, and the
// work-tree directory name whose files the tool then never reads.
type cachePin struct {
	tool, env, sub, dirName string
	append                  bool // PYTEST_ADDOPTS: the pin is added to the caller's options
}

var cachePins = []cachePin{
	{tool: "python", env: "PYTHONPYCACHEPREFIX", sub: "pycache", dirName: "__pycache__"},
	{tool: "pytest", env: "PYTEST_ADDOPTS", sub: "pytest", dirName: ".pytest_cache", append: true},
	{tool: "mypy", env: "MYPY_CACHE_DIR", sub: "mypy", dirName: ".mypy_cache"},
	{tool: "ruff", env: "RUFF_CACHE_DIR", sub: "ruff", dirName: ".ruff_cache"},
	{tool: "cargo", env: "CARGO_TARGET_DIR", sub: "cargo-target", dirName: "target"},
}

// WithCachePins returns env with each tool cache of cachePins pointed below dir unless the caller
// set the variable, as verification-receipts.md §2.1 says. pinned names the work-tree cache
// directories the runs then never read; an empty dir pins nothing.
func WithCachePins(env []string, dir string) (out []string, pinned map[string]bool) {
	if dir == "" {
		return env, nil
	}
	pinned = map[string]bool{}
	out = append([]string(nil), env...)
	for _, p := range cachePins {
		target := filepath.Join(dir, p.sub)
		if os.MkdirAll(target, 0o700) != nil {
			continue
		}
		i := envIndex(out, p.env)
		switch {
		case p.append:
			opt := "-o cache_dir=" + shellQuote(target)
			if i < 0 {
				out = append(out, p.env+"="+opt)
			} else {
				out[i] += " " + opt
			}
		case i >= 0:
			continue // the caller's own setting stands; the work-tree cache may be read
		default:
			out = append(out, p.env+"="+target)
		}
		pinned[p.dirName] = true
	}
	return out, pinned
}

func envIndex(env []string, name string) int {
	for i, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, name) {
			return i
		}
	}
	return -1
}

// shellQuote quotes s for PYTEST_ADDOPTS, which pytest splits like a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PinnedAway reports whether the work-tree file rel is no input of the controller's runs: its
// tool's cache was pinned elsewhere by WithCachePins and it has the shape its tool writes
// (toolShaped), or it is vitest's results file, which orders the tests and decides no outcome.
func PinnedAway(root, rel string, pinned map[string]bool) bool {
	if isVitestResults(rel) {
		return true
	}
	parts := strings.Split(rel, "/")
	for i, c := range parts[:len(parts)-1] {
		if !pinned[c] {
			continue
		}
		switch c {
		case "__pycache__":
			if i == len(parts)-2 && strings.HasSuffix(rel, ".pyc") {
				return toolShaped(root, rel, c, "")
			}
		case "target":
			dir := path.Join(parts[:i+1]...)
			if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(dir), "CACHEDIR.TAG")); err == nil {
				return toolShaped(root, rel, c, "")
			}
		default:
			return toolShaped(root, rel, c, strings.Join(parts[i+1:], "/"))
		}
	}
	return false
}

// Bounds of toolShaped's reads: a data file is read whole up to maxShapedBytes, and a zip
// archive's end record lies in its last zipTailBytes.
const (
	maxShapedBytes = 16 << 20
	zipTailBytes   = 64<<10 + 22
)

// loadableExts are the file names Python imports or runs at start-up, and Go compiles, from a
// directory some visible code puts on its path.
var loadableExts = []string{".py", ".pyw", ".pyc", ".pyo", ".pth", ".so", ".pyd", ".zip", ".egg", ".whl", ".go"}

// toolShaped reports whether rel, a file in the pinned cache directory named dir (in is its path
// below the cache), is what that tool writes there, so that no loader can take it for code: no
// loadable file name and no zip archive (zipimport reads one under any name); pytest's values
// and mypy's .json files are JSON, ruff's are binary (a NUL byte, which no Python source holds).
// A marker (.gitignore, CACHEDIR.TAG, pytest's README.md) is inert. Anything else, or a file
// that cannot be read, is an input (gitscope.md §4.7, docs/hardening.md A-C6).
func toolShaped(root, rel, dir, in string) bool {
	switch in {
	case ".gitignore", "CACHEDIR.TAG":
		return true
	case "README.md":
		if dir == ".pytest_cache" {
			return true
		}
	}
	base := path.Base(rel)
	for _, ext := range loadableExts {
		if strings.HasSuffix(base, ext) && !(dir == "__pycache__" && ext == ".pyc") {
			return false
		}
	}
	if err := fsx.CheckNoSymlink(root, rel); err != nil {
		return false
	}
	f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(rel)), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	switch dir {
	case "__pycache__", "target":
		off := max(fi.Size()-zipTailBytes, 0)
		tail := make([]byte, fi.Size()-off)
		if _, err := f.ReadAt(tail, off); err != nil && !errors.Is(err, io.EOF) {
			return false
		}
		return !bytes.Contains(tail, zipEnd)
	}
	if fi.Size() > maxShapedBytes {
		return false
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return false
	}
	switch dir {
	case ".pytest_cache":
		return strings.HasPrefix(in, "v/") && json.Valid(b)
	case ".mypy_cache":
		return strings.HasSuffix(base, ".json") && json.Valid(b)
	case ".ruff_cache":
		return bytes.IndexByte(b, 0) >= 0 && !bytes.Contains(b, zipEnd)
	}
	return false
}

// zipEnd is the signature of a zip archive's end-of-central-directory record.
var zipEnd = []byte("PK\x05\x06")

// maxListedInputs bounds the paths a verification_ignored_input finding names.
const maxListedInputs = 20

// IgnoredInput is verification_ignored_input for the ignored files written since pre-flight
// that were in the work tree when the commands ran (verification-receipts.md §2.1); nil when
// there are none. The first maxListedInputs are named.
func IgnoredInput(paths []string) *finding.Finding {
	if len(paths) == 0 {
		return nil
	}
	shown := make([]string, 0, min(len(paths), maxListedInputs))
	for _, p := range paths[:min(len(paths), maxListedInputs)] {
		shown = append(shown, textsafe.Escape(p))
	}
	more := ""
	if len(paths) > maxListedInputs {
		more = fmt.Sprintf(" and %d more", len(paths)-maxListedInputs)
	}
	f := finding.Finding{Rule: finding.KindVerificationIgnoredInput, Class: finding.ClassWarning,
		Message: "mastermind ran the declared commands with ignored files written since pre-flight in the work tree, which the audit never saw and the runs may have read: " +
			strings.Join(shown, ", ") + more + "; remove them, or create them before pre-flight, and run post-flight again with --rerun-verify",
		Fields: []finding.Field{{Key: "files", Value: shown}, {Key: "count", Value: len(paths)}}}
	return &f
}

// isVitestResults matches node_modules/.vite/vitest/results.json and vitest 2's per-project
// node_modules/.vite/vitest/<hash>/results.json, at any depth.
func isVitestResults(rel string) bool {
	i := strings.LastIndex(rel, "node_modules/.vite/vitest/")
	if i < 0 || (i > 0 && rel[i-1] != '/') {
		return false
	}
	rest := rel[i+len("node_modules/.vite/vitest/"):]
	if rest == "results.json" {
		return true
	}
	h, f, ok := strings.Cut(rest, "/")
	return ok && f == "results.json" && h != "" && !strings.ContainsAny(h, "/.")
}
