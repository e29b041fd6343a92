package gitscope

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
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

// SameRepository reports whether r and o are work trees of one repository: their common git
// directories are the same (a linked worktree and its main checkout are). It reads files only.
func (r *Repo) SameRepository(o *Repo) bool {
	_, a, ok := gitDirOf(r.root)
	_, b, ok2 := gitDirOf(o.root)
	return ok && ok2 && a == b
}

// IsAncestor reports whether the commit ancestor is reachable from the commit descendant (a commit
// is its own ancestor). EmptyTreeOID, the baseline of a repository without commits, is an
// ancestor of every commit. Both must be full object ids; one that is not a commit in the
// repository wraps ErrBaselineUnavailable. `run-task --pre-only --adopt` uses it to accept a
// state.json mirror's baseline only when HEAD descends from it.
func (r *Repo) IsAncestor(ctx context.Context, ancestor, descendant string) (bool, error) {
	if !IsFullOID(ancestor) || !IsFullOID(descendant) {
		return false, fmt.Errorf("%q or %q is not a full 40-hex object id: %w", ancestor, descendant, ErrBaselineUnavailable)
	}
	if ancestor == EmptyTreeOID {
		return true, nil
	}
	gg, release, err := r.goGit()
	defer release()
	if err != nil {
		return false, r.layoutError(err)
	}
	a, err := gg.CommitObject(plumbing.NewHash(ancestor))
	if err != nil {
		return false, fmt.Errorf("commit %s: %w", ancestor, ErrBaselineUnavailable)
	}
	d, err := gg.CommitObject(plumbing.NewHash(descendant))
	if err != nil {
		return false, fmt.Errorf("commit %s: %w", descendant, ErrBaselineUnavailable)
	}
	if a.Hash == d.Hash {
		return true, nil
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return a.IsAncestor(d)
}
