package gitscope

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// degradedSince is ChangedSetSince without a usable git, keeping the rules of gitscope.md §4.6
// "Degraded mode" or refusing where it cannot. changes, the input comparisons already made, are
// reported all the same.
func (r *Repo) degradedSince(ctx context.Context, s *inputsSnapshot, store SnapshotStore, depth int, changes []InputChange, reason string, objs *auditObjects) (*ChangedSet, error) {
	for _, sub := range s.Subs {
		if sub.Populated {
			return nil, fmt.Errorf("no usable git binary (%s): the content of submodule %s cannot be audited against its pre-flight snapshot by the built-in reader; install git 2.24 or later", reason, sub.Path)
		}
	}
	gitDir, commonDir, _ := gitDirOf(r.root)
	for _, c := range []struct{ role, path string }{
		{roleConfig, filepath.Join(commonDir, "config")},
		{roleConfigWorktree, filepath.Join(gitDir, "config.worktree")},
	} {
		ch, err := compareFile(s.file(c.role), InputConfig, ".git/"+c.role, c.path)
		if err != nil {
			return nil, err
		}
		if ch != nil {
			changes = append(changes, *ch)
		}
	}
	if _, err := objs.locations(ctx); err != nil {
		return nil, err
	}
	gg, release, err := r.goGit()
	defer release()
	if err != nil {
		return nil, r.layoutError(err)
	}
	base, err := flattenBaseline(gg, s.Baseline)
	if err != nil {
		return nil, err
	}
	idx := &index.Index{Version: 2}
	if s.IndexPresent {
		rc, err := store.Open(SnapshotIndex)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, ErrNoSnapshot
			}
			return nil, err
		}
		err = index.NewDecoder(io.LimitReader(rc, maxIndexBytes)).Decode(idx)
		rc.Close()
		if err != nil {
			return nil, r.layoutError(fmt.Errorf("%w (reading the index snapshot: %v)", ErrUnsupportedRepository, err))
		}
	}
	fileMode := true
	if cfg := s.file(roleConfig); cfg.Present {
		if c := parseConfigBytes(cfg.Data); c != nil && strings.EqualFold(c.Section("core").Option("filemode"), "false") {
			fileMode = false
		}
	}
	ps := preflightPatterns(s)
	if ps == nil {
		ps = []gitignorePattern{}
	}
	entries, err := r.degradedCompare(ctx, base, idx, fileMode, time.Unix(0, s.IndexMtimeNs), ps)
	if err != nil {
		return nil, err
	}
	entries, caches, hiding, err := degradedToolCaches(r.root, gg, base, s).apply(entries)
	if err != nil {
		return nil, err
	}
	changes = append(changes, attributeFilesIn(entries)...)
	// Only unpopulated submodules remain; populated ones were refused above.
	entries, subChanges, err := r.auditSubmodules(ctx, s, store, depth, entries)
	if err != nil {
		return nil, err
	}
	changes = append(changes, subChanges...)
	return &ChangedSet{Source: SourceGoGit, Degraded: true, DegradedReason: reason, Entries: entries, InputChanges: changes,
		ToolCaches: caches, SelfIgnoring: hiding}, nil
}
