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
	root := t.TempDir()
	for _, c := range []struct {
		content, want string // want "" = not a git file git accepts
	}{
		{"gitdir: /r/.git\n", "/r/.git"},
		{"gitdir: /r/.git\r\n\r\n", "/r/.git"},
		{"gitdir: /r/.git", "/r/.git"},
		{"gitdir: rel/.git\n", filepath.Join(root, "rel/.git")},
		{"gitdir:  /r/.git\n", filepath.Join(root, " /r/.git")},
		{"gitdir: /r/A\n/x\n", "/r/A\n/x"},
		{"gitdir: /r/.git \n", "/r/.git "},
		{"gitdir:/r/.git\n", ""},
		{"GITDIR: /r/.git\n", ""},
		{" gitdir: /r/.git\n", ""},
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
