package gitscope

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInitScratch(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := InitScratch(ctx, dir); err != nil {
		t.Fatal(err)
	}
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, unborn, err := repo.Head(ctx)
	if err != nil || unborn || len(head) != 40 {
		t.Fatalf("Head = %q, %v, %v; want one commit", head, unborn, err)
	}
	cs, err := repo.ChangedSet(ctx, head)
	if err != nil || len(cs.Entries) != 0 {
		t.Fatalf("a fresh scratch repository must be clean: %+v, %v", cs, err)
	}
	// A second call must refuse to reuse the repository.
	if err := InitScratch(ctx, dir); err == nil || !strings.Contains(err.Error(), "already holds a git repository") {
		t.Fatalf("second InitScratch: %v", err)
	}
}
