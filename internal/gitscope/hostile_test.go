package gitscope

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// hostileScenarios are configurations an executor can write into .git/config or .git/info/* to
// hide real changes from the plain §4.1 recipe (or to make it run a program). Each one asserts
// the hardened recipe's answer (want), degraded mode's, and — through bare — that the plain
// recipe is really fooled, so the scenario fails if the hardening is removed.
var hostileScenarios = []scenario{
	{id: 101, name: "core.ignorecase on a case-sensitive file system",
		want: []string{"? A.txt", "? SRC/x.go", "? src/X.go"},
		bare: []string{},
		skip: caseSensitiveOnly,
		setup: func(f *fixture) (string, string) {
			b := f.base(map[string]string{"src/x.go": "package x\n", "a.txt": "a\n"})
			f.git("config", "core.ignorecase", "true")
			f.write("src/X.go", "package hidden\n")
			f.write("A.txt", "hidden\n")
			f.write("SRC/x.go", "package hidden\n")
			return b, f.dir
		}},
	{id: 102, name: "core.ignorecase in a linked worktree",
		want: []string{"? A.txt", "? SRC/x.go", "? src/X.go"},
		bare: []string{},
		skip: caseSensitiveOnly,
		setup: func(f *fixture) (string, string) {
			b := f.base(map[string]string{"src/x.go": "package x\n", "a.txt": "a\n"})
			wt := filepath.Join(f.tmp(), "wt")
			f.git("worktree", "add", "-q", "--detach", wt)
			f.git("config", "core.ignorecase", "true")
			for p, c := range map[string]string{"src/X.go": "package hidden\n", "A.txt": "hidden\n", "SRC/x.go": "package hidden\n"} {
				must(f.t, os.MkdirAll(filepath.Dir(filepath.Join(wt, p)), 0o755))
				must(f.t, os.WriteFile(filepath.Join(wt, p), []byte(c), 0o644))
			}
			return b, wt
		}},
	// core.worktree points git at a decoy copy of the baseline tree: `git -C <top level>` does
	// not pin the work tree, so the plain recipe compares the decoy and sees nothing.
	{id: 103, name: "core.worktree elsewhere",
		want: []string{"M a", "? new"},
		bare: []string{},
		setup: func(f *fixture) (string, string) {
			b := stdBase(f)
			decoy := makeDecoy(f, f.dir)
			f.git("config", "core.worktree", decoy)
			f.write("a", "changed\n")
			f.write("new", "n\n")
			return b, f.dir
		}},
	{id: 104, name: "core.worktree elsewhere in a linked worktree",
		want: []string{"M a", "? new"},
		bare: []string{},
		// go-git cannot open a repository with extensions.worktreeConfig (gitscope.md §3).
		degradedErr: "not supported by the built-in reader",
		setup: func(f *fixture) (string, string) {
			b := stdBase(f)
			wt := filepath.Join(f.tmp(), "wt")
			f.git("worktree", "add", "-q", "--detach", wt)
			decoy := makeDecoy(f, wt)
			// The common config's core.worktree does not apply to a linked worktree; its own
			// config.worktree does.
			f.git("config", "extensions.worktreeConfig", "true")
			f.gitIn(wt, "config", "--worktree", "core.worktree", decoy)
			must(f.t, os.WriteFile(filepath.Join(wt, "a"), []byte("changed\n"), 0o644))
			must(f.t, os.WriteFile(filepath.Join(wt, "new"), []byte("n\n"), 0o644))
			return b, wt
		}},
	{id: 105, name: "core.worktree elsewhere with a separate git dir",
		want: []string{"M a", "? new"},
		bare: []string{},
		setup: func(f *fixture) (string, string) {
			dir := filepath.Join(f.tmp(), "sep")
			f.gitIn(f.tmp(), "init", "-q", "-b", "main", "--separate-git-dir", filepath.Join(f.tmp(), "sep.git"), dir)
			f.dir = dir
			b := stdBase(f)
			decoy := makeDecoy(f, dir)
			f.git("config", "core.worktree", decoy)
			f.write("a", "changed\n")
			f.write("new", "n\n")
			return b, dir
		}},
	// Design scenario #11 with the stat comparison weakened: checkStat=minimal compares only
	// mtime seconds, size and mode; trustctime=false ignores the ctime that the restored mtime
	// cannot hide.
	{id: 106, name: "same-size edit, mtime restored, checkStat minimal, trustctime false",
		want: []string{"M a"},
		bare: []string{},
		setup: func(f *fixture) (string, string) {
			b := stdBase(f)
			f.git("config", "core.checkStat", "minimal")
			f.git("config", "core.trustctime", "false")
			fi, err := os.Stat(f.path("a"))
			must(f.t, err)
			time.Sleep(1100 * time.Millisecond) // the index is written in a later second than a's mtime
			f.git("status", "--porcelain")      // refresh the index stat cache first
			must(f.t, os.WriteFile(f.path("a"), []byte("b\n"), 0o644))
			must(f.t, os.Chtimes(f.path("a"), fi.ModTime(), fi.ModTime()))
			return b, f.dir
		}},
	// core.symlinks=false makes git compare a regular file with a tracked symlink's target text:
	// a symlink replaced by a file holding that text looks unchanged.
	{id: 107, name: "symlink replaced by a file with its target text, core.symlinks false",
		want: []string{"M l"},
		bare: []string{},
		skip: func(*fixture) string {
			if runtime.GOOS == "windows" {
				return "symlinks"
			}
			return ""
		},
		setup: func(f *fixture) (string, string) {
			f.write("a", "a\n")
			f.symlink("a", "l")
			b := f.commitAll("baseline")
			f.git("config", "core.symlinks", "false")
			f.remove("l")
			must(f.t, os.WriteFile(f.path("l"), []byte("a"), 0o644))
			return b, f.dir
		}},
	// Guard: an untracked cache whose directory stat data was restored. git status trusts it
	// and hides d/new; ls-files never consults the untracked cache in git 2.39 (only status
	// hands it to the directory walk), and the recipe also passes core.untrackedCache=false.
	{id: 108, name: "untracked cache with restored directory mtimes",
		want: []string{"? d/new"},
		setup: func(f *fixture) (string, string) {
			b := f.base(map[string]string{"d/a": "a\n"})
			f.git("config", "core.untrackedCache", "true")
			f.git("config", "status.showUntrackedFiles", "all")
			f.git("config", "core.checkStat", "minimal")
			f.git("config", "core.trustctime", "false")
			time.Sleep(1100 * time.Millisecond)
			for i := 0; i < 3; i++ {
				f.git("status", "--porcelain")
			}
			fd, err := os.Stat(f.path("d"))
			must(f.t, err)
			fr, err := os.Stat(f.dir)
			must(f.t, err)
			f.write("d/new", "hidden\n")
			must(f.t, os.Chtimes(f.path("d"), fd.ModTime(), fd.ModTime()))
			must(f.t, os.Chtimes(f.dir, fr.ModTime(), fr.ModTime()))
			if out := f.git("status", "--porcelain"); out != "" {
				f.t.Logf("control: git status no longer trusts the poisoned untracked cache: %q", out)
			}
			return b, f.dir
		}},
	// A clean filter named in .git/info/attributes turns the edited a.txt back into the
	// baseline bytes when git hashes it, and runs a command doing so.
	{id: 109, name: "clean filter in info/attributes",
		want:  []string{"M a.txt"},
		bare:  []string{},
		noRun: []string{"clean.marker"},
		setup: func(f *fixture) (string, string) {
			b := f.base(map[string]string{"a.txt": "a\n", "orig": "a\n"})
			f.write(".git/info/attributes", "a.txt filter=hide\n")
			f.git("config", "filter.hide.clean", "touch "+filepath.Join(f.tmp(), "clean.marker")+"; cat orig")
			f.write("a.txt", "changed\n")
			return b, f.dir
		}},
	// A long-running process filter (with a dotted driver name) named in a core.attributesFile
	// outside the repository. It fails its handshake; the plain recipe either dies of SIGPIPE
	// or carries on without the filter (a race inside git, seen both ways) — after it ran the
	// program either way.
	{id: 110, name: "process filter in core.attributesFile",
		want:        []string{"M a.txt"},
		bareMayFail: true,
		noRun:       []string{"process.marker"},
		setup: func(f *fixture) (string, string) {
			b := f.base(map[string]string{"a.txt": "a\n"})
			attrs := filepath.Join(f.tmp(), "attributes")
			must(f.t, os.WriteFile(attrs, []byte("*.txt filter=x.y\n"), 0o644))
			f.git("config", "core.attributesFile", attrs)
			f.git("config", "filter.x.y.process", "touch "+filepath.Join(f.tmp(), "process.marker"))
			f.write("a.txt", "changed\n")
			return b, f.dir
		}},
	// A smudge/clean pair in the global configuration (where git-lfs installs its own), for a
	// driver named in the committed .gitattributes: a stat-dirty but unchanged file is still
	// hashed through the filter by the plain recipe.
	{id: 111, name: "global clean filter, stat-dirty unchanged file",
		want:  []string{"M b.txt"},
		noRun: []string{"global.marker"},
		setup: func(f *fixture) (string, string) {
			b := f.base(map[string]string{"a.txt": "a\n", "b.txt": "b\n", ".gitattributes": "a.txt filter=g\n"})
			must(f.t, os.WriteFile(filepath.Join(f.home, ".gitconfig"),
				[]byte("[filter \"g\"]\n\tclean = touch "+filepath.Join(f.tmp(), "global.marker")+" && cat\n\trequired = true\n"), 0o644))
			later := time.Now().Add(2 * time.Second)
			must(f.t, os.Chtimes(f.path("a.txt"), later, later))
			f.write("b.txt", "changed\n")
			return b, f.dir
		}},
	// The accepted consequence for git-lfs-like drivers (README.md): with the filter disabled,
	// a stat-dirty but unchanged file whose index entry holds the clean (pointer) form is
	// compared as its raw bytes and shows as modified. More paths, never fewer.
	{id: 112, name: "transforming clean filter, stat-dirty unchanged file (fail closed)",
		want:  []string{"M p.bin"},
		bare:  []string{},
		noRun: []string{"pointer.marker"},
		setup: func(f *fixture) (string, string) {
			f.write(".gitattributes", "*.bin filter=ptr\n")
			f.write("p.bin", "large content\n")
			f.git("config", "filter.ptr.clean", "sed s/^/pointer:/")
			b := f.commitAll("baseline")
			f.git("config", "filter.ptr.clean", "touch "+filepath.Join(f.tmp(), "pointer.marker")+" && sed s/^/pointer:/")
			later := time.Now().Add(2 * time.Second)
			must(f.t, os.Chtimes(f.path("p.bin"), later, later))
			return b, f.dir
		}},
}

func TestHostileConfigScenarios(t *testing.T) { runScenarios(t, hostileScenarios) }

// caseSensitiveOnly skips on a case-insensitive file system, where core.ignorecase=true is right.
func caseSensitiveOnly(f *fixture) string {
	if probeIgnoreCase(f.tmp()) {
		return "the temporary directory is on a case-insensitive file system"
	}
	return ""
}

// probeIgnoreCase answers false on a case-sensitive file system whatever an executor plants
// under the swapped name: a .GIT directory, a .GIT symlink, or (linked-worktree layout, where
// .git is a file) a hard link .GIT to the .git file.
func TestProbeIgnoreCaseCannotBeFooled(t *testing.T) {
	base := t.TempDir()
	if probeIgnoreCase(base) {
		t.Skip("the temporary directory is on a case-insensitive file system")
	}
	mk := func(t *testing.T) string {
		d, err := os.MkdirTemp(base, "root")
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	t.Run("dir", func(t *testing.T) {
		d := mk(t)
		must(t, os.Mkdir(filepath.Join(d, ".git"), 0o755))
		must(t, os.Mkdir(filepath.Join(d, ".GIT"), 0o755))
		if probeIgnoreCase(d) {
			t.Error("a separate .GIT directory made the probe say case-insensitive")
		}
	})
	t.Run("symlink", func(t *testing.T) {
		d := mk(t)
		must(t, os.Mkdir(filepath.Join(d, ".git"), 0o755))
		must(t, os.Symlink(".git", filepath.Join(d, ".GIT")))
		if probeIgnoreCase(d) {
			t.Error("a .GIT symlink made the probe say case-insensitive")
		}
	})
	t.Run("hard-linked .git file", func(t *testing.T) {
		d := mk(t)
		must(t, os.WriteFile(filepath.Join(d, ".git"), []byte("gitdir: /nowhere\n"), 0o644))
		must(t, os.Link(filepath.Join(d, ".git"), filepath.Join(d, ".GIT")))
		must(t, os.Mkdir(filepath.Join(d, "src"), 0o755))
		if probeIgnoreCase(d) {
			t.Error("a hard link .GIT made the probe say case-insensitive")
		}
	})
	t.Run("swapped name of the probed directory is another directory", func(t *testing.T) {
		d := mk(t)
		must(t, os.WriteFile(filepath.Join(d, ".git"), []byte("gitdir: /nowhere\n"), 0o644))
		must(t, os.Mkdir(filepath.Join(d, "Src"), 0o755))
		must(t, os.Mkdir(filepath.Join(d, "sRC"), 0o755))
		if probeIgnoreCase(d) {
			t.Error("two directories differing in case made the probe say case-insensitive")
		}
	})
	if got := swapASCIICase(".Git-ü1"); got != ".gIT-ü1" {
		t.Errorf("swapASCIICase = %q", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// makeDecoy copies the work tree at dir, without .git, to <tmp>/decoy and returns its path.
func makeDecoy(f *fixture, dir string) string {
	f.t.Helper()
	decoy := filepath.Join(f.tmp(), "decoy")
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			if fi.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		dst := filepath.Join(decoy, rel)
		if fi.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, fi.Mode().Perm())
	})
	must(f.t, err)
	return decoy
}

// A filter driver whose name contains '=' cannot be disabled with -c (git splits at the first
// '='): the changed set and the diff stat are refused, and the driver never runs.
func TestUndisableableFilterDriverRefused(t *testing.T) {
	f := newFixture(t)
	b := f.base(map[string]string{"a.txt": "a\n", "orig": "a\n"})
	marker := filepath.Join(f.tmp(), "eq.marker")
	f.write(".git/info/attributes", "a.txt filter=a=b\n")
	f.git("config", "filter.a=b.clean", "touch "+marker+"; cat orig")
	f.write("a.txt", "changed\n")
	_, err := changed(t, f.dir, b, Options{})
	gf, ok := errorsAs[*ErrGitFailed](err)
	if !ok || !strings.Contains(gf.Error(), `filter driver "a=b"`) {
		t.Fatalf("ChangedSet: %v, want ErrGitFailed naming the driver", err)
	}
	r, err := Discover(f.dir)
	must(t, err)
	if _, err := r.DiffStat(ctx, b); err == nil {
		t.Error("DiffStat succeeded")
	}
	if _, err := os.Lstat(marker); err == nil {
		t.Error("the filter ran")
	}
}

func TestParseFilterDrivers(t *testing.T) {
	got, err := parseFilterDrivers([]byte("filter.lfs.clean\x00filter.lfs.smudge\x00filter.x.y.process\x00filter..clean\x00filter.nosub\x00filter.We ird.required\x00"))
	must(t, err)
	equalLines(t, "drivers", got, []string{"", "We ird", "lfs", "x.y"})
	for _, bad := range []string{"filter.a=b.clean\x00", "other.x.clean\x00", "filter.x.clean"} {
		if _, err := parseFilterDrivers([]byte(bad)); err == nil {
			t.Errorf("parseFilterDrivers(%q) accepted", bad)
		}
	}
}

// No program named in the configuration runs during any read gitscope makes with git: the
// changed set (diff and ls-files), the file list, the diff stat, baseline lookups. The
// configuration names a clean/smudge/process filter, a diff driver's command and textconv,
// diff.external and an fsmonitor hook, and a stat-dirty file and an edited file sit behind
// both attributes. Controls show that plain git commands do run each of them.
func TestConfiguredProgramsNeverRunAnywhere(t *testing.T) {
	f := newFixture(t)
	marks := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(marks, name+".sh")
		must(t, os.WriteFile(p, []byte("#!/bin/sh\ntouch "+filepath.Join(marks, name+".marker")+"\n"+body), 0o755))
		return p
	}
	marker := func(name string) bool {
		_, err := os.Lstat(filepath.Join(marks, name+".marker"))
		return err == nil
	}
	clearMarkers := func() {
		ms, _ := filepath.Glob(filepath.Join(marks, "*.marker"))
		for _, m := range ms {
			must(t, os.Remove(m))
		}
	}
	f.write(".gitattributes", "*.txt filter=flt diff=drv\n")
	b := f.base(map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	f.git("config", "filter.flt.clean", script("clean", "cat\n"))
	f.git("config", "filter.flt.smudge", script("smudge", "cat\n"))
	f.git("config", "diff.drv.command", script("command", ""))
	f.git("config", "diff.drv.textconv", script("textconv", "cat \"$1\"\n"))
	f.git("config", "core.fsmonitor", script("fsmonitor", ""))
	f.write("a.txt", "changed\n")
	later := time.Now().Add(2 * time.Second)
	must(t, os.Chtimes(f.path("b.txt"), later, later))

	control := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = f.dir
		cmd.Env = f.env
		_ = cmd.Run()
		if !marker(name) {
			t.Fatalf("control: git %v did not run the %s program; the test would prove nothing", args, name)
		}
		clearMarkers()
	}
	control("clean", "diff", "--name-status", b)
	control("command", "diff", b)
	control("textconv", "diff", "--no-ext-diff", b)
	control("fsmonitor", "status", "--porcelain")
	f.git("config", "filter.flt.process", script("process", ""))
	control("process", "diff", "--name-status", b)
	clearMarkers()
	// Restore b.txt's stat-dirty state (the controls may have refreshed the index).
	must(t, os.Chtimes(f.path("b.txt"), later.Add(time.Second), later.Add(time.Second)))

	r, err := Discover(f.dir)
	must(t, err)
	cs, err := r.ChangedSet(ctx, b)
	must(t, err)
	equalLines(t, "C", render(cs.Entries), []string{"M a.txt"})
	files, err := r.ListFiles(ctx)
	must(t, err)
	equalLines(t, "files", files, []string{".gitattributes", "a.txt", "b.txt"})
	stat, err := r.DiffStat(ctx, b)
	must(t, err)
	if !strings.Contains(stat, "a.txt") || strings.Contains(stat, "b.txt") {
		t.Errorf("diff stat:\n%s", stat)
	}
	if _, _, err := r.BaselineBlob(ctx, b, "a.txt"); err != nil {
		t.Error(err)
	}
	if _, err := r.BaselineEntries(ctx, b, []string{"a.txt", "b.txt"}); err != nil {
		t.Error(err)
	}
	for _, m := range []string{"clean", "smudge", "process", "command", "textconv", "fsmonitor"} {
		if marker(m) {
			t.Errorf("the %s program ran", m)
		}
	}
}
