package gitscope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// ToolCache is one row of the tool-cache table (gitscope.md §4.7): a directory name and the
// tool that makes it. Name is a base name (".pytest_cache") or a slash path suffix of at most
// four components ("node_modules/.cache"); it never holds a glob. NoMarker marks a built-in row
// whose tool writes neither marker: it names the tool and never leaves a directory out.
type ToolCache struct {
	Name     string
	Tool     string
	NoMarker bool
}

// BuiltinToolCaches is the table every task has; ToolCachesConfig at the baseline extends it.
// gitscope.md §4.7 says what each tool writes: a row whose tool writes neither marker is listed
// so that the table answers "why is my __pycache__ reported", and never matches by itself.
var BuiltinToolCaches = []ToolCache{
	{".pytest_cache", "pytest", false},
	{".mypy_cache", "mypy", false},
	{".ruff_cache", "ruff", false},
	{".venv", "uv venv, virtualenv, python -m venv (3.13+)", false},
	{"venv", "uv venv, virtualenv, python -m venv (3.13+)", false},
	{".tox", "tox", false},
	{".nox", "nox", false},
	{"htmlcov", "coverage.py html", false},
	{"__pycache__", "CPython bytecode", true},
	{"node_modules/.cache", "babel-loader, eslint, terser (find-cache-dir)", true},
	{".gradle", "Gradle", true},
	{"target", "cargo", false},
}

// ToolCachesConfig is the planner's extension of the table, read from the baseline commit only
// (the executor can write the work tree): a YAML mapping with one key, tool_caches, a list of
// {name, tool} mappings (docs/workflows.md).
const ToolCachesConfig = ".mastermind/tool-caches.yaml"

// maxToolCaches bounds the rows of ToolCachesConfig; maxMarkerBytes a marker file read.
const (
	maxToolCaches  = 200
	maxMarkerBytes = 64 << 10
)

// cacheDirTagSignature opens every CACHEDIR.TAG of the Cache Directory Tagging specification.
const cacheDirTagSignature = "Signature: 8a477f597d28d172789f06886806bc55"

// IgnoredDir is a directory created since the baseline that ignores itself: its own .gitignore
// ignores that .gitignore (so git status shows nothing of it), or, for a tool-cache name, it
// holds a CACHEDIR.TAG. Tool is the table row's tool when its name is a known tool cache
// (left out of the changed set), "" otherwise (one changed path, Entry.SelfIgnoring). Files
// counts the files below it, a nested repository as one.
type IgnoredDir struct {
	Dir   string
	Tool  string
	Files int
}

// ToolCacheError is a ToolCachesConfig that cannot be used: Line (1-based, 0 when unknown) and
// Field name the place, Msg what is wrong.
type ToolCacheError struct {
	Line  int
	Field string
	Msg   string
}

func (e *ToolCacheError) Error() string {
	where := ToolCachesConfig
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, e.Line)
	}
	if e.Field != "" {
		where += " " + e.Field
	}
	return fmt.Sprintf("%s (at the baseline): %s; fix it in a commit before pre-flight", where, e.Msg)
}

// ParseToolCaches parses ToolCachesConfig bytes. Each row needs a name (a directory base name or
// a slash path suffix without glob characters, "." or "..") and a tool.
func ParseToolCaches(data []byte) ([]ToolCache, error) {
	doc, issues := yamlstrict.Decode(data)
	if len(issues) > 0 {
		return nil, &ToolCacheError{Line: issues[0].Pos.Line, Msg: issues[0].Message}
	}
	line := func(ptr string) int {
		if n := doc.Nodes[ptr]; n != nil {
			return n.Pos.Line
		}
		return 0
	}
	root, _ := doc.Value.(map[string]any)
	for k := range root {
		if k != "tool_caches" {
			return nil, &ToolCacheError{Line: line("/" + k), Field: k, Msg: "unknown key; the only key is tool_caches"}
		}
	}
	list, ok := root["tool_caches"].([]any)
	if !ok {
		return nil, &ToolCacheError{Line: line("/tool_caches"), Field: "tool_caches", Msg: "expected a list of {name, tool} mappings"}
	}
	if len(list) > maxToolCaches {
		return nil, &ToolCacheError{Line: line("/tool_caches"), Field: "tool_caches", Msg: fmt.Sprintf("more than %d rows", maxToolCaches)}
	}
	var out []ToolCache
	for i, item := range list {
		ptr := fmt.Sprintf("/tool_caches/%d", i)
		m, ok := item.(map[string]any)
		if !ok {
			return nil, &ToolCacheError{Line: line(ptr), Field: fmt.Sprintf("tool_caches[%d]", i), Msg: "expected a mapping with name and tool"}
		}
		for k := range m {
			if k != "name" && k != "tool" {
				return nil, &ToolCacheError{Line: line(ptr + "/" + k), Field: fmt.Sprintf("tool_caches[%d].%s", i, k), Msg: "unknown key; a row has name and tool"}
			}
		}
		name, _ := m["name"].(string)
		tool, _ := m["tool"].(string)
		if msg := checkCacheName(name); msg != "" {
			return nil, &ToolCacheError{Line: line(ptr + "/name"), Field: fmt.Sprintf("tool_caches[%d].name", i), Msg: msg}
		}
		if strings.TrimSpace(tool) == "" || len(tool) > 200 || strings.ContainsAny(tool, "\n\r") {
			return nil, &ToolCacheError{Line: line(ptr + "/tool"), Field: fmt.Sprintf("tool_caches[%d].tool", i), Msg: "expected the name of the tool that writes the directory (one line, at most 200 bytes)"}
		}
		out = append(out, ToolCache{Name: name, Tool: tool})
	}
	return out, nil
}

func checkCacheName(name string) string {
	if name == "" {
		return "expected a directory name such as .hypothesis, or a path suffix such as node_modules/.cache"
	}
	if !utf8.ValidString(name) || strings.ContainsAny(name, "*?[]\\\x00\n\r") {
		return fmt.Sprintf("%q holds a glob or control character; write the directory's literal name", name)
	}
	parts := strings.Split(name, "/")
	if len(parts) > 4 {
		return fmt.Sprintf("%q has more than 4 components", name)
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || p == ".git" {
			return fmt.Sprintf("%q is not a relative directory name (no leading or trailing '/', '.', '..' or .git)", name)
		}
	}
	return ""
}

// toolFor returns the tool of the first row whose name is dir's base name or a suffix of dir's
// components. A NoMarker row matches and is not known: an executor's marker in such a directory
// (a CACHEDIR.TAG beside bytecode CPython loads) leaves nothing out.
func toolFor(table []ToolCache, dir string) (string, bool) {
	for _, tc := range table {
		if dir == tc.Name || strings.HasSuffix(dir, "/"+tc.Name) {
			return tc.Tool, !tc.NoMarker
		}
	}
	return "", false
}

// toolCacheScan classifies the untracked entries of one changed-set run (gitscope.md §4.7).
// isBaselineDir reports whether a directory exists in the baseline tree; config returns the
// planner's rows (read lazily: most runs have no candidate).
type toolCacheScan struct {
	root          string
	isBaselineDir func(dir string) (bool, error)
	config        func() ([]ToolCache, error)
}

// apply returns entries (sorted, as mergeEntries leaves them) without the files of each tool
// cache created since the baseline, and with each other self-ignoring directory created since
// the baseline as one entry (SelfIgnoring). A directory holding a path that is not untracked
// (staged, committed: added, modified) is left as it is.
func (s toolCacheScan) apply(entries []Entry) ([]Entry, []IgnoredDir, []IgnoredDir, error) {
	cands := map[string]bool{}
	for _, e := range entries {
		if e.Status != StatusUntracked || !e.UTF8 {
			continue
		}
		dir, base := path.Split(string(e.Path))
		if dir != "" && (base == ".gitignore" || base == "CACHEDIR.TAG") {
			cands[strings.TrimSuffix(dir, "/")] = true
		}
	}
	if len(cands) == 0 {
		return entries, nil, nil, nil
	}
	dirs := make([]string, 0, len(cands))
	for d := range cands {
		dirs = append(dirs, d)
	}
	// Parents sort before their children ("a" < "a/b"; '/' sorts before every name byte but a
	// few punctuation marks, so the check below compares by prefix, not by neighbours).
	slices.Sort(dirs)
	var table []ToolCache
	var tableErr error
	tableLoaded := false
	var caches, hiding []IgnoredDir
	var taken []string
	// shown are the own .gitignore rules of each left-out cache that ignores itself: a file they
	// do not ignore ("*" then "!evil.py") is one git status shows, and stays in C.
	shown := map[string]gitignore.Matcher{}
	for _, d := range dirs {
		if underAny(taken, d) {
			continue
		}
		ignores, m, tagged, err := s.markers(d)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ignores && !tagged {
			continue
		}
		if base, err := s.isBaselineDir(d); err != nil {
			return nil, nil, nil, err
		} else if base {
			continue
		}
		if !onlyUntracked(entries, d) {
			continue
		}
		tool, known := toolFor(BuiltinToolCaches, d)
		if !known {
			if !tableLoaded {
				table, tableErr, tableLoaded = nil, nil, true
				if s.config != nil {
					table, tableErr = s.config()
				}
			}
			if tableErr != nil {
				return nil, nil, nil, tableErr
			}
			tool, known = toolFor(table, d)
		}
		if ignores && m == nil {
			known = false // a .gitignore too large to read leaves nothing out
		}
		if !known && !ignores {
			continue // a CACHEDIR.TAG hides nothing from git; only a known cache is left out by it
		}
		n, err := countFiles(filepath.Join(s.root, filepath.FromSlash(d)))
		if err != nil {
			return nil, nil, nil, err
		}
		taken = append(taken, d)
		if known {
			if ignores {
				shown[d] = m
			}
			caches = append(caches, IgnoredDir{Dir: d, Tool: tool, Files: n})
		} else {
			hiding = append(hiding, IgnoredDir{Dir: d, Files: n})
		}
	}
	if len(taken) == 0 {
		return entries, nil, nil, nil
	}
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		if d, ok := underWhich(taken, string(e.Path)); ok {
			if m := shown[d]; m == nil || ownRulesIgnore(m, d, string(e.Path)) {
				continue
			}
		}
		out = append(out, e)
	}
	var dirEntries []Entry
	for _, h := range hiding {
		dirEntries = append(dirEntries, Entry{Path: []byte(h.Dir), Status: StatusUntracked, UTF8: utf8.ValidString(h.Dir), SelfIgnoring: true})
	}
	return mergeEntries(out, dirEntries), caches, hiding, nil
}

// markers reads dir's own markers: whether its .gitignore (a regular file) ignores that
// .gitignore, with its rules as m, and whether it holds a CACHEDIR.TAG that opens with the
// specification's signature. Neither is read through a symbolic link.
func (s toolCacheScan) markers(dir string) (ignores bool, m gitignore.Matcher, tagged bool, err error) {
	if fi, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(dir))); err != nil || !fi.IsDir() {
		return false, nil, false, nil
	}
	read := func(name string) []byte {
		b, err := fsx.ReadInRoot(s.root, dir+"/"+name, maxMarkerBytes)
		if err != nil {
			return nil
		}
		return b
	}
	// The .gitignore is read up to the ignore-file limit (git reads far larger ones); one larger
	// still is taken as ignoring itself, with no rules (m nil): never a known cache.
	if b, err := fsx.ReadInRoot(s.root, dir+"/.gitignore", maxIgnoreFileBytes); fsx.ReasonOf(err) == fsx.ReasonTooLarge {
		ignores = true
	} else if err == nil {
		domain := strings.Split(dir, "/")
		m = gitignore.NewMatcher(parseIgnoreData(b, domain))
		ignores = m.Match(append(slices.Clone(domain), ".gitignore"), false)
	}
	if b := read("CACHEDIR.TAG"); b != nil {
		tagged = bytes.HasPrefix(b, []byte(cacheDirTagSignature))
	}
	return ignores, m, tagged, nil
}

// ownRulesIgnore reports whether dir's own rules m ignore p, a path below dir, as git applies
// them: p or a directory between dir and p matches (git never looks inside an ignored directory).
func ownRulesIgnore(m gitignore.Matcher, dir, p string) bool {
	parts := strings.Split(p, "/")
	for i := strings.Count(dir, "/") + 2; i <= len(parts); i++ {
		if m.Match(parts[:i], i < len(parts)) {
			return true
		}
	}
	return false
}

// onlyUntracked reports whether every entry below dir is untracked (none staged, committed or
// modified: such a directory is the task's content, not a cache).
func onlyUntracked(entries []Entry, dir string) bool {
	prefix := []byte(dir + "/")
	i, _ := slices.BinarySearchFunc(entries, prefix, func(e Entry, p []byte) int { return bytes.Compare(e.Path, p) })
	for ; i < len(entries) && bytes.HasPrefix(entries[i].Path, prefix); i++ {
		if entries[i].Status != StatusUntracked {
			return false
		}
	}
	return true
}

func underAny(dirs []string, p string) bool {
	_, ok := underWhich(dirs, p)
	return ok
}

// underWhich returns the directory of dirs that is p or an ancestor of p.
func underWhich(dirs []string, p string) (string, bool) {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return d, true
		}
	}
	return "", false
}

// countFiles counts the non-directory entries below dir, never following a symbolic link; a
// nested repository (a directory holding .git) counts as one.
func countFiles(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			if p != dir {
				if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
					n++
					return filepath.SkipDir
				}
			}
			return nil
		}
		n++
		return nil
	})
	return n, err
}

// baselineToolCaches reads ToolCachesConfig from baseline: none when absent.
func (r *Repo) baselineToolCaches(ctx context.Context, baseline string) ([]ToolCache, error) {
	b, ok, err := r.BaselineBlob(ctx, baseline, ToolCachesConfig)
	if err != nil || !ok {
		return nil, err
	}
	return ParseToolCaches(b)
}

// CheckToolCaches validates ToolCachesConfig at baseline (pre-flight refuses a broken one rather
// than every post-flight failing on it); nil when it is absent or valid.
func (r *Repo) CheckToolCaches(ctx context.Context, baseline string) error {
	_, err := r.baselineToolCaches(ctx, baseline)
	return err
}

// snapshotToolCaches is the tool-cache scan of a snapshot run: baseline directories from the
// snapshot, the table extension from the baseline, read through objs (verified as read).
func (r *Repo) snapshotToolCaches(ctx context.Context, s *inputsSnapshot, objs *auditObjects) toolCacheScan {
	return toolCacheScan{root: r.root,
		isBaselineDir: func(d string) (bool, error) { return s.hasDir(d), nil },
		config: func() ([]ToolCache, error) {
			b, ok, err := objs.baselineBlob(ctx, s.Baseline, ToolCachesConfig)
			if err != nil || !ok {
				return nil, err
			}
			return ParseToolCaches(b)
		}}
}

// liveToolCaches is the tool-cache scan of a run without a snapshot: baseline directories looked
// up in the baseline tree, the table extension from the baseline.
func (r *Repo) liveToolCaches(ctx context.Context, baseline string) toolCacheScan {
	return toolCacheScan{root: r.root,
		isBaselineDir: func(d string) (bool, error) {
			t, err := r.BaselineEntries(ctx, baseline, []string{d})
			return t[d] == EntryTree, err
		},
		config: func() ([]ToolCache, error) { return r.baselineToolCaches(ctx, baseline) }}
}

// degradedToolCaches is the tool-cache scan of the built-in reader, which holds go-git's lock:
// the baseline's directories and ToolCachesConfig come from its flattened tree base.
func degradedToolCaches(root string, gg *git.Repository, base map[string]leaf, s *inputsSnapshot) toolCacheScan {
	return toolCacheScan{root: root,
		isBaselineDir: func(d string) (bool, error) {
			if s != nil {
				return s.hasDir(d), nil
			}
			for p := range base {
				if strings.HasPrefix(p, d+"/") {
					return true, nil
				}
			}
			return false, nil
		},
		config: func() ([]ToolCache, error) {
			l, ok := base[ToolCachesConfig]
			if !ok || !l.mode.IsFile() {
				return nil, nil
			}
			b, err := goGitBlob(gg, l.hash.String(), maxInputFileBytes)
			if err != nil {
				return nil, err
			}
			return ParseToolCaches(b)
		}}
}
