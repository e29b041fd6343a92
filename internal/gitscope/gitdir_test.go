package gitscope

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

func TestGitDirAndIsAncestor(t *testing.T) {
	f := newFixture(t)
	c1 := f.base(map[string]string{"a": "1"})
	f.write("a", "2")
	c2 := f.commitAll("two")
	f.git("checkout", "-q", "-b", "side", c1)
	f.write("b", "3")
	side := f.commitAll("side")
	r, err := Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	gd, err := r.GitDir()
	if err != nil || gd != filepath.Join(f.dir, ".git") {
		t.Fatalf("GitDir = %q, %v", gd, err)
	}
	wt := filepath.Join(f.tmp(), "linked")
	f.git("worktree", "add", "-q", wt, c2)
	lr, err := Open(wt)
	if err != nil {
		t.Fatal(err)
	}
	lgd, err := lr.GitDir()
	if err != nil {
		t.Fatal(err)
	}
	if real, _ := filepath.EvalSymlinks(lgd); filepath.Dir(real) != mustEval(t, filepath.Join(f.dir, ".git", "worktrees")) {
		t.Fatalf("a linked worktree's GitDir is its own: %s", lgd)
	}
	ctx := context.Background()
	for _, tt := range []struct {
		a, d string
		want bool
	}{
		{c1, c2, true}, {c2, c2, true}, {c2, c1, false}, {c1, side, true}, {c2, side, false}, {EmptyTreeOID, c1, true},
	} {
		got, err := r.IsAncestor(ctx, tt.a, tt.d)
		if err != nil || got != tt.want {
			t.Errorf("IsAncestor(%.7s, %.7s) = %v, %v; want %v", tt.a, tt.d, got, err, tt.want)
		}
	}
	if _, err := r.IsAncestor(ctx, "0123456789012345678901234567890123456789", c1); !errors.Is(err, ErrBaselineUnavailable) {
		t.Fatalf("unknown commit: %v", err)
	}
}

func mustEval(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
