package verification

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// Scan safety limits (§10.5.4).
const (
	MaxScanDepth      = 12      // directory levels below the scope root
	MaxScanBytes      = 8 << 20 // total bytes read per scan
	MaxScanEntries    = 16384   // directory entries plus files visited per scan
	MaxScanSourceSize = 1 << 20 // largest source file read
)

// skipDirs are never walked.
var skipDirs = map[string]bool{".git": true, ".mastermind": true, "node_modules": true}

// scanState is the outcome of a vacuous-test scan.
type scanState uint8

const (
	unknown scanState = iota // the scope could not be resolved or a safety limit was hit
	present                  // test evidence was found
	absent                   // a verified, stable absence
)

// scanOutcome is a scan result; reason is set for absent.
type scanOutcome struct {
	state  scanState
	reason string
}

// scanCache runs scans under one repository root and remembers results by scope.
type scanCache struct {
	root string
	memo map[string]scanOutcome
}

func newScanCache(root string) *scanCache {
	return &scanCache{root: root, memo: map[string]scanOutcome{}}
}

// scan resolves the scope of a recognised invocation and looks for test evidence.
func (c *scanCache) scan(inv *invocation) scanOutcome {
	plan, ok := scopeOf(c.root, inv)
	if !ok {
		return scanOutcome{state: unknown}
	}
	key := plan.key()
	if o, ok := c.memo[key]; ok {
		return o
	}
	o := plan.run(c.root)
	c.memo[key] = o
	return o
}

// scanPlan is a resolved scope: the directories to scan, whether recursively, the evidence test,
// and the reason text for an absence.
type scanPlan struct {
	runner    Runner
	dirs      []string // repository-relative; "" is the root
	recursive bool
	presentIf bool // the scope is an existing test file: evidence without a walk
	reason    string
}

func (p scanPlan) key() string {
	return string(p.runner) + "\x00" + strings.Join(p.dirs, "\x00") + "\x00" + boolStr(p.recursive) + boolStr(p.presentIf)
}

func boolStr(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// resolveDir turns a command-line path (relative to the repository root) into a clean
// repository-relative directory or file path: leading "./" and trailing "/" are removed; "." and
// "" are the root. ok is false for "..", absolute paths and anything else that fails hygiene.
func resolveDir(arg string) (string, bool) {
	a := arg
	for strings.HasPrefix(a, "./") {
		a = a[2:]
	}
	a = strings.TrimRight(a, "/")
	if a == "" || a == "." {
		return "", true
	}
	for _, part := range strings.Split(a, "/") {
		if part == ".." {
			return "", false
		}
	}
	clean, err := repopath.Clean(a)
	if err != nil || clean != a {
		return "", false
	}
	return clean, true
}

// statInRoot checks that rel has no symlink in its path and returns its type. ok is false when the
// path is missing, symlinked or unreadable.
func statInRoot(root, rel string) (fs.FileMode, bool) {
	if rel == "" {
		fi, err := os.Lstat(root)
		if err != nil || !fi.IsDir() {
			return 0, false
		}
		return fi.Mode(), true
	}
	if err := fsx.CheckNoSymlink(root, rel); err != nil {
		return 0, false
	}
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return 0, false
	}
	return fi.Mode(), true
}

// display renders a scope directory for reason texts: "./dir", or the root phrase.
func display(rel string) string {
	if rel == "" {
		return "the repository root"
	}
	return "./" + rel
}

// scopeOf resolves the §10.5.4 scope of inv. ok is false when the scope is unknown.
func scopeOf(root string, inv *invocation) (scanPlan, bool) {
	switch inv.runner {
	case RunnerGo:
		return goScope(root, inv)
	case RunnerCargo:
		return cargoScope(root, inv)
	case RunnerPytest:
		return pytestScope(root, inv)
	case RunnerJest, RunnerVitest:
		return jsScope(root, inv)
	}
	return scanPlan{}, false
}

// walker walks one scan under the limits. match reports whether a regular file is test evidence;
// ok is false when reading it hit a limit (the outcome is then unknown).
type walker struct {
	root    string
	bytes   int64
	entries int
	match   func(rel, name string, read func() ([]byte, bool)) (evidence, ok bool)
}

// errFound ends a walk early with evidence; errUnknown ends it with an unknown outcome.
var (
	errFound   = errors.New("evidence found")
	errUnknown = errors.New("scan outcome unknown")
)

// run scans the plan's directories.
func (p scanPlan) run(root string) scanOutcome {
	if p.presentIf {
		return scanOutcome{state: present}
	}
	w := &walker{root: root, match: matcherFor(p.runner)}
	for _, d := range p.dirs {
		mode, ok := statInRoot(root, d)
		if !ok || !mode.IsDir() {
			return scanOutcome{state: unknown}
		}
		switch err := w.dir(d, 0, p.recursive); err {
		case nil:
		case errFound:
			return scanOutcome{state: present}
		default:
			return scanOutcome{state: unknown}
		}
	}
	return scanOutcome{state: absent, reason: p.reason}
}

// dir scans directory rel (repository-relative) at depth below the scope root.
func (w *walker) dir(rel string, depth int, recursive bool) error {
	if depth > MaxScanDepth {
		return errUnknown
	}
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	before, err := os.Lstat(abs)
	if err != nil || !before.IsDir() {
		return errUnknown
	}
	ents, err := os.ReadDir(abs)
	if err != nil {
		return errUnknown
	}
	after, err := os.Lstat(abs)
	if err != nil || !after.IsDir() || !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		return errUnknown // the directory changed while it was listed
	}
	var subdirs []string
	for _, e := range ents {
		w.entries++
		if w.entries > MaxScanEntries {
			return errUnknown
		}
		name := e.Name()
		child := name
		if rel != "" {
			child = rel + "/" + name
		}
		t := e.Type()
		switch {
		case t&fs.ModeSymlink != 0:
			return errUnknown
		case t.IsDir():
			if recursive && !skipDirs[name] {
				subdirs = append(subdirs, child)
			}
		case t.IsRegular():
			found, ok := w.match(child, name, func() ([]byte, bool) { return w.read(child) })
			if !ok {
				return errUnknown
			}
			if found {
				return errFound
			}
		default:
			// A FIFO, socket or device in the scope: what it stands for cannot be read without
			// blocking or side effects, so the absence is not verified (lifecycle-v2.md §7).
			return errUnknown
		}
	}
	for _, s := range subdirs {
		if err := w.dir(s, depth+1, true); err != nil {
			return err
		}
	}
	return nil
}

// read reads a source file under the per-file and total limits; ok is false when a limit is hit,
// the file is not UTF-8, or it changed while read.
func (w *walker) read(rel string) ([]byte, bool) {
	data, err := fsx.ReadFile(filepath.Join(w.root, filepath.FromSlash(rel)), MaxScanSourceSize)
	if err != nil {
		return nil, false
	}
	w.bytes += int64(len(data))
	if w.bytes > MaxScanBytes || !utf8.Valid(data) {
		return nil, false
	}
	return data, true
}

// matcherFor returns the evidence test of a runner.
func matcherFor(r Runner) func(rel, name string, read func() ([]byte, bool)) (bool, bool) {
	switch r {
	case RunnerGo:
		return func(_, name string, _ func() ([]byte, bool)) (bool, bool) {
			return strings.HasSuffix(name, "_test.go"), true
		}
	case RunnerCargo:
		return func(_, name string, read func() ([]byte, bool)) (bool, bool) {
			if !strings.HasSuffix(name, ".rs") {
				return false, true
			}
			data, ok := read()
			if !ok {
				return false, false
			}
			s := string(data)
			return strings.Contains(s, "#[test]") || strings.Contains(s, "::test]") || strings.Contains(s, "#[rstest"), true
		}
	case RunnerPytest:
		return func(_, name string, _ func() ([]byte, bool)) (bool, bool) {
			return isPytestFile(name), true
		}
	}
	return func(_, name string, _ func() ([]byte, bool)) (bool, bool) {
		return strings.Contains(name, ".test.") || strings.Contains(name, ".spec."), true
	}
}

func isPytestFile(name string) bool {
	return strings.HasSuffix(name, ".py") && (strings.HasPrefix(name, "test_") || strings.HasSuffix(name, "_test.py"))
}
