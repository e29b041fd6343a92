package postflight

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// TestContentIDs reads a real work tree with one entry of every kind, grouped by directory as
// a sorted changed set is: the ids name what is there without following any symlink.
func TestContentIDs(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "hello\n")
	write("d/b.txt", "hello\n")
	write("d/c.txt", "other\n")
	write("d/nested/.git/HEAD", "ref: refs/heads/main\n")
	write("notdir", "x")
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b.txt", filepath.Join(root, "d", "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "d", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := []string{"a.txt", "d/b.txt", "d/c.txt", "d/gone.txt", "d/link", "d/nested", "d/pipe", "missing/x", "notdir/x", "out/secret.txt"}
	d := make([]gitscope.Entry, len(paths))
	for i, p := range paths {
		d[i] = gitscope.Entry{Path: []byte(p), Status: gitscope.StatusModified, UTF8: true}
	}
	ids, err := contentIDs(root, d)
	if err != nil {
		t.Fatal(err)
	}
	hello := sha256Hex([]byte("hello\n"))
	want := map[string]string{
		"a.txt": hello, "d/b.txt": hello, "d/c.txt": sha256Hex([]byte("other\n")), "d/gone.txt": "-",
		"d/link": "link:" + sha256Hex([]byte("b.txt")), "d/nested": "dir", "d/pipe": "special:p---------",
		"missing/x": "-", "notdir/x": "-", "out/secret.txt": "via-link",
	}
	for i, p := range paths {
		if ids[i] != want[p] {
			t.Errorf("%s: id %q, want %q", p, ids[i], want[p])
		}
	}
}
