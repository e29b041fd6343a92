package gitscope

import (
	"context"
	"errors"
)

func (r *Repo) degradedChangedSet(ctx context.Context, baseline, reason string) (*ChangedSet, error) {
	return nil, errors.New("degraded: not yet implemented")
}

func isSHA256(root string) bool { return false }

// ListFiles returns tracked plus untracked non-ignored files.
func (r *Repo) ListFiles(ctx context.Context) ([]string, error) { return nil, errors.New("todo") }

// DiffStat returns the release-notes diff stat.
func (r *Repo) DiffStat(ctx context.Context, baseline string) (string, error) {
	return "", errors.New("todo")
}
