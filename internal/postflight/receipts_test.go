package postflight

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// TestReceiptsDir: the receipts live in the controller store of trust-model.md §3, keyed by the
// real path of the work tree's own git directory (a linked worktree's .git file is followed),
// never inside the work tree.
func TestReceiptsDir(t *testing.T) {
	root := t.TempDir()
	gitDir := filepath.Join(root, ".git")
	if err := os.Mkdir(gitDir, 0o755); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(gitDir)
	sum := sha256.Sum256([]byte(real))
	id := hex.EncodeToString(sum[:])
	task := Task{Root: root, Name: "001-x"}

	state := t.TempDir()
	t.Setenv("MASTERMIND_STATE_DIR", state)
	got, err := ReceiptsDir(task)
	if want := filepath.Join(state, "repos", id, "tasks", "001-x", "receipts"); err != nil || got != want {
		t.Errorf("MASTERMIND_STATE_DIR: %q %v, want %q", got, err, want)
	}
	t.Setenv("MASTERMIND_STATE_DIR", "")
	xdg := t.TempDir()
	t.Setenv("XDG_STATE_HOME", xdg)
	if got, err := ReceiptsDir(task); err != nil || got != filepath.Join(xdg, "mastermind", "repos", id, "tasks", "001-x", "receipts") {
		t.Errorf("XDG_STATE_HOME: %q %v", got, err)
	}
	t.Setenv("XDG_STATE_HOME", "")
	home := t.TempDir()
	t.Setenv("HOME", home)
	if got, err := ReceiptsDir(task); err != nil || got != filepath.Join(home, ".local", "state", "mastermind", "repos", id, "tasks", "001-x", "receipts") {
		t.Errorf("HOME: %q %v", got, err)
	}

	// A linked worktree: .git is a file naming the worktree's own git directory.
	wt := t.TempDir()
	own := filepath.Join(root, ".git", "worktrees", "wt")
	if err := os.MkdirAll(own, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+own+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	realOwn, _ := filepath.EvalSymlinks(own)
	sum = sha256.Sum256([]byte(realOwn))
	if got, err := ReceiptsDir(Task{Root: wt, Name: "001-x"}); err != nil || filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(got)))) != hex.EncodeToString(sum[:]) {
		t.Errorf("linked worktree: %q %v", got, err)
	}
	// Not a repository: an error, not a folder inside the work tree.
	if _, err := ReceiptsDir(Task{Root: t.TempDir(), Name: "001-x"}); err == nil {
		t.Error("no .git gave a receipts folder")
	}
}
