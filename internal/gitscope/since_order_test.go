package gitscope

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The snapshot run's order (gitscope.md §4.6): the untracked listing starts before stage 1 has
// ended, stage 3 runs beside the listing, and the errors keep their precedence.

// sinceRun runs ChangedSetSince in the background and waits up to d. When the run has not
// answered by then, it is blocked: each of fifos is opened for writing (which releases a git
// blocked opening it for reading) and fed content until the run answers.
type sinceResult struct {
	cs      *ChangedSet
	err     error
	blocked bool
	took    time.Duration
}

func sinceRun(t *testing.T, f *fixture, b string, st SnapshotStore, opts Options, d time.Duration, fifoContent string, fifos ...string) sinceResult {
	t.Helper()
	r, err := OpenWith(f.dir, opts)
	if err != nil {
		return sinceResult{err: err} // refused when the repository is opened
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	type out struct {
		cs  *ChangedSet
		err error
	}
	done := make(chan out, 1)
	start := time.Now()
	go func() { cs, err := r.ChangedSetSince(ctx, b, st); done <- out{cs, err} }()
	select {
	case o := <-done:
		return sinceResult{cs: o.cs, err: o.err, took: time.Since(start)}
	case <-time.After(d):
	}
	for {
		for _, p := range fifos {
			if fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				_, _ = syscall.Write(fd, []byte(fifoContent))
				_ = syscall.Close(fd)
			}
		}
		select {
		case o := <-done:
			return sinceResult{cs: o.cs, err: o.err, blocked: true, took: time.Since(start)}
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// privateIndexDirs lists the mastermind-index-* directories in dir.
func privateIndexDirs(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "mastermind-index-*"))
	return m
}

// settledGoroutines waits up to 7 s (exec's WaitDelay is 5 s) for the goroutine count to fall
// to at most n, and returns the last count.
func settledGoroutines(n int) int {
	deadline := time.Now().Add(7 * time.Second)
	for {
		g := runtime.NumGoroutine()
		if g <= n || time.Now().After(deadline) {
			return g
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDegradedNestedRepoFIFOHead: a new, untracked nested repository whose HEAD (or commondir)
// is a FIFO, directly or through a .git file, does not block the built-in reader. git's own
// listing opens that HEAD blocking and waits for its 60 s command timeout (docs/hardening.md
// L10), which a test cannot wait for.
func TestDegradedNestedRepoFIFOHead(t *testing.T) {
	for _, how := range []string{"git directory", "gitfile", "gitfile to a relative directory", "commondir"} {
		t.Run(strings.ReplaceAll(how, " ", "_"), func(t *testing.T) {
			f := newFixture(t)
			b := stdBase(f)
			st := takeSnapshot(t, f, f.dir, b, noGit)
			var gd string
			switch how {
			case "git directory", "commondir":
				gd = f.path("nest/.git")
			case "gitfile":
				gd = filepath.Join(f.tmp(), "ext-gitdir")
				f.write("nest/.git", "gitdir: "+gd+"\n")
			default:
				gd = f.path("nest/.hidden")
				f.write("nest/.git", "gitdir: .hidden\n")
			}
			for _, d := range []string{"objects", "refs"} {
				must(t, os.MkdirAll(filepath.Join(gd, d), 0o755))
			}
			fifo, content := filepath.Join(gd, "HEAD"), "ref: refs/heads/main\n"
			if how == "commondir" {
				must(t, os.WriteFile(fifo, []byte(content), 0o644))
				fifo, content = filepath.Join(gd, "commondir"), ".\n"
			}
			must(t, syscall.Mkfifo(fifo, 0o644))
			res := sinceRun(t, f, b, st, noGit, 3*time.Second, content, fifo)
			if res.blocked {
				t.Errorf("the built-in reader blocked on the FIFO %s (released after %s); err %v", fifo, res.took, res.err)
			}
		})
	}
}

// TestRefusalStopsEarlyListing: a FIFO at a baseline directory's .gitattributes, the
// last of many, is refused by the walk that the early listing no longer waits for. The run
// must still be ErrUnsafeRepository at once, leave no private index directory behind, and
// leak no goroutine, in the TMPDIR case and the next-to-the-git-directory case.
func TestRefusalStopsEarlyListing(t *testing.T) {
	for _, where := range []string{"tmpdir", "inside the work tree"} {
		t.Run(strings.ReplaceAll(where, " ", "_"), func(t *testing.T) {
			f := newFixture(t)
			files := map[string]string{}
			for i := range 3000 {
				files[fmt.Sprintf("d%04d/x", i)] = "x\n"
			}
			files["zzz/.gitattributes"] = "*.txt text\n"
			b := f.base(files)
			for i := range 2000 {
				f.write(fmt.Sprintf("new/u%05d", i), "u\n")
			}
			tmp := filepath.Join(f.tmp(), "tmpdir")
			if where != "tmpdir" {
				tmp = f.path("tmpdir")
			}
			must(t, os.MkdirAll(tmp, 0o755))
			t.Setenv("TMPDIR", tmp)
			st := takeSnapshot(t, f, f.dir, b, Options{})
			gdir := f.path(".git")
			f.remove("zzz/.gitattributes")
			must(t, syscall.Mkfifo(f.path("zzz/.gitattributes"), 0o644))
			before := runtime.NumGoroutine()
			res := sinceRun(t, f, b, st, Options{}, 5*time.Second, "", f.path("zzz/.gitattributes"))
			if res.blocked || !errors.Is(res.err, ErrUnsafeRepository) {
				t.Errorf("blocked=%v err=%v, want ErrUnsafeRepository at once", res.blocked, res.err)
			}
			if left := append(privateIndexDirs(tmp), privateIndexDirs(gdir)...); len(left) > 0 {
				t.Errorf("private index directories left behind: %v", left)
			}
			if g := settledGoroutines(before); g > before {
				t.Errorf("goroutines: %d before the run, %d after", before, g)
			}
		})
	}
}

func realGit(t *testing.T) string {
	p, err := exec.LookPath("git")
	must(t, err)
	return p
}

// oldGit is a git that says it is 2.20.1 and otherwise is the real one, so that only the
// version decides.
func oldGit(t *testing.T) string {
	return `[ "$1" = version ] && { echo 'git version 2.20.1'; exit 0; }; exec ` + realGit(t) + ` "$@"` + "\n"
}

// scriptGit is Options whose git is the shell script body.
func scriptGit(t *testing.T, body string) Options {
	p := filepath.Join(t.TempDir(), "git")
	must(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755))
	return Options{LookPath: func(string) (string, error) { return p, nil }}
}

// wantDegraded checks a run that the built-in reader answered for reason, with C "M a", "? new".
func wantDegraded(reason string) func(t *testing.T, cs *ChangedSet, err error) {
	return func(t *testing.T, cs *ChangedSet, err error) {
		if err != nil || !cs.Degraded || cs.DegradedReason != reason {
			t.Errorf("err %v cs %+v, want degraded %s", err, cs, reason)
			return
		}
		equalLines(t, "C", render(cs.Entries), []string{"M a", "? new"})
	}
}

// TestStageOneFailuresKeepTheirVerdict: each stage-1 failure gives its own verdict while the
// listing may already run, and leaves no private index behind.
func TestStageOneFailuresKeepTheirVerdict(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, f *fixture) Options
		check func(t *testing.T, cs *ChangedSet, err error)
	}{
		{"git too old", func(t *testing.T, f *fixture) Options {
			return scriptGit(t, oldGit(t))
		}, wantDegraded(ReasonGitTooOld)},
		{"git version fails", func(t *testing.T, f *fixture) Options {
			return scriptGit(t, `[ "$1" = version ] && exit 1; exec `+realGit(t)+` "$@"`+"\n")
		}, wantDegraded(ReasonGitUnavailable)},
		{"git too old and a FIFO at a baseline .gitattributes", func(t *testing.T, f *fixture) Options {
			f.remove("dir/.gitattributes")
			must(t, syscall.Mkfifo(f.path("dir/.gitattributes"), 0o644))
			return scriptGit(t, oldGit(t))
		}, func(t *testing.T, cs *ChangedSet, err error) {
			if !errors.Is(err, ErrUnsafeRepository) {
				t.Errorf("err %v, want ErrUnsafeRepository", err)
			}
		}},
		{"config --list fails (real git otherwise)", func(t *testing.T, f *fixture) Options {
			return scriptGit(t, `for a; do [ "$a" = config ] && exit 7; done; exec `+realGit(t)+` "$@"`+"\n")
		}, func(t *testing.T, cs *ChangedSet, err error) {
			var gf *ErrGitFailed
			if !errors.As(err, &gf) || gf.Cmd != "config" {
				t.Errorf("err %v, want ErrGitFailed from config", err)
			}
		}},
		{".git now leads elsewhere", func(t *testing.T, f *fixture) Options {
			// A copy of the git directory (store included) that .git now names.
			moved := filepath.Join(f.tmp(), "moved.git")
			if out, err := exec.Command("cp", "-a", f.path(".git"), moved).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v %s", err, out)
			}
			f.remove(".git")
			f.write(".git", "gitdir: "+moved+"\n")
			return Options{}
		}, func(t *testing.T, cs *ChangedSet, err error) {
			if err != nil {
				t.Errorf("err %v", err)
				return
			}
			if !containsAll(renderInputs(cs.InputChanges), []string{InputMetadata + " .git"}) {
				t.Errorf("input changes %v lack .git", renderInputs(cs.InputChanges))
			}
		}},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			f := newFixture(t)
			b := f.base(map[string]string{"a": "a\n", "dir/.gitattributes": "*.txt text\n", "dir/c.txt": "c\n"})
			tmp := filepath.Join(f.tmp(), "tmpdir")
			must(t, os.MkdirAll(tmp, 0o755))
			t.Setenv("TMPDIR", tmp)
			takeSnapshot(t, f, f.dir, b, Options{})
			f.write("a", "changed\n")
			f.write("new", "n\n")
			opts := tc.setup(t, f)
			r, err := OpenWith(f.dir, Options{})
			must(t, err)
			st, err := r.GitDirStore("task") // where .git leads now
			must(t, err)
			res := sinceRun(t, f, b, st, opts, 10*time.Second, "", f.path("dir/.gitattributes"))
			if res.blocked {
				t.Errorf("blocked (%s)", res.took)
			}
			tc.check(t, res.cs, res.err)
			if left := privateIndexDirs(tmp); len(left) > 0 {
				t.Errorf("private index directories left behind: %v", left)
			}
		})
	}
}

// TestForgedIndexBlobWhileListing: stage 3 now fails while a long untracked listing is
// still running (many new files) and while the baseline validation may still run. The run's
// error must be ErrObjectStoreModified naming the forged index blob, never the cancellation of
// the listing or of the validation, for a loose forgery, a repack and a shadow pack.
func TestForgedIndexBlobWhileListing(t *testing.T) {
	for _, store := range []string{"loose", "pack", "shadow pack"} {
		t.Run(strings.ReplaceAll(store, " ", "_"), func(t *testing.T) {
			f := newFixture(t)
			f.base(map[string]string{"t.txt": "one\r\ntwo\r\n", "u": "u\n"})
			f.write(".gitattributes", "* text=auto\n")
			b := f.commitAll("attributes")
			tmp := filepath.Join(f.tmp(), "tmpdir")
			must(t, os.MkdirAll(tmp, 0o755))
			t.Setenv("TMPDIR", tmp)
			st := takeSnapshot(t, f, f.dir, b, Options{})
			for i := range 20000 {
				f.write(fmt.Sprintf("new/%02d/u%05d", i%50, i), "u\n")
			}
			f.write("t.txt", "one\ntwo\n")
			other := strings.TrimSpace(f.gitStdin("no carriage return\n", "hash-object", "-w", "--stdin"))
			dst := strings.TrimSpace(f.git("rev-parse", b+":t.txt"))
			forgeIn(f, store, dst, other)
			for i := range 3 {
				before := runtime.NumGoroutine()
				res := sinceRun(t, f, b, st, Options{}, 30*time.Second, "")
				switch {
				case res.blocked:
					t.Errorf("run %d blocked", i)
				case !errors.Is(res.err, ErrObjectStoreModified):
					t.Errorf("run %d: err %v, want ErrObjectStoreModified", i, res.err)
				case !strings.Contains(res.err.Error(), dst):
					t.Errorf("run %d: err %v does not name %s", i, res.err, dst)
				}
				if left := privateIndexDirs(tmp); len(left) > 0 {
					t.Errorf("run %d: private index directories left behind: %v", i, left)
				}
				if g := settledGoroutines(before); g > before {
					t.Errorf("run %d: goroutines %d before, %d after", i, before, g)
				}
			}
		})
	}
}

// TestFIFOsNoSnapshotRunReads: a FIFO where neither ls-files --others (with only the private
// excludes) nor hash-object reads, at a new directory's .gitattributes, an untracked file or
// the global ignore file, is answered at once; one at a file git does read is refused.
func TestFIFOsNoSnapshotRunReads(t *testing.T) {
	cases := []struct {
		name  string
		place func(f *fixture) string
		ok    bool
		want  []string
	}{
		{"new directory .gitattributes", func(f *fixture) string { return f.path("newdir/.gitattributes") }, true, []string{"M a"}},
		{"untracked FIFO file", func(f *fixture) string { return f.path("fifo") }, true, []string{"M a"}},
		{"XDG git/ignore", func(f *fixture) string { return filepath.Join(f.home, ".config", "git", "ignore") }, true, []string{"M a"}},
		{"XDG git/attributes", func(f *fixture) string { return filepath.Join(f.home, ".config", "git", "attributes") }, false, nil},
		{"info/exclude (checkGitDirFiles refuses it)", func(f *fixture) string { return f.path(".git/info/exclude") }, false, nil},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			f := newFixture(t)
			b := stdBase(f)
			st := takeSnapshot(t, f, f.dir, b, Options{})
			f.write("a", "edited\n")
			p := tc.place(f)
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			_ = os.Remove(p)
			must(t, syscall.Mkfifo(p, 0o644))
			res := sinceRun(t, f, b, st, Options{}, 5*time.Second, "", p)
			switch {
			case res.blocked:
				t.Errorf("blocked on %s (%s); err %v", p, res.took, res.err)
			case tc.ok && res.err != nil:
				t.Errorf("err %v, want none", res.err)
			case !tc.ok && !errors.Is(res.err, ErrUnsafeRepository):
				t.Errorf("err %v, want ErrUnsafeRepository", res.err)
			case tc.ok && !containsAll(render(res.cs.Entries), tc.want):
				t.Errorf("entries %v, want %v among them", render(res.cs.Entries), tc.want)
			}
		})
	}
}

// TestTooOldGitVerdictIsStable: a git too old for --end-of-options (2.20's rev-parse fails the
// baseline validation) gives the degraded git_too_old verdict every time, not the validation's
// failure when that finishes first.
func TestTooOldGitVerdictIsStable(t *testing.T) {
	f := newFixture(t)
	b := f.base(map[string]string{"a": "a\n"})
	st := takeSnapshot(t, f, f.dir, b, Options{})
	f.write("a", "changed\n")
	opts := scriptGit(t, `[ "$1" = version ] && { echo 'git version 2.20.1'; exit 0; }
for a; do [ "$a" = --end-of-options ] && { echo "fatal: bad revision '--end-of-options'" >&2; exit 128; }; done
exec `+realGit(t)+` "$@"`+"\n")
	outcomes := map[string]int{}
	for range 20 {
		res := sinceRun(t, f, b, st, opts, 10*time.Second, "")
		switch {
		case res.err == nil && res.cs.Degraded && res.cs.DegradedReason == ReasonGitTooOld:
			outcomes["degraded git_too_old"]++
		case res.err != nil:
			outcomes["error: "+res.err.Error()]++
		default:
			outcomes[fmt.Sprintf("other: degraded=%v reason=%q", res.cs.Degraded, res.cs.DegradedReason)]++
		}
	}
	t.Logf("outcomes: %v", outcomes)
	if outcomes["degraded git_too_old"] != 20 {
		t.Errorf("a too-old git is not always the degraded verdict: %v", outcomes)
	}
}
