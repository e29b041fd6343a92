package gitscope

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A --shared clone borrows its objects through objects/info/alternates, where go-git finds
// none: before, every baseline tree and blob looked missing (declared creations became
// creation_baseline_unavailable, claims unresolved). Now the git CLI reads them, and the
// degraded mode names the layout.
func TestSharedCloneBaselineObjects(t *testing.T) {
	f := newFixture(t)
	b := f.base(map[string]string{"a.txt": "a\n", "d/e.txt": "e\n"})
	clone := filepath.Join(t.TempDir(), "clone")
	f.gitIn(filepath.Dir(clone), "clone", "-q", "--shared", f.dir, clone)
	if _, err := os.Stat(filepath.Join(clone, ".git", "objects", "info", "alternates")); err != nil {
		t.Fatal("setup: no alternates file:", err)
	}
	if err := os.WriteFile(filepath.Join(clone, "new.txt"), []byte("n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(clone)
	if err != nil {
		t.Fatal(err)
	}
	types, err := r.BaselineEntries(ctx, b, []string{"a.txt", "d/e.txt", "d", "new.txt"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]EntryType{"a.txt": EntryBlob, "d/e.txt": EntryBlob, "d": EntryTree, "new.txt": EntryAbsent}
	for p, w := range want {
		if types[p] != w {
			t.Errorf("BaselineEntries[%s] = %q, want %q", p, types[p], w)
		}
	}
	data, ok, err := r.BaselineBlob(ctx, b, "d/e.txt")
	if err != nil || !ok || string(data) != "e\n" {
		t.Errorf("BaselineBlob = %q, %v, %v", data, ok, err)
	}
	if oid, unborn, err := r.Head(ctx); err != nil || unborn || oid != b {
		t.Errorf("Head = %s, %v, %v", oid, unborn, err)
	}
	cs, err := r.ChangedSet(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	equalLines(t, "changed set", render(cs.Entries), []string{"? new.txt"})

	noGit, err := OpenWith(clone, Options{LookPath: func(string) (string, error) { return "", exec.ErrNotFound }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noGit.ChangedSet(ctx, b); err == nil || !strings.Contains(err.Error(), "alternates") {
		t.Errorf("degraded mode on a shared clone: %v", err)
	}
}

// A FIFO at a loose object go-git reads is refused at once instead of blocking the audit
// forever (go-git has no timeout).
func TestGoGitRefusesSpecialObjectFiles(t *testing.T) {
	f := newFixture(t)
	b := f.base(map[string]string{"a.txt": "a\n"})
	// Both ids first: git itself blocks on the FIFO (its commands are bounded by gitTimeout).
	oids := strings.Fields(f.git("rev-parse", b+"^{tree}", b+":a.txt"))
	for _, oid := range oids {
		p := filepath.Join(f.dir, ".git", "objects", oid[:2], oid[2:])
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("setup: %s is not a loose object: %v", oid, err)
		}
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
	}
	r, err := Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	// BaselineEntries reads through go-git only without git (with git, ls-tree reads, bounded by
	// gitTimeout like every git command).
	noGit, err := OpenWith(f.dir, Options{LookPath: func(string) (string, error) { return "", exec.ErrNotFound }})
	if err != nil {
		t.Fatal(err)
	}
	wantErrWithin(t, "read through a FIFO object", errNotRegularGitFile,
		func() error { _, err := noGit.BaselineEntries(ctx, b, []string{"a.txt"}); return err },
		func() error { _, _, err := r.BaselineBlob(ctx, b, "a.txt"); return err })
}

// wantErrWithin runs every call concurrently and requires each to return an error wrapping want
// within 20 seconds; a call that blocks (a FIFO read) fails the test instead of hanging it.
func wantErrWithin(t *testing.T, what string, want error, calls ...func() error) {
	t.Helper()
	done := make(chan error, len(calls))
	for _, call := range calls {
		go func() { done <- call() }()
	}
	for range calls {
		select {
		case err := <-done:
			if !errors.Is(err, want) {
				t.Errorf("%s: %v, want %v", what, err, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: blocked", what)
		}
	}
}

// Discover (no --root) opens go-git the same hardened way as Open: before, it used go-git's
// PlainOpen, so the FIFO and alternates fixes above held only with --root.
func TestDiscoverOpensGoGitHardened(t *testing.T) {
	f := newFixture(t)
	b := f.base(map[string]string{"a.txt": "a\n", "d/e.txt": "e\n"})
	clone := filepath.Join(t.TempDir(), "clone")
	f.gitIn(filepath.Dir(clone), "clone", "-q", "--shared", f.dir, clone)
	r, err := Discover(filepath.Join(clone, "d"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Root() != clone {
		t.Errorf("Root = %s, want %s", r.Root(), clone)
	}
	if types, err := r.BaselineEntries(ctx, b, []string{"d/e.txt"}); err != nil || types["d/e.txt"] != EntryBlob {
		t.Errorf("shared clone through Discover: %v %v", types, err)
	}

	oid := strings.TrimSpace(f.git("rev-parse", b+"^{tree}"))
	p := filepath.Join(f.dir, ".git", "objects", oid[:2], oid[2:])
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	r, err = Discover(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	wantErrWithin(t, "FIFO tree object through Discover", errNotRegularGitFile,
		func() error { _, _, err := r.BaselineBlob(ctx, b, "a.txt"); return err })
}

// A baseline tree object that cannot be read is an error, never an absent path: an executor that
// deletes the object of a baseline directory (or hides it behind objects/info/alternates) must
// not make the files in it look new to the creates check and to function_added claims. Both
// readers: go-git, and git ls-tree / cat-file (a shared clone, which go-git leaves to the CLI).
func TestUnreadableBaselineTreeIsError(t *testing.T) {
	f := newFixture(t)
	b := f.base(map[string]string{"sub/f.go": "package sub\n", "top.txt": "t\n"})
	subOID := strings.TrimSpace(f.git("rev-parse", b+":sub"))
	clone := filepath.Join(t.TempDir(), "clone")
	f.gitIn(filepath.Dir(clone), "clone", "-q", "--shared", f.dir, clone)
	// The object disappears from the store both repositories read.
	if err := os.Remove(filepath.Join(f.dir, ".git", "objects", subOID[:2], subOID[2:])); err != nil {
		t.Fatal(err)
	}
	noGit := Options{LookPath: func(string) (string, error) { return "", exec.ErrNotFound }}
	for _, c := range []struct {
		name, dir string
		opts      Options
	}{
		{"go-git (no git binary)", f.dir, noGit},
		{"git ls-tree, go-git blob", f.dir, Options{}},
		{"git ls-tree and cat-file (shared clone)", clone, Options{}},
	} {
		name := c.name
		r, err := OpenWith(c.dir, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if types, err := r.BaselineEntries(ctx, b, []string{"top.txt", "sub/f.go"}); err == nil {
			t.Errorf("%s: BaselineEntries = %v, want an error for the unreadable sub tree", name, types)
		}
		if data, ok, err := r.BaselineBlob(ctx, b, "sub/f.go"); err == nil {
			t.Errorf("%s: BaselineBlob = %q %v, want an error", name, data, ok)
		}
		// Paths outside the unreadable tree still resolve.
		if c.opts.LookPath != nil {
			// The walker keeps failing below the unreadable tree (an error is never cached as absent).
			gg, release, err := r.goGit()
			if err != nil {
				t.Fatal(err)
			}
			root, err := baselineTree(gg, b)
			if err != nil {
				t.Fatal(err)
			}
			w := newTreeWalker(gg, root)
			for range 2 {
				if e, err := w.entry("sub/deeper/x.go"); err == nil {
					t.Errorf("%s: walker entry below the unreadable tree = %v, want an error", name, e)
				}
			}
			release()
		}
		if types, err := r.BaselineEntries(ctx, b, []string{"top.txt", "nodir/x"}); err != nil || types["top.txt"] != EntryBlob || types["nodir/x"] != EntryAbsent {
			t.Errorf("%s: readable paths: %v %v", name, types, err)
		}
	}
}

// Degraded mode reads a submodule's HEAD through openGoGit as well: a FIFO there blocked go-git's
// PlainOpen forever (and, holding the go-git lock, every other reader of the run).
func TestDegradedSubmoduleFIFOHead(t *testing.T) {
	f := newFixture(t)
	b := withSubmodule(f)
	gd, _, ok := gitDirOf(f.path("sub"))
	if !ok {
		t.Fatal("setup: no submodule git dir")
	}
	head := filepath.Join(gd, "HEAD")
	if err := os.Remove(head); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(head, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	r, err := OpenWith(f.dir, Options{LookPath: func(string) (string, error) { return "", exec.ErrNotFound }})
	if err != nil {
		t.Fatal(err)
	}
	wantErrWithin(t, "degraded changed set with a FIFO submodule HEAD", ErrUnsafeRepository,
		func() error { _, err := r.ChangedSet(ctx, b); return err })
}

// Discover from inside .git (or a submodule's git directory under .git/modules) is refused: git
// would not audit the enclosing work tree from there.
func TestDiscoverInsideGitDir(t *testing.T) {
	f := newFixture(t)
	withSubmodule(f)
	for _, dir := range []string{".git", ".git/refs", ".git/modules/sub"} {
		if _, err := Discover(f.path(dir)); !errors.Is(err, ErrNotRepository) || !strings.Contains(err.Error(), "inside the git directory") {
			t.Errorf("Discover(%s) = %v", dir, err)
		}
	}
	if r, err := Discover(f.path("sub")); err != nil || r.Root() != f.path("sub") {
		t.Errorf("Discover(sub) = %v, %v", r, err)
	}
}
