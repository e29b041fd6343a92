package gitscope

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

const cacheTag = cacheDirTagSignature + "\n# This file is a cache directory tag.\n"

// toolCacheCases: each builds a baseline and a work tree, and names the changed set both runs
// (live and snapshot) must give, the tool caches left out and the self-ignoring directories.
var toolCacheCases = []struct {
	name    string
	base    map[string]string
	work    map[string]string
	staged  []string // written and staged before pre-flight
	want    []string
	caches  []string // "dir tool files"
	hiding  []string // "dir files"
	noAgree bool     // the live run differs on purpose (see the case)
}{
	{name: "pytest cache left out",
		work: map[string]string{".pytest_cache/.gitignore": "# Created by pytest automatically.\n*\n", ".pytest_cache/CACHEDIR.TAG": cacheTag,
			".pytest_cache/README.md": "x\n", ".pytest_cache/v/cache/nodeids": "[]\n", "src/b.go": "package b\n"},
		want: []string{"? src/b.go"}, caches: []string{".pytest_cache pytest 4"}},
	{name: "nested cache under a new directory",
		work: map[string]string{"pkg/x.py": "x\n", "pkg/.mypy_cache/.gitignore": "*\n", "pkg/.mypy_cache/3.11/x.json": "{}\n"},
		want: []string{"? pkg/x.py"}, caches: []string{"pkg/.mypy_cache mypy 2"}},
	{name: "cargo target with CACHEDIR.TAG only",
		work: map[string]string{"target/CACHEDIR.TAG": cacheTag, "target/debug/app": "bin\n", "target/.rustc_info.json": "{}\n"},
		want: nil, caches: []string{"target cargo 3"}},
	{name: "a CACHEDIR.TAG under another name hides nothing",
		work: map[string]string{"out/CACHEDIR.TAG": cacheTag, "out/x.go": "package x\n"},
		want: []string{"? out/CACHEDIR.TAG", "? out/x.go"}},
	{name: "self-ignoring directory is one entry",
		work: map[string]string{"evil/.gitignore": "*\n", "evil/x.go": "package evil\n", "evil/sub/y.go": "package sub\n"},
		want: []string{"? evil self-ignoring"}, hiding: []string{"evil 3"}},
	{name: "a .gitignore that shows itself is no self-ignore",
		work: map[string]string{"gen/.gitignore": "*.go\n", "gen/x.go": "package gen\n"},
		want: []string{"? gen/.gitignore", "? gen/x.go"}, noAgree: true /* the live run hides gen/x.go, as git status does */},
	{name: "a cache name in a baseline directory is not created since the baseline",
		base: map[string]string{"a": "a\n", ".venv/keep": "k\n"},
		work: map[string]string{".venv/.gitignore": "*\n", ".venv/pyvenv.cfg": "home = /usr\n"},
		want: []string{"? .venv/.gitignore", "? .venv/pyvenv.cfg"}, noAgree: true /* git status hides both */},
	{name: "a file staged before pre-flight keeps the directory",
		work:   map[string]string{".ruff_cache/.gitignore": "*\n", ".ruff_cache/0.1/x": "x\n", ".ruff_cache/staged": "s\n"},
		staged: []string{".ruff_cache/staged"},
		want:   []string{"? .ruff_cache/.gitignore", "? .ruff_cache/0.1/x", "A .ruff_cache/staged"}, noAgree: true},
	{name: "planner's table at the baseline",
		base: map[string]string{"a": "a\n", ".mastermind/tool-caches.yaml": "tool_caches:\n  - name: .hypothesis\n    tool: Hypothesis\n"},
		work: map[string]string{".hypothesis/.gitignore": "*\n", ".hypothesis/examples/x": "x\n"},
		want: nil, caches: []string{".hypothesis Hypothesis 2"}},
	{name: "the table in the work tree only does not count",
		work: map[string]string{".mastermind/tool-caches.yaml": "tool_caches:\n  - name: .hypothesis\n    tool: Hypothesis\n",
			".hypothesis/.gitignore": "*\n", ".hypothesis/examples/x": "x\n"},
		want: []string{"? .hypothesis self-ignoring", "? .mastermind/tool-caches.yaml"}, hiding: []string{".hypothesis 2"}},
	{name: "the outermost directory decides",
		work: map[string]string{".tox/.gitignore": "*\n", ".tox/py/.gitignore": "*\n", ".tox/py/lib/site.py": "x\n"},
		want: nil, caches: []string{".tox tox 3"}},
}

func renderCS(cs *ChangedSet) (entries, caches, hiding []string) {
	for _, e := range cs.Entries {
		s := strings.Join(render([]Entry{e}), "")
		if e.SelfIgnoring {
			s += " self-ignoring"
		}
		entries = append(entries, s)
	}
	for _, c := range cs.ToolCaches {
		caches = append(caches, fmt.Sprintf("%s %s %d", c.Dir, c.Tool, c.Files))
	}
	for _, h := range cs.SelfIgnoring {
		hiding = append(hiding, fmt.Sprintf("%s %d", h.Dir, h.Files))
	}
	return
}

func TestToolCaches(t *testing.T) {
	for _, tc := range toolCacheCases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			base := tc.base
			if base == nil {
				base = map[string]string{"a": "a\n", "src/a.go": "package a\n"}
			}
			baseline := f.base(base)
			r, err := OpenWith(f.dir, Options{})
			must(t, err)
			st, err := r.GitDirStore("task")
			must(t, err)
			ctx := context.Background()
			for _, p := range tc.staged {
				f.write(p, tc.work[p])
				f.git("add", "-f", p)
			}
			must(t, r.TakeSnapshot(ctx, baseline, st))
			for p, c := range tc.work {
				f.write(p, c)
			}
			snap, err := r.ChangedSetSince(ctx, baseline, st)
			must(t, err)
			got, caches, hiding := renderCS(snap)
			filtered := slices.DeleteFunc(got, func(s string) bool { return strings.Contains(s, ".git/mastermind") })
			if !slices.Equal(filtered, tc.want) || !slices.Equal(caches, tc.caches) || !slices.Equal(hiding, tc.hiding) {
				t.Errorf("snapshot run: entries %q caches %q hiding %q\nwant %q %q %q", filtered, caches, hiding, tc.want, tc.caches, tc.hiding)
			}
			live, err := r.ChangedSet(ctx, baseline)
			must(t, err)
			lg, lc, lh := renderCS(live)
			if !tc.noAgree && (!slices.Equal(lg, filtered) || !slices.Equal(lc, caches) || !slices.Equal(lh, hiding)) {
				t.Errorf("live run (changes --since) disagrees: entries %q caches %q hiding %q", lg, lc, lh)
			}
		})
	}
}

func TestParseToolCaches(t *testing.T) {
	good := "# extra caches\ntool_caches:\n  - name: .hypothesis\n    tool: Hypothesis\n  - name: build/.cache\n    tool: my generator\n"
	got, err := ParseToolCaches([]byte(good))
	must(t, err)
	if want := []ToolCache{{".hypothesis", "Hypothesis", false}, {"build/.cache", "my generator", false}}; !slices.Equal(got, want) {
		t.Errorf("got %v", got)
	}
	for _, bad := range []struct{ src, want string }{
		{"tool_caches:\n  - name: '*.cache'\n    tool: x\n", ".mastermind/tool-caches.yaml:2 tool_caches[0].name (at the baseline): \"*.cache\" holds a glob"},
		{"tool_caches:\n  - name: ../x\n    tool: x\n", "tool_caches[0].name (at the baseline): \"../x\" is not a relative directory name"},
		{"tool_caches:\n  - name: .x\n", "tool_caches[0].tool (at the baseline): expected the name of the tool"},
		{"caches: []\n", ".mastermind/tool-caches.yaml:1 caches (at the baseline): unknown key; the only key is tool_caches"},
		{"tool_caches:\n  - name: .x\n    tool: x\n    glob: y\n", ":4 tool_caches[0].glob (at the baseline): unknown key"},
		{"tool_caches: [\n", ".mastermind/tool-caches.yaml:"},
	} {
		_, err := ParseToolCaches([]byte(bad.src))
		if err == nil || !strings.Contains(err.Error(), bad.want) || !strings.HasSuffix(err.Error(), "fix it in a commit before pre-flight") {
			t.Errorf("%q: error %v, want it to contain %q", bad.src, err, bad.want)
		}
	}
}
