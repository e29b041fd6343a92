package gitscope

import (
	"slices"
	"strings"
	"testing"
)

// attack4Shape is a new directory with its own .gitignore; each plants <dir>/evil.go.
type attack4Shape struct{ name, dir, gitignore string }

// traceShapes hide evil.go from git with rules that, by go-git's matcher, do not ignore the
// .gitignore itself (hardening.md L8, L9): a live run honours them as git status does and lists
// the .gitignore, the trace; post-flight's snapshot run lists every file.
var traceShapes = []attack4Shape{
	{"negated own gitignore", "neg", "*\n!.gitignore\n"},
	{"only code", "code", "*.go\n"},
	{"named file", "named", "evil.go\n"},
	{"ignored subdirectory", "par", "q/\n"}, // plants par/q/evil.go
	// patterns git reads and go-git's matcher does not
	{"bang bracket", "bang", "[!x]*\n"},
	{"anchored double star", "dstar", "/**\n"},
	{"character class", "class", "[[:graph:]]*\n"},
	{"odd name", ":(glob)o", "[!x]*\n"},
}

// markerShapes ignore everything, the .gitignore too, in forms the tool-cache scan once misread
// (hardening.md L7): a UTF-8 byte order mark (git skips it), a trailing space, a .gitignore over
// the 64 KiB marker limit.
var markerShapes = []attack4Shape{
	{"utf-8 bom", "bom", "\xef\xbb\xbf*\n"},
	{"trailing space", "sp", "* \n"},
	{"over the marker limit", "big", "#" + strings.Repeat("x", 70<<10) + "\n*\n"},
}

func plantAttack4(f *fixture, shapes []attack4Shape) (evil []string) {
	for _, s := range shapes {
		f.write(s.dir+"/.gitignore", s.gitignore)
		p := s.dir + "/evil.go"
		if s.dir == "par" {
			p = "par/q/evil.go"
			f.write("par/q/.gitignore", "*\n")
		}
		f.write(p, "package evil\n")
		evil = append(evil, p)
	}
	return evil
}

// visibleIn reports whether p shows in cs: as its own entry or through a directory entry above.
func visibleIn(cs *ChangedSet, p string) bool {
	return slices.ContainsFunc(cs.Entries, func(e Entry) bool {
		q := string(e.Path)
		return q == p || strings.HasPrefix(p, q+"/")
	})
}

// plantedRuns snapshots a new repository at its baseline, plants shapes, and returns the planted
// files with the live, snapshot and degraded live changed sets.
func plantedRuns(t *testing.T, shapes []attack4Shape) (evil []string, live, snap, dg *ChangedSet) {
	t.Helper()
	f := newFixture(t)
	baseline := f.base(map[string]string{"keep": "k\n", "d0/a.go": "a\n"})
	st := takeSnapshot(t, f, f.dir, baseline, Options{})
	evil = plantAttack4(f, shapes)
	live, err := changed(t, f.dir, baseline, Options{})
	must(t, err)
	snap, err = since(t, f.dir, baseline, st, Options{})
	must(t, err)
	dg, err = changed(t, f.dir, baseline, noGit)
	must(t, err)
	return evil, live, snap, dg
}

// TestLiveNewDirOwnRulesLeaveTrace: a directory created since the baseline whose own .gitignore
// hides its other files without ignoring itself hides them from the live changed set, git and
// built-in, as from git status, and its .gitignore is listed there; post-flight lists them all.
func TestLiveNewDirOwnRulesLeaveTrace(t *testing.T) {
	evil, live, snap, dg := plantedRuns(t, traceShapes)
	for i, p := range evil {
		if !visibleIn(snap, p) {
			t.Errorf("the snapshot run hides %q", p)
		}
		trace := traceShapes[i].dir + "/.gitignore"
		for _, run := range []struct {
			name string
			cs   *ChangedSet
		}{{"live", live}, {"degraded live", dg}} {
			if !visibleIn(run.cs, trace) && !visibleIn(run.cs, p) {
				got, _, _ := renderCS(run.cs)
				t.Errorf("%s run shows neither %q nor its trace %q: %q", run.name, p, trace, got)
			}
		}
	}
}

// TestLiveSelfIgnoringMarkerLimits: a self-ignoring .gitignore with a byte order mark, or over
// the marker read limit, is still found self-ignoring in every run.
func TestLiveSelfIgnoringMarkerLimits(t *testing.T) {
	evil, live, snap, dg := plantedRuns(t, markerShapes)
	for _, p := range evil {
		for _, run := range []struct {
			name string
			cs   *ChangedSet
		}{{"live", live}, {"snapshot", snap}, {"degraded live", dg}} {
			if !visibleIn(run.cs, p) {
				got, _, _ := renderCS(run.cs)
				t.Errorf("%s run hides %q: %q", run.name, p, got)
			}
		}
	}
	le, _, _ := renderCS(live)
	se, _, _ := renderCS(snap)
	se = slices.DeleteFunc(se, func(s string) bool { return strings.Contains(s, ".git/mastermind") })
	equalLines(t, "entries (live, snapshot)", le, se)
}

// TestOwnRulesOnlyMakeSelfIgnoring: a rule outside a directory that ignores its .gitignore
// (info/exclude `**/.gitignore`, written by the executor) does not make it self-ignoring: a
// known tool-cache name with a .gitignore that ignores nothing leaves nothing out.
func TestOwnRulesOnlyMakeSelfIgnoring(t *testing.T) {
	f := newFixture(t)
	baseline := f.base(map[string]string{"keep": "k\n"})
	f.write(".git/info/exclude", "**/.gitignore\n")
	f.write(".venv/.gitignore", "nothing\n")
	f.write(".venv/evil.py", "e\n")
	cs, err := changed(t, f.dir, baseline, Options{})
	must(t, err)
	got, caches, _ := renderCS(cs)
	equalLines(t, "entries", got, []string{"? .venv/.gitignore", "? .venv/evil.py"})
	equalLines(t, "tool caches", caches, nil)
}
