package gitscope

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"unicode/utf8"
)

// IgnoredSince lists the files the audit does not see, ignored under the pre-flight rules or in
// caches, whose change time is at or after sinceNs (0: the snapshot's pre-flight time), as
// verification-receipts.md §2.1 says. Paths are repository-relative, sorted and valid
// UTF-8; without a usable git it lists none.
func (r *Repo) IgnoredSince(ctx context.Context, baseline string, store SnapshotStore, caches []IgnoredDir, sinceNs int64) (paths []string, err error) {
	s, err := loadSnapshot(store)
	if err != nil {
		return nil, err
	}
	if s.Baseline != baseline {
		return nil, fmt.Errorf("the pre-flight snapshot is of baseline %s, not %s; run pre-flight again", s.Baseline, baseline)
	}
	if sinceNs == 0 {
		sinceNs = s.PreflightNs
	}
	if !r.gitUsable() {
		return nil, nil
	}
	pi, err := r.snapshotIndex(store, s)
	if err != nil {
		return nil, err
	}
	defer pi.cleanup()
	args := slices.Concat(globalArgs, untrackedGuardArgs, []string{
		"ls-files", "-z", "--others", "--ignored", "--exclude-from=" + pi.excludes, "--full-name", "--"})
	var total int64
	keep := func(rel string) {
		fi, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(rel)))
		if err == nil && !fi.IsDir() && ctimeOf(fi) >= sinceNs {
			paths = append(paths, rel)
		}
	}
	err = r.runEnv(ctx, r.root, "ls-files", args, pi.env(), func(rd io.Reader) error {
		return eachRecord(rd, &total, func(rec []byte) error {
			if len(rec) == 0 || rec[len(rec)-1] == '/' || !utf8.Valid(rec) {
				return nil
			}
			keep(string(rec))
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	for _, c := range caches {
		root := filepath.Join(r.root, filepath.FromSlash(c.Dir))
		werr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel, rerr := filepath.Rel(r.root, p)
			if rerr == nil && utf8.ValidString(rel) {
				keep(filepath.ToSlash(rel))
			}
			return nil
		})
		if werr != nil {
			return nil, werr
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths), nil
}

// FileSystemNow is the current time of the repository's file system (ns since the epoch, the
// change time of a file created and removed in the git directory), the clock IgnoredSince
// compares with.
func (r *Repo) FileSystemNow() (int64, error) {
	gitDir, _, ok := gitDirOf(r.root)
	if !ok {
		return 0, fmt.Errorf("%s: cannot find the git directory: %w", r.root, ErrNotRepository)
	}
	return fsTime(gitDir)
}
