package gitscope

import (
	"fmt"
	"path/filepath"
)

// GitDir returns the work tree's own git directory, absolute: root/.git for an ordinary
// repository, the directory a .git file names for a linked worktree (.git/worktrees/<name>), a
// submodule or a --separate-git-dir layout. It reads files only and runs nothing. The controller
// store keys its records by this directory's real path (trust-model.md §3).
func (r *Repo) GitDir() (string, error) {
	gd, _, ok := gitDirOf(r.root)
	if !ok {
		return "", fmt.Errorf("%s: the .git entry does not name a usable git directory: %w", r.root, ErrNotRepository)
	}
	return filepath.Abs(gd)
}
