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
	done := make(chan error, 2)
	go func() {
		_, err := r.BaselineEntries(ctx, b, []string{"a.txt"})
		done <- err
	}()
	go func() {
		_, _, err := r.BaselineBlob(ctx, b, "a.txt")
		done <- err
	}()
	for range 2 {
		select {
		case err := <-done:
			if !errors.Is(err, errNotRegularGitFile) {
				t.Errorf("read through a FIFO object: %v, want %v", err, errNotRegularGitFile)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("go-git blocked on a FIFO object")
		}
	}
}
