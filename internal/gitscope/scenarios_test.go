package gitscope

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// scenario is one row of gitscope.md §7. setup builds the repository and returns the baseline
// and the directory to run from. want is the expected changed set C (render format);
// degraded is the expected degraded-mode set when it differs (a documented divergence, see the
// table in README.md), and degradedErr a substring of the expected degraded-mode error.
type scenario struct {
	id          int
	name        string
	setup       func(f *fixture) (baseline, dir string)
	want        []string
	degraded    []string
	degradedErr string
	// snapWant, when not nil, is the snapshot run's answer instead of want (snapRun).
	snapWant []string
	noBare   bool // the bare recipe is not comparable (for example the baseline is invalid)
	// bare, when not nil, is what the plain §4.1 recipe (bareRecipe) answers instead of want:
	// the hostile-configuration scenarios (hostile_test.go) assert that the attack really fools
	// the unhardened recipe, so the scenario proves something.
	bare []string
	// bareMayFail: the plain recipe may die or may answer bare/want, depending on a race
	// inside git (a process filter that exits before its handshake: git dies of SIGPIPE when
	// it writes first, and carries on without the filter when it reads EOF first). Either way
	// the noRun markers are checked after it: the control is that git ran the program.
	bareMayFail bool
	// noRun lists marker files (relative to the fixture's temporary directory) that a program
	// named in the repository configuration creates: they must be absent after degraded and
	// CLI mode, and present after the bare recipe (the control showing git would run it).
	noRun []string
	// skip, when set, returns a reason to skip the scenario on this machine.
	skip func(f *fixture) string
}

// std is the usual baseline: a few files committed on main.
var stdFiles = map[string]string{
	"a":         "a\n",
	"big":       strings.Repeat("line of the big file\n", 200),
	"f":         "f\n",
	"s.sh":      "#!/bin/sh\necho hi\n",
	"dir/c.txt": "c\n",
}

func stdBase(f *fixture) string { return f.base(stdFiles) }

var scenarios = []scenario{
	{id: 1, name: "staged rename", want: []string{"D a", "A a2"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.git("mv", "a", "a2")
		return b, f.dir
	}},
	{id: 2, name: "unstaged rename", want: []string{"D a", "? a2"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		if err := os.Rename(f.path("a"), f.path("a2")); err != nil {
			f.t.Fatal(err)
		}
		return b, f.dir
	}},
	{id: 3, name: "staged rename with edit", want: []string{"D big", "A big2"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.git("mv", "big", "big2")
		f.write("big2", stdFiles["big"]+"one more line\n")
		return b, f.dir
	}},
	{id: 4, name: "rename committed", want: []string{"D a", "A a2"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.git("mv", "a", "a2")
		f.git("commit", "-q", "-m", "rename")
		return b, f.dir
	}},
	{id: 5, name: "rm", want: []string{"D f"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.remove("f")
		return b, f.dir
	}},
	{id: 6, name: "chmod +x", want: []string{"M s.sh"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		chmod(f, "s.sh", 0o755)
		return b, f.dir
	}},
	{id: 7, name: "chmod +x with core.fileMode=false", want: nil, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.git("config", "core.fileMode", "false")
		chmod(f, "s.sh", 0o755)
		return b, f.dir
	}},
	{id: 8, name: "symlink added untracked and staged", want: []string{"A link", "? link2"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.symlink("a", "link")
		f.git("add", "link")
		f.symlink("f", "link2")
		return b, f.dir
	}},
	{id: 9, name: "file replaced by symlink", want: []string{"M f"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.remove("f")
		f.symlink("a", "f")
		return b, f.dir
	}},
	{id: 10, name: "file replaced by directory", want: []string{"D f", "? f/inner"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.remove("f")
		f.write("f/inner", "x\n")
		return b, f.dir
	}},
	{id: 11, name: "same-size edit, mtime restored", want: []string{"M a"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		fi, err := os.Stat(f.path("a"))
		if err != nil {
			f.t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
		f.git("status", "--porcelain") // refresh the index stat cache first
		if err := os.WriteFile(f.path("a"), []byte("b\n"), 0o644); err != nil {
			f.t.Fatal(err)
		}
		if err := os.Chtimes(f.path("a"), fi.ModTime(), fi.ModTime()); err != nil {
			f.t.Fatal(err)
		}
		return b, f.dir
	}},
	// Ignore rules.
	{id: 12, name: "ignored folder and *.log", want: nil, setup: func(f *fixture) (string, string) {
		f.write(".gitignore", "build/\n*.log\n")
		b := stdBase(f)
		f.write("build/out.bin", "x")
		f.write("build/deep/x.o", "x")
		f.write("trace.log", "x")
		f.write("dir/more.log", "x")
		return b, f.dir
	}},
	{id: 13, name: "nested .gitignore with re-include", want: []string{"? sub/keep.tmp"}, setup: func(f *fixture) (string, string) {
		f.write("sub/.gitignore", "*.tmp\n!keep.tmp\n")
		b := stdBase(f)
		f.write("sub/a.tmp", "x")
		f.write("sub/keep.tmp", "x")
		return b, f.dir
	}},
	{id: 14, name: "ignored dir with inner re-include", want: nil, setup: func(f *fixture) (string, string) {
		f.write(".gitignore", "sub/\n")
		b := stdBase(f)
		f.write("sub/.gitignore", "!file.txt\n")
		f.write("sub/file.txt", "x")
		return b, f.dir
	}},
	{id: 15, name: "star with dir re-include", want: nil,
		degraded: []string{"? my-dir/x.txt"},
		setup: func(f *fixture) (string, string) {
			stdBase(f)
			f.write(".gitignore", "*\n!my-dir/\nq/**/*\n!q/b\n")
			f.git("add", "-f", ".gitignore")
			f.git("commit", "-q", "-m", "ignore")
			b := f.head()
			f.write("my-dir/x.txt", "x")
			f.write("q/b/x.txt", "x")
			return b, f.dir
		}},
	{id: 16, name: "info/exclude", want: nil, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.write(".git/info/exclude", "secret*\n")
		f.write("secret.txt", "x")
		return b, f.dir
	}},
	{id: 17, name: "core.excludesFile in ~/.gitconfig", want: nil, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		if err := os.WriteFile(filepath.Join(f.home, ".gitconfig"), []byte("[core]\n\texcludesFile = ~/my-excludes\n"), 0o644); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.home, "my-excludes"), []byte("*.bak\n"), 0o644); err != nil {
			f.t.Fatal(err)
		}
		f.write("x.bak", "x")
		return b, f.dir
	}},
	{id: 18, name: "default global ignore", want: nil, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		p := filepath.Join(f.home, ".config", "git", "ignore")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("*.swp\n"), 0o644); err != nil {
			f.t.Fatal(err)
		}
		f.write(".x.swp", "x")
		return b, f.dir
	}},
	// File names and line endings.
	{id: 19, name: "special names", want: []string{
		"? -lead", "M back\\slash", "? new\nline", "M q\"uote", "? sp ace", "M tab\tname", "M ünï",
	}, setup: func(f *fixture) (string, string) {
		b := f.base(map[string]string{"back\\slash": "1", "q\"uote": "1", "ünï": "1", "tab\tname": "1"})
		for _, p := range []string{"back\\slash", "q\"uote", "ünï", "tab\tname"} {
			f.write(p, "2")
		}
		f.write("sp ace", "x")
		f.write("-lead", "x")
		f.write("new\nline", "x")
		return b, f.dir
	}},
	{id: 20, name: "autocrlf, CRLF working tree", want: nil, degraded: []string{"M t.txt"}, setup: func(f *fixture) (string, string) {
		b := f.base(map[string]string{"t.txt": "x\ny\n"})
		f.git("config", "core.autocrlf", "true")
		time.Sleep(10 * time.Millisecond)
		f.write("t.txt", "x\r\ny\r\n")
		return b, f.dir
	}},
	{id: 21, name: "checked out with autocrlf, touched", want: nil, degraded: []string{"M t.txt"}, setup: func(f *fixture) (string, string) {
		b := f.base(map[string]string{"t.txt": "x\ny\n"})
		f.git("config", "core.autocrlf", "true")
		f.remove("t.txt")
		f.git("checkout", "--", "t.txt")
		time.Sleep(1100 * time.Millisecond)
		now := time.Now()
		if err := os.Chtimes(f.path("t.txt"), now, now); err != nil {
			f.t.Fatal(err)
		}
		return b, f.dir
	}},
	{id: 22, name: "eol=crlf attributes", want: nil, degraded: []string{"M t.txt"}, setup: func(f *fixture) (string, string) {
		b := f.base(map[string]string{"t.txt": "x\ny\n", ".gitattributes": "* text=auto eol=crlf\n"})
		f.remove("t.txt")
		f.git("checkout", "--", "t.txt")
		time.Sleep(1100 * time.Millisecond)
		now := time.Now()
		if err := os.Chtimes(f.path("t.txt"), now, now); err != nil {
			f.t.Fatal(err)
		}
		return b, f.dir
	}},
	// Submodules and nested repositories.
	{id: 23, name: "submodule HEAD moved", want: []string{"M sub"}, setup: func(f *fixture) (string, string) {
		b := withSubmodule(f)
		f.write("sub/new.txt", "n\n")
		f.gitIn(f.path("sub"), "add", "new.txt")
		f.gitIn(f.path("sub"), "commit", "-q", "-m", "moved")
		return b, f.dir
	}},
	{id: 24, name: "submodule dirty content", want: []string{"M sub"}, degraded: []string{}, setup: func(f *fixture) (string, string) {
		b := withSubmodule(f)
		f.write("sub/s.txt", "changed\n")
		f.write("sub/untracked.txt", "u\n")
		return b, f.dir
	}},
	{id: 25, name: "submodule registered but not cloned", want: nil, setup: func(f *fixture) (string, string) {
		withSubmodule(f)
		clone := filepath.Join(filepath.Dir(f.dir), "clone")
		f.gitIn(filepath.Dir(f.dir), "clone", "-q", f.dir, clone)
		return strings.TrimSpace(f.gitIn(clone, "rev-parse", "HEAD")), clone
	}},
	{id: 26, name: "untracked nested repository", want: []string{"? inner nested"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.write("inner/x.txt", "x\n")
		f.gitIn(f.path("inner"), "init", "-q")
		return b, f.dir
	}},
	{id: 27, name: "nested linked worktree", want: []string{"? .worktrees/x nested"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.git("worktree", "add", "-q", "--detach", ".worktrees/x")
		return b, f.dir
	}},
	// Repository layouts.
	{id: 28, name: "linked worktree checkout", want: []string{"M a", "? new"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		wt := filepath.Join(filepath.Dir(f.dir), "wt")
		f.git("worktree", "add", "-q", "--detach", wt)
		if err := os.WriteFile(filepath.Join(wt, "a"), []byte("changed\n"), 0o644); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(wt, "new"), []byte("n\n"), 0o644); err != nil {
			f.t.Fatal(err)
		}
		return b, wt
	}},
	{id: 29, name: "separate git dir", want: []string{"M a", "? new"}, setup: func(f *fixture) (string, string) {
		dir := filepath.Join(filepath.Dir(f.dir), "sep")
		f.gitIn(filepath.Dir(f.dir), "init", "-q", "-b", "main", "--separate-git-dir", filepath.Join(filepath.Dir(f.dir), "sep.git"), dir)
		f.dir = dir
		b := stdBase(f)
		f.write("a", "changed\n")
		f.write("new", "n\n")
		return b, dir
	}},
	{id: 30, name: "no commits: empty-tree baseline", want: []string{"A a", "? b"}, setup: func(f *fixture) (string, string) {
		f.write("a", "a\n")
		f.git("add", "a")
		f.write("b", "b\n")
		return EmptyTreeOID, f.dir
	}},
	{id: 31, name: "shallow clone", want: []string{"M a"}, setup: func(f *fixture) (string, string) {
		stdBase(f)
		f.write("a", "second\n")
		f.commitAll("second")
		clone := filepath.Join(filepath.Dir(f.dir), "shallow")
		f.gitIn(filepath.Dir(f.dir), "clone", "-q", "--depth", "1", "file://"+f.dir, clone)
		b := strings.TrimSpace(f.gitIn(clone, "rev-parse", "HEAD"))
		if err := os.WriteFile(filepath.Join(clone, "a"), []byte("third\n"), 0o644); err != nil {
			f.t.Fatal(err)
		}
		return b, clone
	}},
	{id: 32, name: "partial clone", want: []string{"M a", "? new"},
		setup: func(f *fixture) (string, string) {
			b := stdBase(f)
			f.git("config", "uploadpack.allowFilter", "true")
			clone := filepath.Join(filepath.Dir(f.dir), "partial")
			f.gitIn(filepath.Dir(f.dir), "clone", "-q", "--filter=blob:none", "file://"+f.dir, clone)
			if err := os.WriteFile(filepath.Join(clone, "a"), []byte("changed\n"), 0o644); err != nil {
				f.t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(clone, "new"), []byte("n\n"), 0o644); err != nil {
				f.t.Fatal(err)
			}
			return b, clone
		}},
	// Index flags and formats.
	{id: 33, name: "assume-unchanged", want: nil, degraded: []string{"M a"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.git("update-index", "--assume-unchanged", "a")
		f.write("a", "changed\n")
		return b, f.dir
	}},
	// git semantics without a snapshot; a snapshot run whose pre-flight index has skip-worktree
	// bits compares every present skip-worktree file (sparseArgs).
	{id: 34, name: "skip-worktree", want: nil, snapWant: []string{"M a"}, degraded: []string{"M a"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.git("update-index", "--skip-worktree", "a")
		f.write("a", "changed\n")
		return b, f.dir
	}},
	{id: 35, name: "sparse checkout, cone mode", want: []string{"M dir/c.txt"},
		degradedErr: "not supported by the built-in reader",
		setup: func(f *fixture) (string, string) {
			b := stdBase(f)
			f.git("sparse-checkout", "set", "dir")
			f.write("dir/c.txt", "changed\n")
			return b, f.dir
		}},
	{id: 36, name: "sparse checkout, legacy", want: []string{"M dir/c.txt"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.git("config", "core.sparseCheckout", "true")
		f.write(".git/info/sparse-checkout", "/dir/\n")
		f.git("read-tree", "-mu", "HEAD")
		f.write("dir/c.txt", "changed\n")
		return b, f.dir
	}},
	{id: 37, name: "sparse index", want: []string{"M dir/c.txt"},
		degradedErr: "not supported by the built-in reader",
		setup: func(f *fixture) (string, string) {
			stdBase(f)
			f.write("other/deep/x.txt", "x\n")
			b := f.commitAll("more")
			f.git("sparse-checkout", "init", "--cone", "--sparse-index")
			f.git("sparse-checkout", "set", "dir")
			f.write("dir/c.txt", "changed\n")
			return b, f.dir
		}},
	{id: 38, name: "split index", want: []string{"M a"},
		degradedErr: "not supported by the built-in reader",
		setup: func(f *fixture) (string, string) {
			b := stdBase(f)
			f.git("config", "core.splitIndex", "true")
			f.git("update-index", "--split-index")
			f.write("a", "changed\n")
			return b, f.dir
		}},
	{id: 39, name: "index v4", want: []string{"M a"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.git("update-index", "--index-version", "4")
		f.write("a", "changed\n")
		return b, f.dir
	}},
	{id: 40, name: "intent to add", want: []string{"A n"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.write("n", "new\n")
		f.git("add", "-N", "n")
		return b, f.dir
	}},
	{id: 41, name: "merge conflict", want: []string{"M a"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.conflict("a")
		return b, f.dir
	}},
	{id: 42, name: "empty directory", want: nil, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		if err := os.MkdirAll(f.path("empty/deeper"), 0o755); err != nil {
			f.t.Fatal(err)
		}
		return b, f.dir
	}},
	// mastermind-specific.
	{id: 43, name: "git rm --cached, file kept", want: []string{"M f"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.git("rm", "-q", "--cached", "f")
		return b, f.dir
	}},
	{id: 44, name: "edits under .mastermind/", want: []string{"M .mastermind/state.json", "? .mastermind/tasks/001/audit.md", "M a"}, setup: func(f *fixture) (string, string) {
		f.write(".mastermind/state.json", "{}\n")
		b := stdBase(f)
		f.write(".mastermind/state.json", "{\"x\":1}\n")
		f.write(".mastermind/tasks/001/audit.md", "audit\n")
		f.write("a", "changed\n")
		return b, f.dir
	}},
	{id: 45, name: "invalid UTF-8 names", want: []string{"M bad\xfe !utf8", "? bad\xff !utf8"}, setup: func(f *fixture) (string, string) {
		b := f.base(map[string]string{"bad\xfe": "1"})
		f.write("bad\xfe", "2")
		f.write("bad\xff", "x")
		return b, f.dir
	}},
	// The snapshot run is the task's complete changed set: a path committed since the baseline
	// is in it even when the work tree matches the baseline (hardening A1).
	{id: 47, name: "commit an edit, revert it in the working tree", want: nil, snapWant: []string{"M a"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.write("a", "edited\n")
		f.commitAll("edit")
		f.write("a", stdFiles["a"])
		return b, f.dir
	}},
	{id: 48, name: "stage an edit, revert it in the working tree", want: nil, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.write("a", "edited\n")
		f.git("add", "a")
		f.write("a", stdFiles["a"])
		return b, f.dir
	}},
	{id: 49, name: "dirty at pre-flight, untouched after", want: []string{"M a"}, setup: func(f *fixture) (string, string) {
		stdBase(f)
		f.write("a", "dirty before the baseline was taken\n")
		return f.head(), f.dir
	}},
	{id: 54, name: "file replaced by symlink outside the repository", want: []string{"M f"}, setup: func(f *fixture) (string, string) {
		b := stdBase(f)
		f.remove("f")
		f.symlink("/etc/passwd", "f")
		return b, f.dir
	}},
}

// withoutSharedIndex drops the split-index shared files, whose mtime every git read bumps.
func withoutSharedIndex(lines []string) []string {
	var out []string
	for _, l := range lines {
		name := strings.SplitN(l, " ", 2)[0]
		if strings.Contains(name, "/.git/sharedindex.") {
			continue
		}
		out = append(out, l)
	}
	return out
}

func chmod(f *fixture, rel string, mode os.FileMode) {
	f.t.Helper()
	if err := os.Chmod(f.path(rel), mode); err != nil {
		f.t.Fatal(err)
	}
}

// withSubmodule commits the standard files plus a submodule "sub" (from a sibling repository)
// and returns the baseline.
func withSubmodule(f *fixture) string {
	f.t.Helper()
	src := filepath.Join(filepath.Dir(f.dir), "subsrc")
	f.gitIn(filepath.Dir(f.dir), "init", "-q", "-b", "main", src)
	if err := os.WriteFile(filepath.Join(src, "s.txt"), []byte("s\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.gitIn(src, "add", "s.txt")
	f.gitIn(src, "commit", "-q", "-m", "sub")
	for p, c := range stdFiles {
		f.write(p, c)
	}
	f.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "sub")
	return f.commitAll("baseline with submodule")
}

// TestScenarios runs every §7 scenario in CLI mode (compared with the expected set and with the
// bare recipe) and in degraded mode (compared with the expected set or the documented
// divergence).
func TestScenarios(t *testing.T) { runScenarios(t, scenarios) }

// runScenarios runs each scenario: degraded mode, then CLI mode, then the bare recipe.
func runScenarios(t *testing.T, list []scenario) {
	for _, sc := range list {
		t.Run(strings.ReplaceAll(sc.name, " ", "_"), func(t *testing.T) { runScenario(t, sc) })
	}
}

func runScenario(t *testing.T, sc scenario) {
	f := newFixture(t)
	if sc.skip != nil {
		if why := sc.skip(f); why != "" {
			t.Skip(why)
		}
	}
	baseline, dir := sc.setup(f)
	before := snapshotTree(t, dir)
	markersAbsent := func(mode string) {
		t.Helper()
		for _, m := range sc.noRun {
			if _, err := os.Lstat(filepath.Join(f.tmp(), m)); err == nil {
				t.Errorf("#%d %s: a configured program ran (%s exists)", sc.id, mode, m)
			}
		}
	}

	// Degraded mode first: it must write nothing at all.
	dcs, derr := changed(t, dir, baseline, noGit)
	switch {
	case sc.degradedErr != "":
		if derr == nil || !strings.Contains(derr.Error(), sc.degradedErr) {
			t.Errorf("#%d degraded mode: err = %v, want one containing %q", sc.id, derr, sc.degradedErr)
		}
	case derr != nil:
		t.Errorf("#%d degraded mode: %v", sc.id, derr)
	default:
		want := sc.want
		if sc.degraded != nil {
			want = sc.degraded
		}
		if !dcs.Degraded || dcs.Source != SourceGoGit || dcs.DegradedReason != ReasonGitUnavailable {
			t.Errorf("#%d degraded flags: %+v", sc.id, dcs)
		}
		equalLines(t, "degraded mode", render(dcs.Entries), want)
	}
	equalLines(t, "files after degraded mode (nothing written)", snapshotTree(t, dir), before)
	markersAbsent("degraded mode")

	cs, err := changed(t, dir, baseline, Options{})
	if err != nil {
		t.Fatalf("#%d CLI mode: %v", sc.id, err)
	}
	if cs.Source != SourceGit || cs.Degraded || cs.DegradedReason != "" {
		t.Errorf("#%d CLI mode source = %q degraded=%v %q", sc.id, cs.Source, cs.Degraded, cs.DegradedReason)
	}
	equalLines(t, "CLI mode", render(cs.Entries), sc.want)
	// git diff refreshes the index stat cache into a private copy (index.go): nothing in
	// the repository is written. Only git's own read of a split index bumps the shared
	// index's mtime (read_index_from freshens it), so those lines are left out.
	equalLines(t, "files after CLI mode (nothing written)",
		withoutSharedIndex(snapshotTree(t, dir)), withoutSharedIndex(before))
	markersAbsent("CLI mode")
	// The same repository audited against a pre-flight snapshot taken now (its changes are
	// then pre-existing): the snapshot run must answer exactly as the plain one, with no input
	// change, and write nothing outside the snapshot store.
	if sc.degradedErr == "" || !strings.Contains(sc.degradedErr, "baseline") {
		snapRun(t, f, sc, dir, baseline)
	}
	markersAbsent("snapshot run")
	if sc.noBare {
		return
	}
	bareWant := sc.want
	if sc.bare != nil {
		bareWant = sc.bare
	}
	if got, err := bareRecipeErr(t, dir, baseline); err != nil && sc.bareMayFail {
		t.Logf("#%d bare git recipe died (accepted for this scenario): %v", sc.id, err)
	} else if err != nil {
		t.Fatal(err)
	} else {
		equalLines(t, "bare git recipe", got, bareWant)
	}
	for _, m := range sc.noRun {
		if _, err := os.Lstat(filepath.Join(f.tmp(), m)); err != nil {
			t.Errorf("#%d control: the bare recipe did not run the configured program (%s missing); the scenario proves nothing", sc.id, m)
		}
	}
}

// snapRun is runScenario's snapshot-run check (ChangedSetSince after TakeSnapshot).
func snapRun(t *testing.T, f *fixture, sc scenario, dir, baseline string) {
	t.Helper()
	r, err := OpenWith(dir, Options{})
	if err != nil {
		t.Fatalf("#%d snapshot run: %v", sc.id, err)
	}
	st, err := r.GitDirStore("task")
	must(t, err)
	ctx := context.Background()
	if err := r.TakeSnapshot(ctx, baseline, st); err != nil {
		if sc.noBare {
			t.Logf("#%d snapshot: %v", sc.id, err)
			return
		}
		t.Fatalf("#%d snapshot: %v", sc.id, err)
	}
	before := withoutSharedIndex(snapshotTree(t, dir))
	cs, err := r.ChangedSetSince(ctx, baseline, st)
	if err != nil {
		t.Fatalf("#%d snapshot run: %v", sc.id, err)
	}
	want := sc.want
	if sc.snapWant != nil {
		want = sc.snapWant
	}
	equalLines(t, "snapshot run", render(cs.Entries), want)
	if len(cs.InputChanges) > 0 {
		t.Errorf("#%d snapshot run: input changes %v on an unchanged repository", sc.id, renderInputs(cs.InputChanges))
	}
	equalLines(t, "files after the snapshot run (nothing written)", withoutSharedIndex(snapshotTree(t, dir)), before)
}
