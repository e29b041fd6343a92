package gitscope

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitDirOf reads a .git file exactly as git's read_gitfile_gently does: the exact prefix
// "gitdir: ", then the rest without trailing CR/LF, verbatim. Before, it took the first line
// trimmed, so `gitdir: A<LF>/x` named A for mastermind and "A<LF>/x" for git: go-git and git
// read different repositories.
func TestGitDirOfReadsGitFileLikeGit(t *testing.T) {
	root, base := t.TempDir(), t.TempDir()
	for _, d := range []string{
		filepath.Join(base, "r/.git"), filepath.Join(root, "rel/.git"), filepath.Join(root, " /r/.git"),
		filepath.Join(base, "r/A\n/x"), filepath.Join(base, "r/.git "),
		filepath.Join(base, "far/x"), filepath.Join(base, "far/real.git"), filepath.Join(root, "real.git"),
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// lnk/../real.git is base/far/real.git to git (the symbolic link is followed before ".."),
	// root/real.git to a lexical reading.
	if err := os.Symlink(filepath.Join(base, "far/x"), filepath.Join(root, "lnk")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		content, want string // want "" = not a git file git accepts
	}{
		{"gitdir: " + base + "/r/.git\n", base + "/r/.git"},
		{"gitdir: " + base + "/r/.git\r\n\r\n", base + "/r/.git"},
		{"gitdir: " + base + "/r/.git", base + "/r/.git"},
		{"gitdir: rel/.git\n", filepath.Join(root, "rel/.git")},
		{"gitdir:  /r/.git\n", filepath.Join(root, " /r/.git")},
		{"gitdir: " + base + "/r/A\n/x\n", base + "/r/A\n/x"},
		{"gitdir: " + base + "/r/.git \n", base + "/r/.git "},
		{"gitdir: lnk/../real.git\n", filepath.Join(base, "far/real.git")},
		{"gitdir: " + base + "/missing/.git\n", ""},
		{"gitdir:" + base + "/r/.git\n", ""},
		{"GITDIR: " + base + "/r/.git\n", ""},
		{" gitdir: " + base + "/r/.git\n", ""},
		{"gitdir: \n", ""},
	} {
		if err := os.WriteFile(filepath.Join(root, ".git"), []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, _, ok := gitDirOf(root)
		if c.want == "" {
			if ok {
				t.Errorf("%q: accepted as %q, git refuses it", c.content, got)
			}
			continue
		}
		if !ok || got != c.want {
			t.Errorf("%q: got %q, %v; want %q", c.content, got, ok, c.want)
		}
	}
}

// End to end: a git directory whose name holds a line break, named by a .git file, with a decoy
// repository at the first line's path. git and go-git must both read the real one.
func TestGitFileWithLineBreakMatchesGit(t *testing.T) {
	f := newFixture(t)
	b := f.base(map[string]string{"a.txt": "a\n", "sub/f.go": "package sub\n"})
	base := t.TempDir()
	real := filepath.Join(base, "A\n", "x")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(f.dir, ".git"), real); err != nil {
		t.Fatal(err)
	}
	// The decoy: an empty repository at the first line's path.
	f.gitIn(base, "init", "-q", filepath.Join(base, "A"))
	decoy := filepath.Join(base, "A", ".git")
	if err := os.WriteFile(filepath.Join(f.dir, ".git"), []byte("gitdir: "+filepath.Join(base, "A")+"\n/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gd := strings.TrimSuffix(f.git("rev-parse", "--git-dir"), "\n")
	if gd != real {
		t.Fatalf("setup: git reads %q, want %q", gd, real)
	}
	got, _, ok := gitDirOf(f.dir)
	if !ok || got != real || got == decoy {
		t.Fatalf("gitDirOf = %q, %v; git reads %q", got, ok, real)
	}
	r, err := Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	if oid, _, err := r.Head(ctx); err != nil || oid != b {
		t.Errorf("Head = %s, %v; want %s", oid, err, b)
	}
	if types, err := r.BaselineEntries(ctx, b, []string{"sub/f.go"}); err != nil || types["sub/f.go"] != EntryBlob {
		t.Errorf("BaselineEntries = %v, %v", types, err)
	}
}

// An honest layout the lexical reading got wrong: a linked worktree whose .git file holds a
// relative gitdir, reached through a symbolic link to the worktree. git resolves the gitdir from
// the link's target; the lexical reading looked next to the link, found no index there, and the
// empty private index made every baseline file look deleted.
func TestRelativeGitdirThroughSymlinkedRoot(t *testing.T) {
	f := newFixture(t)
	b := f.base(map[string]string{"a.txt": "a\n", "d/e.txt": "e\n"})
	wt := filepath.Join(filepath.Dir(f.dir), "wt")
	f.git("worktree", "add", "-q", "--detach", wt)
	abs, _, ok := gitDirOf(wt)
	if !ok {
		t.Fatal("setup: worktree .git unreadable")
	}
	rel, err := filepath.Rel(wt, abs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+rel+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := filepath.Join(t.TempDir(), "deeper", "links")
	if err := os.MkdirAll(links, 0o755); err != nil {
		t.Fatal(err)
	}
	via := filepath.Join(links, "wt")
	if err := os.Symlink(wt, via); err != nil {
		t.Fatal(err)
	}
	if st := f.gitIn(via, "status", "--porcelain"); st != "" {
		t.Fatalf("setup: git sees changes through the link: %q", st)
	}
	r, err := Open(via)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := r.ChangedSet(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	equalLines(t, "changed set through the link", render(cs.Entries), nil)
}
