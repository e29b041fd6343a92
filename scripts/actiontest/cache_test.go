package actiontest

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/testenv"
)

// localCache stands in for the actions/cache service: entries are directories under dir named
// by their key, and restore and save follow actions/cache/restore and actions/cache/save (exact
// key, else the newest entry whose key starts with a restore key; an existing key is never
// overwritten).
type localCache struct {
	dir string
}

func (c *localCache) run(r *runner, s step) {
	r.t.Helper()
	var paths []string
	for _, p := range strings.Split(r.eval(s.With["path"]), "\n") {
		if p = strings.TrimSpace(p); p != "" {
			paths = append(paths, p)
		}
	}
	key := r.eval(s.With["key"])
	if key == "" || len(paths) == 0 {
		r.t.Fatalf("step %q: key %q, paths %v", s.Name, key, paths)
	}
	entry := func(k string, i int) string { return filepath.Join(c.dir, k, strings.Repeat("p", i+1)) }
	switch {
	case strings.HasPrefix(s.Uses, "actions/cache/restore@"):
		out := map[string]string{"cache-hit": "false", "cache-primary-key": key}
		matched := ""
		if _, err := os.Stat(filepath.Join(c.dir, key)); err == nil {
			matched = key
		} else if prefix := r.eval(s.With["restore-keys"]); prefix != "" {
			matched = c.newest(r.t, prefix)
		}
		if matched != "" {
			for i, p := range paths {
				if err := os.CopyFS(p, os.DirFS(entry(matched, i))); err != nil {
					r.t.Fatalf("restore %s into %s: %v", matched, p, err)
				}
			}
			out["cache-matched-key"] = matched
			out["cache-hit"] = map[bool]string{true: "true", false: "false"}[matched == key]
		}
		r.t.Logf("step %q: key %s, restored %q", s.Name, key, matched)
		r.outputs[s.ID] = out
	case strings.HasPrefix(s.Uses, "actions/cache/save@"):
		if _, err := os.Stat(filepath.Join(c.dir, key)); err == nil {
			r.t.Logf("step %q: key %s exists, not saved", s.Name, key)
			return
		}
		for i, p := range paths {
			if err := os.CopyFS(entry(key, i), os.DirFS(p)); err != nil {
				r.t.Fatalf("save %s into the cache: %v", p, err)
			}
		}
		r.t.Logf("step %q: saved %s", s.Name, key)
	default:
		r.t.Fatalf("step %q: %s is not an actions/cache step", s.Name, s.Uses)
	}
}

func (c *localCache) newest(t *testing.T, prefix string) string {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	type keyed struct {
		key string
		mod time.Time
	}
	var found []keyed
	for _, e := range entries {
		if info, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), prefix) {
			found = append(found, keyed{e.Name(), info.ModTime()})
		}
	}
	if len(found) == 0 {
		return ""
	}
	sort.Slice(found, func(i, j int) bool { return found[i].mod.After(found[j].mod) })
	return found[0].key
}

// compileRe matches a Go compile in `go build -x` output.
var compileRe = regexp.MustCompile(`(?m)/compile .* -p (\S+)`)

// grammarCompiles matches the C compiles of the tree-sitter grammars in `go build -x` output
// (`TERM='dumb' gcc -I …/tree-sitter-python@…`), with the C compiler the go command uses.
func grammarCompiles(t *testing.T, env []string) *regexp.Regexp {
	cc := strings.Fields(goEnv(t, env, "CC"))
	if len(cc) == 0 {
		t.Fatal("go env CC is empty")
	}
	return regexp.MustCompile(`(?m)^(?:\S+=\S+ )*` + regexp.QuoteMeta(cc[0]) + `\s.*tree-sitter`)
}

// TestActionBuildCacheColdAndWarm runs the action's steps up to the gate on two fresh runners
// (empty Go caches at the same paths) that share one actions/cache store: the first has empty Go caches and compiles everything,
// the tree-sitter grammars included, and saves the cache; the second restores it by the exact
// key, compiles nothing and saves nothing. Its log gives both build times. Slow: a complete
// build from an empty cache.
func TestActionBuildCacheColdAndWarm(t *testing.T) {
	testenv.Full(t, "builds mastermind from an empty Go build cache")
	act, repoRoot := loadAction(t)
	hostModCache := goEnv(t, os.Environ(), "GOMODCACHE")
	store := &localCache{dir: t.TempDir()}
	workspace := t.TempDir()

	// Both runners have their Go caches at the same place, as a GitHub-hosted runner's home is
	// always /home/runner: a plain go build's cache entries name the module cache's path.
	runnerHome := filepath.Join(t.TempDir(), "runner")
	builds := map[string]time.Duration{}
	for _, name := range []string{"cold", "warm"} {
		if err := os.RemoveAll(runnerHome); err != nil {
			t.Fatal(err)
		}
		// A fresh runner's empty Go caches; modules come from the host's module cache as a
		// proxy (no network), and -x lists what the build step compiles.
		env := append(os.Environ(), "GOCACHE="+filepath.Join(runnerHome, "go-build"), "GOMODCACHE="+filepath.Join(runnerHome, "mod"),
			"GOPROXY=file://"+filepath.ToSlash(filepath.Join(hostModCache, "cache", "download")), "GOSUMDB=off",
			"GOFLAGS=-modcacherw -x")
		r := &runner{t: t, act: act, inputs: map[string]string{}, temp: t.TempDir(), outputs: map[string]map[string]string{},
			github: map[string]string{"action_path": repoRoot}, env: env, cache: store}
		start := time.Now()
		r.setup(workspace)
		builds[name] = time.Since(start)
		checkCacheKey(t, r, repoRoot)
		compiled := compileRe.FindAllStringSubmatch(r.stderr["build"], -1)
		grammars := grammarCompiles(t, env).FindAllString(r.stderr["build"], -1)
		hit := r.outputs["go-cache-restore"]["cache-hit"]
		t.Logf("%s runner: cache hit %s, steps before the gate took %s, the build compiled %d packages and ran the C compiler %d times on the grammars",
			name, hit, builds[name].Round(time.Second), len(compiled), len(grammars))
		switch name {
		case "cold":
			if hit != "false" || len(grammars) == 0 {
				t.Errorf("cold runner: cache hit %q, %d grammar compiles; want a miss that compiles the grammars", hit, len(grammars))
			}
			if _, err := os.Stat(filepath.Join(store.dir, r.outputs["go-cache"]["key"])); err != nil {
				t.Errorf("cold runner saved no cache under its key: %v", err)
			}
		case "warm":
			if hit != "true" || len(compiled) != 0 || len(grammars) != 0 {
				t.Errorf("warm runner: cache hit %q, compiled %v; want an exact hit that compiles nothing", hit, compiled)
			}
		}
		if _, err := os.Stat(filepath.Join(r.temp, "mastermind-bin", "mastermind")); err != nil {
			t.Errorf("%s runner: the build step left no binary: %v", name, err)
		}
	}
}
