package gitscope

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestPrivateIndexNotInWorkTree: with TMPDIR inside the work tree (as testscript and some users
// set it), the private index copy must not show up in the changed set or stay behind.
func TestPrivateIndexNotInWorkTree(t *testing.T) {
	f := newFixture(t)
	baseline := f.base(map[string]string{"a.txt": "a\n"})
	tmp := f.path("tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	f.write("tmp/.gitignore", "") // an empty file: tmp/ itself is an untracked change
	t.Setenv("TMPDIR", tmp)
	repo, err := Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		cs, err := repo.ChangedSet(context.Background(), baseline)
		if err != nil {
			t.Fatal(err)
		}
		equalLines(t, "changed set", render(cs.Entries), []string{"? tmp/.gitignore"})
	}
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 1 {
		t.Fatalf("the private index must not be left in TMPDIR: %v", entries)
	}
	if within(f.dir, "/") || !within(f.dir, filepath.Join(f.dir, "x", "y")) {
		t.Fatal("within")
	}
}
