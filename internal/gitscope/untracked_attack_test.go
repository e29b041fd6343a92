package gitscope

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// checkPlantedVisible runs the live changed set and checks that every self-ignoring directory
// the case planted shows: as its own entry, or through an entry below or above it. A directory
// another rule ignores (named in ignored) is hidden from every run. Nothing may be written.
func checkPlantedVisible(t *testing.T, f *fixture, baseline string, ignored []string) *ChangedSet {
	t.Helper()
	r, err := OpenWith(f.dir, Options{})
	must(t, err)
	before := withoutObjectTimes(withoutSharedIndex(snapshotTree(t, f.dir)))
	cs, err := r.ChangedSet(context.Background(), baseline)
	must(t, err)
	equalLines(t, "files after the live run (nothing written)", withoutObjectTimes(withoutSharedIndex(snapshotTree(t, f.dir))), before)
	for _, d := range f.planted {
		if slices.Contains(ignored, d) {
			continue
		}
		if !slices.ContainsFunc(cs.Entries, func(e Entry) bool {
			p := string(e.Path)
			return p == d || strings.HasPrefix(p, d+"/") || strings.HasPrefix(d, p+"/")
		}) {
			got, _, _ := renderCS(cs)
			t.Errorf("self-ignoring directory %q is hidden from the live changed set %q", d, got)
		}
	}
	return cs
}

// withoutObjectTimes drops the modification time of object files: git freshens (touches) the
// tree objects of a sparse index it expands, as every git command does (hardening.md L4).
// A new object or any other write still shows.
func withoutObjectTimes(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if strings.Contains(l, "/.git/objects/") {
			l = objectTime.ReplaceAllString(l, " ")
		}
		out[i] = l
	}
	return out
}

var objectTime = regexp.MustCompile(` \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? [+-]\d{4} \S+ `)

func selfIgnoring(f *fixture, d string) {
	f.planted = append(f.planted, d)
	f.write(d+"/.gitignore", "*\n")
	f.write(d+"/evil.go", "e\n")
}

var attackCases = []struct {
	name    string
	base    map[string]string
	ignored []string // planted directories that a rule other than their own ignores
	setup   func(t *testing.T, f *fixture)
}{
	{name: "odd names", setup: func(t *testing.T, f *fixture) {
		for _, n := range []string{"a b", "tab\tx", "nl\nx", "-lead", ":(glob)x", "*", "?", "[ab]", "a", "back\\s", "K x", "? y", "x ", " x", "--", "-", ":", ":!a", "\\"} {
			selfIgnoring(f, n)
			f.write(n+"/vis/v.go", "v\n")
			selfIgnoring(f, "d0/"+n)
		}
	}},
	{name: "non-utf8 self-ignoring", setup: func(t *testing.T, f *fixture) {
		selfIgnoring(f, "\xff")
		selfIgnoring(f, "d0/\xfe")
	}},
	{name: "very long names", setup: func(t *testing.T, f *fixture) {
		long := strings.Repeat("L", 250)
		p := long + "/" + long + "/" + long
		selfIgnoring(f, p)
		selfIgnoring(f, "d0/"+long)
	}},
	{name: "killed nested self-ignoring", setup: func(t *testing.T, f *fixture) {
		f.remove("d0/f0.go")
		f.write("d0/f0.go/vis.go", "v\n")
		selfIgnoring(f, "d0/f0.go/deep/evil")
		f.remove("top")
		selfIgnoring(f, "top/x")
		must(t, os.MkdirAll(f.path("d0/f0.go/empty/e2"), 0o755))
	}},
	{name: "killed empty and ignored-only", setup: func(t *testing.T, f *fixture) {
		f.remove("top")
		must(t, os.MkdirAll(f.path("top/e"), 0o755))
		f.remove("d0/f0.go")
		f.write("d0/f0.go/x.log", "l\n")
	}},
	{name: "killed ignored tracked file", ignored: []string{"t.log", "esc "}, base: map[string]string{".gitignore": "*.log\nesc\\ \n", "keep": "k\n"}, setup: func(t *testing.T, f *fixture) {
		for _, p := range []string{"t.log", "esc "} {
			f.write(p, "x\n")
			f.git("add", "-f", p)
			f.git("commit", "-q", "-m", p)
			f.remove(p)
			selfIgnoring(f, p)
		}
	}},
	{name: "intent to add replaced by dir", setup: func(t *testing.T, f *fixture) {
		f.write("ita", "i\n")
		f.git("add", "-N", "ita")
		f.remove("ita")
		selfIgnoring(f, "ita")
		f.write("d1/ita2", "i\n")
		f.git("add", "-N", "d1/ita2")
		f.remove("d1/ita2")
		selfIgnoring(f, "d1/ita2/x")
		f.write("d1/ita2/v.go", "v\n")
	}},
	{name: "skip-worktree and assume-unchanged replaced", setup: func(t *testing.T, f *fixture) {
		f.git("update-index", "--skip-worktree", "d0/f0.go")
		f.git("update-index", "--assume-unchanged", "d0/f1.go")
		f.remove("d0/f0.go")
		f.remove("d0/f1.go")
		selfIgnoring(f, "d0/f0.go")
		selfIgnoring(f, "d0/f1.go")
	}},
	{name: "split index v4", setup: func(t *testing.T, f *fixture) {
		f.git("update-index", "--index-version", "4")
		f.git("update-index", "--split-index")
		f.remove("d0/f0.go")
		selfIgnoring(f, "d0/f0.go")
		selfIgnoring(f, "newd/in")
		f.write("newd/v.go", "v\n")
	}},
	{name: "gitlink replaced by dir", setup: func(t *testing.T, f *fixture) {
		oid := strings.TrimSpace(f.git("rev-parse", "HEAD"))
		f.git("update-index", "--add", "--cacheinfo", "160000,"+oid+",sub")
		f.git("commit", "-q", "-m", "sub")
		must(t, os.MkdirAll(f.path("sub"), 0o755))
		selfIgnoring(f, "sub")
		f.write("sub/vis.go", "v\n")
	}},
	{name: "ignore rules", ignored: []string{"build/x", "src/gen/x", "exc/y", "outy", "a/b/c"}, base: map[string]string{".gitignore": "/build\n**/gen/\n!keep/\nout*\n!outx\n", "keep": "k\n", "src/a.go": "a\n"}, setup: func(t *testing.T, f *fixture) {
		f.write(".git/info/exclude", "exc/\n")
		selfIgnoring(f, "build/x")
		selfIgnoring(f, "src/gen/x")
		selfIgnoring(f, "exc/y")
		selfIgnoring(f, "outx")
		selfIgnoring(f, "outy")
		selfIgnoring(f, "src/keep")
		f.write("a/.gitignore", "b/\n")
		selfIgnoring(f, "a/b/c")
		f.write("a/v.go", "v\n")
		f.write("neg/.gitignore", "*\n!.gitignore\n")
		f.write("neg/e.go", "e\n")
		f.write("neg2/.gitignore", "*\n!*/\n")
		f.write("neg2/s/e.go", "e\n")
	}},
	{name: "nested self-ignoring", setup: func(t *testing.T, f *fixture) {
		selfIgnoring(f, "n1")
		selfIgnoring(f, "n1/n2")
		f.write("u/v.go", "v\n")
		selfIgnoring(f, "u/s1")
		selfIgnoring(f, "u/w/s2")
		f.write("d0/s/new/v.go", "v\n")
		selfIgnoring(f, "d0/s/new/s3")
		must(t, os.MkdirAll(f.path("emp/a/b/c"), 0o755))
	}},
	{name: "symlinks", setup: func(t *testing.T, f *fixture) {
		f.write("real/.gitignore", "*\n")
		f.write("real/evil.go", "e\n")
		f.write("sl/evil.go", "e\n")
		f.symlink("../real/.gitignore", "sl/.gitignore")
		f.symlink("real", "lnk")
		f.symlink("d0", "dlnk")
		f.remove("d1/s")
		f.symlink("../real", "d1/s")
	}},
	{name: "nested repositories", setup: func(t *testing.T, f *fixture) {
		f.write("nr/a.go", "a\n")
		f.gitIn(f.path("nr"), "init", "-q")
		f.write("u/nr2/a.go", "a\n")
		f.gitIn(f.path("u/nr2"), "init", "-q")
		f.write("u/v.go", "v\n")
		f.write("gf/.git", "gitdir: /nonexistent\n")
		f.write("gf/a.go", "a\n")
		selfIgnoring(f, "gf2")
		f.write("gf2/.git", "gitdir: ../.git\n")
		f.remove("d0/f0.go")
		f.write("d0/f0.go/a.go", "a\n")
		f.gitIn(f.path("d0/f0.go"), "init", "-q")
	}},
	{name: "non-utf8 killed dir", base: map[string]string{"\xfd": "x\n", "d/\xfc": "y\n", "keep": "k\n"}, setup: func(t *testing.T, f *fixture) {
		f.remove("\xfd")
		selfIgnoring(f, "\xfd")
		f.remove("d/\xfc")
		selfIgnoring(f, "d/\xfc")
	}},
	{name: "unmerged nested and deep", setup: func(t *testing.T, f *fixture) {
		f.write("p/q/c", "1\n")
		f.write("p/r", "1\n")
		f.write("top2", "1\n")
		f.commitAll("c")
		f.git("checkout", "-q", "-b", "other")
		f.write("p/q/c", "2\n")
		f.write("p/r", "2\n")
		f.write("top2", "2\n")
		f.commitAll("other")
		f.git("checkout", "-q", "main")
		f.write("p/q/c", "3\n")
		f.write("p/r", "3\n")
		f.write("top2", "3\n")
		f.commitAll("main")
		if f.gitMayFail("merge", "-q", "other") == nil {
			t.Fatal("the merge did not conflict")
		}
		f.remove("p/q/c")
		selfIgnoring(f, "p/q/c")
		f.remove("p/r")
		f.write("p/r/v.go", "v\n")
		selfIgnoring(f, "p/r/deep")
		f.remove("top2")
		selfIgnoring(f, "top2/x")
		f.write("top2/.gitignore", "*\n")
	}},
	{name: "unmerged via index-info", setup: func(t *testing.T, f *fixture) {
		oid := strings.TrimSpace(f.git("rev-parse", "HEAD:top"))
		f.git("rm", "-q", "--cached", "top")
		in := "100644 " + oid + " 1\ttop\n100644 " + oid + " 3\ttop\n100644 " + oid + " 2\tu1\n"
		cmd := f.gitStdin(in, "update-index", "--index-info")
		_ = cmd
		f.remove("top")
		selfIgnoring(f, "top")
		selfIgnoring(f, "u1")
	}},
	{name: "sparse index", base: map[string]string{"in/a": "a\n", "out/b": "b\n", "out/s/c": "c\n", "keep": "k\n"}, setup: func(t *testing.T, f *fixture) {
		f.git("sparse-checkout", "init", "--cone", "--sparse-index")
		f.git("sparse-checkout", "set", "in")
		selfIgnoring(f, "out/s/c")
		selfIgnoring(f, "out/new")
		f.write("out/v.go", "v\n")
		selfIgnoring(f, "in/new")
		f.remove("in/a")
		selfIgnoring(f, "in/a")
	}},
	{name: "ignorecase in config", base: map[string]string{"Foo": "f\n", "keep": "k\n", "D/x": "x\n"}, setup: func(t *testing.T, f *fixture) {
		f.git("config", "core.ignorecase", "true")
		selfIgnoring(f, "foo")
		f.remove("Foo")
		selfIgnoring(f, "FOO")
		selfIgnoring(f, "d/y")
		f.write("d/v.go", "v\n")
		selfIgnoring(f, "Foo")
	}},
	{name: "index path under symlinked parent", base: map[string]string{"l/c": "c\n", "keep": "k\n"}, setup: func(t *testing.T, f *fixture) {
		f.remove("l")
		selfIgnoring(f, "real/c")
		f.symlink("real", "l")
	}},
	{name: "excluded tracked parent", ignored: []string{"build/x", "build/y/z", "gen/x", "gen/y/z", "lib/x", "lib/y/z", "d0/build/x", "d0/build/y/z"}, base: map[string]string{".gitignore": "build/\n/gen\nlib/**\n", "keep": "k\n"}, setup: func(t *testing.T, f *fixture) {
		for _, d := range []string{"build", "gen", "lib", "d0/build"} {
			f.write(d+"/t.txt", "t\n")
			f.git("add", "-f", d+"/t.txt")
			selfIgnoring(f, d+"/x")
			selfIgnoring(f, d+"/y/z")
			f.write(d+"/y/v.go", "v\n")
		}
		f.git("commit", "-q", "-m", "forced")
	}},
	{name: "index D/F conflict crafted", setup: func(t *testing.T, f *fixture) {
		oid := strings.TrimSpace(f.git("rev-parse", "HEAD:top"))
		f.gitStdin("100644 "+oid+" 0\ttop/x\n", "update-index", "--index-info")
		t.Logf("index: %q", f.git("ls-files", "-s"))
		f.remove("top")
		selfIgnoring(f, "top")
	}},
	{name: "real D/F merge conflict", setup: func(t *testing.T, f *fixture) {
		f.git("checkout", "-q", "-b", "other")
		f.write("c/x", "x\n")
		f.commitAll("dir")
		f.git("checkout", "-q", "main")
		f.write("c", "file\n")
		f.commitAll("file")
		_ = f.gitMayFail("merge", "-q", "other")
		t.Logf("index: %q", f.git("ls-files", "-s"))
		f.remove("c")
		selfIgnoring(f, "c")
	}},
}

func TestLiveUntrackedAttacks(t *testing.T) {
	for _, tc := range attackCases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			base := tc.base
			if base == nil {
				base = map[string]string{".gitignore": "*.log\n", "top": "t\n"}
				for d := range 2 {
					for i := range 2 {
						base[fmt.Sprintf("d%d/f%d.go", d, i)] = "x\n"
						base[fmt.Sprintf("d%d/s/f%d.go", d, i)] = "y\n"
					}
				}
			}
			baseline := f.base(base)
			tc.setup(t, f)
			cs := checkPlantedVisible(t, f, baseline, tc.ignored)
			e, _, h := renderCS(cs)
			t.Logf("entries %q hiding %q", e, h)
		})
	}
}

// TestLiveSelfIgnoringNonUTF8: a self-ignoring directory whose name is not valid UTF-8 hides
// its other files from git status like any other; the live changed set still lists its
// .gitignore, flagged utf8=false, so the audit reports changed_path_unrepresentable rather than
// nothing (gitscope.md §1 Encoding), whether it is untracked or replaces a tracked file.
func TestLiveSelfIgnoringNonUTF8(t *testing.T) {
	f := newFixture(t)
	baseline := f.base(map[string]string{"\xfd": "x\n", "keep": "k\n", "d0/k": "k\n"})
	selfIgnoring(f, "\xff")
	selfIgnoring(f, "d0/\xfe")
	f.remove("\xfd")
	selfIgnoring(f, "\xfd")
	r, err := OpenWith(f.dir, Options{})
	must(t, err)
	cs, err := r.ChangedSet(context.Background(), baseline)
	must(t, err)
	var got []string
	for _, e := range cs.Entries {
		got = append(got, fmt.Sprintf("%s %q self-ignoring=%v utf8=%v", e.Status, e.Path, e.SelfIgnoring, e.UTF8))
	}
	equalLines(t, "entries", got, []string{
		`untracked "d0/\xfe/.gitignore" self-ignoring=false utf8=false`,
		`deleted "\xfd" self-ignoring=false utf8=false`,
		`untracked "\xfd/.gitignore" self-ignoring=false utf8=false`,
		`untracked "\xff/.gitignore" self-ignoring=false utf8=false`,
	})
}

// TestLiveSparseIndexOutsideCone: a directory the executor creates outside the cone of a sparse
// index makes git expand the index on read, which touches (freshens) the tree objects of the
// sparse directories; the live run writes nothing else (hardening.md L4).
func TestLiveSparseIndexOutsideCone(t *testing.T) {
	f := newFixture(t)
	baseline := f.base(map[string]string{"in/a": "a\n", "out/b": "b\n", "out/s/c": "c\n", "keep": "k\n"})
	f.git("sparse-checkout", "init", "--cone", "--sparse-index")
	f.git("sparse-checkout", "set", "in")
	f.write("out/v.go", "v\n")
	r, err := OpenWith(f.dir, Options{})
	must(t, err)
	before := withoutObjectTimes(withoutSharedIndex(snapshotTree(t, f.dir)))
	cs, err := r.ChangedSet(context.Background(), baseline)
	must(t, err)
	got, _, _ := renderCS(cs)
	equalLines(t, "entries", got, []string{"? out/v.go"})
	equalLines(t, "files after the live run (nothing but object times written)", withoutObjectTimes(withoutSharedIndex(snapshotTree(t, f.dir))), before)
}

// TestLiveSelfIgnoringDirWithIndexEntries: a directory created since the baseline that holds an
// index entry and ignores its own .gitignore. Staged and then deleted from disk, it holds only
// untracked files and is one self-ignoring entry. Committed since, it keeps its content (§4.7
// "holds nothing but untracked files"): the live run lists its .gitignore, which a live rule
// never hides, and its other files stay hidden until post-flight, whose listing reads no new rule.
func TestLiveSelfIgnoringDirWithIndexEntries(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(f *fixture)
		want  []string
	}{
		{"staged then deleted", func(f *fixture) {
			f.write("c/x.go", "x\n")
			f.git("add", "c/x.go")
			f.remove("c/x.go")
			selfIgnoring(f, "c")
		}, []string{"? c self-ignoring"}},
		{"committed since", func(f *fixture) {
			f.write("c/x.go", "x\n")
			f.commitAll("c")
			selfIgnoring(f, "c")
		}, []string{"? c/.gitignore", "A c/x.go"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			baseline := f.base(map[string]string{"keep": "k\n"})
			tc.setup(f)
			r, err := OpenWith(f.dir, Options{})
			must(t, err)
			cs, err := r.ChangedSet(context.Background(), baseline)
			must(t, err)
			got, _, _ := renderCS(cs)
			equalLines(t, "entries", got, tc.want)
		})
	}
}
