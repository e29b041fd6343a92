//go:build unix

package fsx

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestContentIDs reads a real work tree with one entry of every kind, grouped by directory as
// a sorted changed set is: the ids name what is there without following any symlink.
func TestContentIDs(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write := func(rel, data string) { writeTreeFile(t, root, rel, data) }
	write("a.txt", "hello\n")
	write("d/b.txt", "hello\n")
	write("d/c.txt", "other\n")
	write("d/nested/.git/HEAD", "ref: refs/heads/main\n")
	write("notdir", "x")
	write("d/run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(root, "d", "run.sh"), 0o744); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b.txt", filepath.Join(root, "d", "link")); err != nil {
		t.Fatal(err)
	}
	forged := "b.txt\nfile modified " + SHA256Hex([]byte("x")) + ` "a.txt"`
	if err := os.Symlink(forged, filepath.Join(root, "d", "nl")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "d", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := []string{"a.txt", "d/b.txt", "d/c.txt", "d/gone.txt", "d/link", "d/nested", "d/nl", "d/pipe", "d/run.sh", "missing/x", "notdir/x", "out/secret.txt"}
	ids, err := ContentIDs(root, paths)
	if err != nil {
		t.Fatal(err)
	}
	hello := SHA256Hex([]byte("hello\n"))
	want := map[string]string{
		"a.txt": hello, "d/b.txt": hello, "d/c.txt": SHA256Hex([]byte("other\n")), "d/gone.txt": "-",
		"d/link": "link:" + SHA256Hex([]byte("b.txt")), "d/nested": ContentRepoUnresolved, "d/pipe": "special:p---------",
		"d/nl": "link:" + SHA256Hex([]byte(forged)), "d/run.sh": "exec:" + SHA256Hex([]byte("#!/bin/sh\n")),
		"missing/x": "-", "notdir/x": "-", "out/secret.txt": "via-link",
	}
	for i, p := range paths {
		if ids[i] != want[p] {
			t.Errorf("%s: id %q, want %q", p, ids[i], want[p])
		}
		// The by-path reader (a directory that cannot be opened) gives every kind the same id.
		if id, err := ContentID(root, p); err != nil || id != want[p] {
			t.Errorf("%s: by path id %q (%v), want %q", p, id, err, want[p])
		}
	}
}

// TestDirID: a directory holding a .git entry has the id of the commit its HEAD points at, read
// as git reads it (a gitdir file, a loose or packed branch, a detached HEAD, a linked worktree's
// own HEAD); one whose HEAD cannot be resolved is ContentRepoUnresolved; any other directory is
// ContentDir. No id of a directory is ContentStable: uncommitted files are not read.
func TestDirID(t *testing.T) {
	root := t.TempDir()
	write := func(rel, data string) { writeTreeFile(t, root, rel, data) }
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 64)
	write("plain/x.txt", "x")
	write("detached/.git/HEAD", a+"\n")
	write("loose/.git/HEAD", "ref: refs/heads/main\n")
	write("loose/.git/refs/heads/main", b+"\n")
	write("packed/.git/HEAD", "ref: refs/heads/main\n")
	write("packed/.git/packed-refs", "# pack-refs with: peeled fully-peeled sorted\n"+a+" refs/heads/other\n"+b+" refs/heads/main\n^"+a+"\n")
	// A submodule: .git is a file naming the superproject's modules/<name>.
	write("super/.git/modules/sub/HEAD", "ref: refs/heads/dev\n")
	write("super/.git/modules/sub/refs/heads/dev", a+"\n")
	write("super/sub/.git", "gitdir: ../.git/modules/sub\n")
	// A linked worktree: its own HEAD, the branches in the common directory.
	write("main/.git/refs/heads/wt", b+"\n")
	write("main/.git/worktrees/wt/HEAD", "ref: refs/heads/wt\n")
	write("main/.git/worktrees/wt/commondir", "../..\n")
	write("wt/.git", "gitdir: "+filepath.Join(root, "main/.git/worktrees/wt")+"\n")
	write("unborn/.git/HEAD", "ref: refs/heads/main\n")
	write("escape/.git/HEAD", "ref: refs/../../../etc/passwd\n")
	write("badfile/.git", "not a gitdir line\n")
	write("garbage/.git/HEAD", "hello\n")
	// Forms git reads too (refs/files-backend.c): a commit followed by whitespace and anything,
	// "ref:" without the space or with more, upper-case hex (hardening.md X7).
	write("spaced/.git/HEAD", a+" x\n")
	write("nospace/.git/HEAD", "ref:refs/heads/main\n")
	write("nospace/.git/refs/heads/main", b+"\t\n")
	write("tabbed/.git/HEAD", "ref: \t refs/heads/main \r\n")
	write("tabbed/.git/refs/heads/main", strings.ToUpper(b)+"\n")
	write("glued/.git/HEAD", a+"x\n")
	// A loose ref that is a symbolic link (git follows it) is not read, and packed-refs is not
	// consulted in its place: its entry can name another commit.
	write("linkref/.git/HEAD", "ref: refs/heads/main\n")
	write("linkref/.git/packed-refs", a+" refs/heads/main\n")
	write("linkref/elsewhere", b+"\n")
	if err := os.MkdirAll(filepath.Join(root, "linkref/.git/refs/heads"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "linkref/elsewhere"), filepath.Join(root, "linkref/.git/refs/heads/main")); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{
		"spaced": "repo:" + a, "nospace": "repo:" + b, "tabbed": "repo:" + b, "glued": ContentRepoUnresolved,
		"linkref": ContentRepoUnresolved,
		"plain":   ContentDir, "detached": "repo:" + a, "loose": "repo:" + b, "packed": "repo:" + b,
		"super/sub": "repo:" + a, "wt": "repo:" + b, "unborn": ContentRepoUnresolved,
		"escape": ContentRepoUnresolved, "badfile": ContentRepoUnresolved, "garbage": ContentRepoUnresolved,
	} {
		id, err := ContentID(root, rel)
		if err != nil || id != want {
			t.Errorf("%s: id %q (%v), want %q", rel, id, err, want)
		}
		if ContentStable(id) {
			t.Errorf("%s: %q is stable", rel, id)
		}
	}
	// A FIFO as HEAD is never opened for a blocking read.
	if err := os.Remove(filepath.Join(root, "detached/.git/HEAD")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "detached/.git/HEAD"), 0o644); err != nil {
		t.Fatal(err)
	}
	if id, err := ContentID(root, "detached"); err != nil || id != ContentRepoUnresolved {
		t.Errorf("a FIFO HEAD: %q (%v)", id, err)
	}
}

// TestContentIDsUnreadableDirectory: a directory that can be searched but not listed (mode 0311)
// cannot be opened as a handle, yet git reads the files in it; their content ids are still read
// (by path, no symlink followed), so a post-flight neither fails nor misses a change there. Root
// reads every directory, so the test needs another user (run the test binary as one, e.g. with
// setpriv --reuid=nobody).
func TestContentIDsUnreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory; run as another user")
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "d", "f.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "d"), 0o311); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "d"), 0o755) })
	ids, err := ContentIDs(root, []string{"d/f.txt"})
	if err != nil {
		t.Fatalf("ContentIDs: %v", err)
	}
	if want := SHA256Hex([]byte("hello\n")); ids[0] != want {
		t.Fatalf("id %q, want %q", ids[0], want)
	}
}

// TestContentStable: only an id that pins the content (a file's or link target's hash, absent)
// is stable; a directory, a special file, a path behind a link, a race or an error is not.
func TestContentStable(t *testing.T) {
	h := SHA256Hex([]byte("x"))
	for id, want := range map[string]bool{
		h: true, "exec:" + h: true, "link:" + h: true, ContentAbsent: true,
		ContentDir: false, ContentViaLink: false, "special:p---------": false, "link:changed": false,
		"special:changed": false, "error:permission denied": false, h[1:]: false, "exec:link:" + h: false,
		"link:" + strings.ToUpper(h): false, "": false,
	} {
		if ContentStable(id) != want {
			t.Errorf("ContentStable(%q) = %v, want %v", id, !want, want)
		}
	}
}

// writeTreeFile writes data to root/rel, creating its directories.
func writeTreeFile(t *testing.T, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
