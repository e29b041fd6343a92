package gitscope

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Refusals in a snapshot run's stage 1, whose checks run in several goroutines (gitscope.md
// §4.6): nothing a check refuses is opened first, and the refusal is the run's answer.

// fifoOpenWatcher reports whether anyone opened the FIFO at p for reading: a blocking
// O_WRONLY open returns only then.
func fifoOpenWatcher(t *testing.T, p string) (opened func() bool) {
	ch := make(chan struct{})
	go func() {
		fd, err := syscall.Open(p, syscall.O_WRONLY, 0)
		if err == nil {
			_ = syscall.Close(fd)
		}
		close(ch)
	}()
	t.Cleanup(func() {
		// release the watcher if nobody did
		if fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			select {
			case <-ch:
			case <-time.After(2 * time.Second):
			}
			_ = syscall.Close(fd)
		}
	})
	return func() bool {
		select {
		case <-ch:
			return true
		case <-time.After(100 * time.Millisecond):
			return false
		}
	}
}

// refusedUnopened runs the snapshot run five times on the FIFO that prepare puts in place for
// each run: every run must be refused within timeout, and none may open the FIFO first.
func refusedUnopened(t *testing.T, f *fixture, b string, st SnapshotStore, timeout time.Duration, what string, prepare func(run int) (fifo string, cleanup func())) {
	t.Helper()
	opened := 0
	for i := range 5 {
		fifo, cleanup := prepare(i)
		was := fifoOpenWatcher(t, fifo)
		res := sinceRun(t, f, b, st, Options{}, timeout, "", fifo)
		if res.blocked || !errors.Is(res.err, ErrUnsafeRepository) {
			t.Errorf("run %d: blocked=%v err=%v, want ErrUnsafeRepository at once", i, res.blocked, res.err)
		}
		if was() {
			opened++
		}
		cleanup()
	}
	if opened > 0 {
		t.Errorf("%s was opened for reading in %d of 5 runs before it was refused", what, opened)
	}
}

// TestFIFONeverOpenedBeforeRefusal: a FIFO at a file both checkReadInputs (stat only) and
// sinceChanges (open) look at must be refused without ever being opened, directly or
// through a symlink: opening it releases an executor process waiting to write
// it, so it learns that post-flight runs and what it reads.
func TestFIFONeverOpenedBeforeRefusal(t *testing.T) {
	for _, rel := range []string{".git/info/attributes", ".git/info/grafts", ".git/objects/info/alternates"} {
		for _, link := range []bool{false, true} {
			name := strings.ReplaceAll(rel, "/", "_")
			if link {
				name += "_symlink"
			}
			t.Run(name, func(t *testing.T) {
				f := newFixture(t)
				b := stdBase(f)
				st := takeSnapshot(t, f, f.dir, b, Options{})
				refusedUnopened(t, f, b, st, 5*time.Second, "the FIFO", func(i int) (string, func()) {
					p := f.path(rel)
					_ = os.Remove(p)
					fifo := p
					if link {
						fifo = filepath.Join(f.tmp(), fmt.Sprintf("fifo%d", i))
						_ = os.Remove(fifo)
						must(t, os.Symlink(fifo, p))
					}
					must(t, os.MkdirAll(filepath.Dir(p), 0o755))
					must(t, syscall.Mkfifo(fifo, 0o644))
					return fifo, func() { _ = os.Remove(fifo); _ = os.Remove(p) }
				})
			})
		}
	}
}

// TestDevicesAndSocketsRefused: a symlink to a character device or a socket, or a socket, at
// each file sinceChanges reads is ErrUnsafeRepository at once.
func TestDevicesAndSocketsRefused(t *testing.T) {
	for _, rel := range []string{".git/info/attributes", ".git/info/grafts", ".git/objects/info/alternates"} {
		for _, kind := range []string{"/dev/zero", "/dev/null", "/dev/tty", "socket", "symlink to socket"} {
			t.Run(strings.ReplaceAll(rel+"_"+kind, "/", "_"), func(t *testing.T) {
				f := newFixture(t)
				b := stdBase(f)
				st := takeSnapshot(t, f, f.dir, b, Options{})
				p := f.path(rel)
				_ = os.Remove(p)
				must(t, os.MkdirAll(filepath.Dir(p), 0o755))
				switch kind {
				case "socket", "symlink to socket":
					sp := p
					if kind != "socket" {
						sp = filepath.Join(f.tmp(), "s.sock")
						must(t, os.Symlink(sp, p))
					}
					l, err := net.Listen("unix", sp)
					if err != nil {
						t.Skipf("socket path too long: %v", err)
					}
					defer l.Close()
				default:
					if _, err := os.Stat(kind); err != nil {
						t.Skip(kind)
					}
					must(t, os.Symlink(kind, p))
				}
				res := sinceRun(t, f, b, st, Options{}, 5*time.Second, "")
				if res.blocked || !errors.Is(res.err, ErrUnsafeRepository) {
					t.Errorf("blocked=%v err=%v, want ErrUnsafeRepository at once", res.blocked, res.err)
				}
			})
		}
	}
}

// TestStageOneFailuresLeaveNothing: every stage-1 failure, with every kind of git, leaves no private
// index directory and no goroutine behind.
func TestStageOneFailuresLeaveNothing(t *testing.T) {
	gits := map[string]func(t *testing.T) Options{
		"real": func(t *testing.T) Options { return Options{} },
		"old":  func(t *testing.T) Options { return scriptGit(t, oldGit(t)) },
		"version fails": func(t *testing.T) Options {
			return scriptGit(t, `[ "$1" = version ] && exit 1; exec `+realGit(t)+` "$@"`+"\n")
		},
		"unavailable": func(t *testing.T) Options { return noGit },
		"config fails": func(t *testing.T) Options {
			return scriptGit(t, `for a; do [ "$a" = config ] && exit 7; done; exec `+realGit(t)+` "$@"`+"\n")
		},
	}
	fifos := map[string]string{".gitmodules": ".gitmodules", "HEAD's ref": ".git/refs/heads/main", "info/grafts": ".git/info/grafts", "none": ""}
	for gname, mk := range gits {
		for fname, rel := range fifos {
			t.Run(strings.ReplaceAll(gname+"_"+fname, " ", "_"), func(t *testing.T) {
				f := newFixture(t)
				b := f.base(map[string]string{"a": "a\n"})
				tmp := filepath.Join(f.tmp(), "tmpdir")
				must(t, os.MkdirAll(tmp, 0o755))
				t.Setenv("TMPDIR", tmp)
				st := takeSnapshot(t, f, f.dir, b, Options{})
				f.write("a", "changed\n")
				f.write("new", "n\n")
				opts := mk(t)
				r, err := OpenWith(f.dir, opts)
				must(t, err)
				r.gitVersion(t.Context()) // the open's question answered before counting
				var fifo string
				if rel != "" {
					fifo = f.path(rel)
					if rel == ".git/refs/heads/main" {
						// packed so that HEAD still resolves for the snapshot's baseline
						f.git("pack-refs", "--all")
					}
					_ = os.Remove(fifo)
					must(t, syscall.Mkfifo(fifo, 0o644))
				}
				time.Sleep(50 * time.Millisecond)
				before := runtime.NumGoroutine()
				res := sinceRun(t, f, b, st, opts, 10*time.Second, "", fifo)
				if res.blocked {
					t.Errorf("blocked (%s) err %v", res.took, res.err)
				}
				if rel != "" && !errors.Is(res.err, ErrUnsafeRepository) {
					t.Errorf("err %v, want ErrUnsafeRepository", res.err)
				}
				if left := append(privateIndexDirs(tmp), privateIndexDirs(f.path(".git"))...); len(left) > 0 {
					t.Errorf("private index directories left behind: %v", left)
				}
				if g := settledGoroutines(before); g > before {
					t.Errorf("goroutines: %d before, %d after", before, g)
				}
			})
		}
	}
}

// TestVersionPerBinary: two Repos of one process with different gits, opened and run
// at once, each get their own git's verdict.
func TestVersionPerBinary(t *testing.T) {
	f := newFixture(t)
	b := f.base(map[string]string{"a": "a\n"})
	st := takeSnapshot(t, f, f.dir, b, Options{})
	f.write("a", "changed\n")
	old := scriptGit(t, oldGit(t))
	for i := range 5 {
		type out struct {
			deg bool
			err error
		}
		ch := make(chan out, 2)
		for _, o := range []Options{old, {}} {
			go func() {
				cs, err := since(t, f.dir, b, st, o)
				ch <- out{err == nil && cs.Degraded && cs.DegradedReason == ReasonGitTooOld, err}
			}()
		}
		a, c := <-ch, <-ch
		if a.err != nil || c.err != nil || a.deg == c.deg {
			t.Errorf("run %d: %+v %+v, want one degraded git_too_old and one not", i, a, c)
		}
	}
}

// TestRefusalWinsOverGitErrors: a FIFO only checkReadInputs refuses (.gitmodules) beside a
// failure another goroutine or git meets first is still ErrUnsafeRepository.
func TestRefusalWinsOverGitErrors(t *testing.T) {
	for _, other := range []string{"info/attributes too large", "TMPDIR missing", "malformed config"} {
		t.Run(strings.ReplaceAll(other, " ", "_"), func(t *testing.T) {
			f := newFixture(t)
			b := stdBase(f)
			st := takeSnapshot(t, f, f.dir, b, Options{})
			switch other {
			case "malformed config":
				cfg, err := os.ReadFile(f.path(".git/config"))
				must(t, err)
				f.write(".git/config", string(cfg)+"[core\n\tbroken = \n")
			case "TMPDIR missing":
				t.Setenv("TMPDIR", filepath.Join(f.tmp(), "no-such-dir"))
			default:
				f.write(".git/info/attributes", strings.Repeat("x", 5<<20))
			}
			must(t, syscall.Mkfifo(f.path(".gitmodules"), 0o644))
			outcomes := map[string]int{}
			for range 10 {
				res := sinceRun(t, f, b, st, Options{}, 5*time.Second, "", f.path(".gitmodules"))
				switch {
				case res.blocked:
					outcomes["blocked"]++
				case errors.Is(res.err, ErrUnsafeRepository):
					outcomes["unsafe"]++
				default:
					outcomes[fmt.Sprint(res.err)]++
				}
			}
			t.Logf("%v", outcomes)
			if outcomes["unsafe"] != 10 {
				t.Errorf("not always ErrUnsafeRepository: %v", outcomes)
			}
		})
	}
}

// slowFIFOInclude adds two includes to the repository's configuration: a long file, which
// makes checkReadInputs take a while, then a FIFO, which it refuses. It returns the FIFO.
func slowFIFOInclude(t *testing.T, f *fixture) string {
	var big strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&big, "[s%d]\n\tk = v%d\n", i, i)
	}
	f.write("big.cfg", big.String())
	must(t, syscall.Mkfifo(f.path("inc-fifo"), 0o644))
	f.git("config", "--add", "include.path", f.path("big.cfg"))
	f.git("config", "--add", "include.path", f.path("inc-fifo"))
	return f.path("inc-fifo")
}

// TestFIFOIncludeNeverOpened: no git command of the snapshot view (HEAD's lookup included)
// starts before checkReadInputs has refused a FIFO among the configuration's includes.
func TestFIFOIncludeNeverOpened(t *testing.T) {
	f := newFixture(t)
	b := f.base(map[string]string{"a": "a\n"})
	st := takeSnapshot(t, f, f.dir, b, Options{})
	fifo := slowFIFOInclude(t, f)
	refusedUnopened(t, f, b, st, 10*time.Second, "the FIFO include", func(int) (string, func()) {
		return fifo, func() {}
	})
}

// TestRefusalBeforeConfigList: config --list waits for checkReadInputs, so a FIFO among the
// configuration's includes, refused only after a long include was read, is the run's answer
// and not a git config that fails at once.
func TestRefusalBeforeConfigList(t *testing.T) {
	f := newFixture(t)
	b := f.base(map[string]string{"a": "a\n"})
	st := takeSnapshot(t, f, f.dir, b, Options{})
	fifo := slowFIFOInclude(t, f)
	opts := scriptGit(t, `for a; do [ "$a" = config ] && exit 7; done; exec `+realGit(t)+` "$@"`+"\n")
	for i := range 5 {
		res := sinceRun(t, f, b, st, opts, 10*time.Second, "", fifo)
		if res.blocked || !errors.Is(res.err, ErrUnsafeRepository) {
			t.Errorf("run %d: blocked=%v err=%v, want ErrUnsafeRepository", i, res.blocked, res.err)
		}
	}
}
