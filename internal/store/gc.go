package store

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// GCEntry is one record GC removed or left in place.
type GCEntry struct {
	// Path is the record's store folder, a repository's or a task's.
	Path string `json:"path"`
	// Repo is the work tree of repo.json, "" when repo.json is unreadable.
	Repo string `json:"repo"`
	// Task is the task name, "" for a whole repository.
	Task string `json:"task"`
	// Reason says why it was removed or kept.
	Reason string `json:"reason"`
}

// GCReport is the outcome of GC.
type GCReport struct {
	Removed []GCEntry `json:"removed"`
	// Skipped are records GC could not judge or could not lock; they are kept.
	Skipped []GCEntry `json:"skipped"`
	// Kept counts the task records that still have their repository and task folder.
	Kept int `json:"kept"`
}

// GC removes the records of repositories and tasks whose git directory or task folder no longer
// exists; with dryRun it only reports. A task whose store lock is held is skipped, and a folder
// is renamed to a ".gc-" name before it is removed, so a kill never leaves a half record.
func (s *Store) GC(dryRun bool) (*GCReport, error) {
	rep := &GCReport{Removed: []GCEntry{}, Skipped: []GCEntry{}}
	repos, err := s.dir.Sub(reposDir)
	if fsx.ReasonOf(err) == fsx.ReasonMissing {
		return rep, nil
	}
	if err != nil {
		return nil, wrap("open", filepath.Join(s.root, reposDir), err)
	}
	defer repos.Close()
	ids, err := repos.Names()
	if err != nil {
		return nil, wrap("list", repos.Path(), err)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if strings.HasPrefix(id, ".gc-") {
			if !dryRun {
				_ = os.RemoveAll(filepath.Join(repos.Path(), id))
			}
			continue
		}
		if err := s.gcRepo(repos, id, dryRun, rep); err != nil {
			return rep, err
		}
	}
	if !dryRun {
		s.gcWorktreeKeys(repos)
	}
	return rep, nil
}

// gcWorktreeKeys drops from each worktrees/ entry the repo ids whose records are gone, since they
// protect nothing any more, and removes entries left empty. Failures are ignored: a stale entry
// costs a few bytes and can only make checkKey look at a folder that is not there.
func (s *Store) gcWorktreeKeys(repos *fsx.Dir) {
	wd, err := s.dir.Sub(worktreesDir)
	if err != nil {
		return
	}
	defer wd.Close()
	names, _ := wd.Names()
	for _, n := range names {
		if strings.HasPrefix(n, ".") {
			continue
		}
		data, err := wd.ReadFile(n, maxRepoFileBytes)
		if err != nil {
			continue
		}
		var keys, kept []worktreeKey
		if json.Unmarshal(data, &keys) != nil {
			continue
		}
		for _, k := range keys {
			if fi, err := repos.Lstat(k.RepoID); err == nil && fi.IsDir() {
				kept = append(kept, k)
			}
		}
		switch {
		case len(kept) == 0:
			_ = wd.Remove(n, false)
		case len(kept) < len(keys):
			if out, err := json.MarshalIndent(kept, "", "  "); err == nil {
				_ = wd.WriteFileAtomic(n, append(out, '\n'), 0o600)
			}
		}
	}
}

func (s *Store) gcRepo(repos *fsx.Dir, id string, dryRun bool, rep *GCReport) error {
	path := filepath.Join(repos.Path(), id)
	rd, err := repos.Sub(id)
	if err != nil {
		rep.Skipped = append(rep.Skipped, GCEntry{Path: path, Reason: "not a store folder: " + err.Error()})
		return nil
	}
	defer rd.Close()
	var ref RepoRef
	data, err := rd.ReadFile(repoFile, maxRepoFileBytes)
	if err == nil {
		err = json.Unmarshal(data, &ref)
	}
	if err != nil || !filepath.IsAbs(ref.GitDir) {
		rep.Skipped = append(rep.Skipped, GCEntry{Path: path, Reason: "repo.json is unreadable; remove the folder by hand if the repository is gone"})
		return nil
	}
	gone := !exists(ref.GitDir)
	if !gone {
		if now, err := RepoID(ref.GitDir); err != nil || now != id {
			// The git directory's real path no longer hashes to this id: the path now leads
			// elsewhere, so these records are orphans.
			gone = true
		}
	}
	td, err := rd.Sub(tasksDir)
	var names []string
	if err == nil {
		defer td.Close()
		names, _ = td.Names()
		sort.Strings(names)
	}
	if gone {
		// Every task must be lockable: a controller running on it keeps the repository.
		var locks []*fsx.Lock
		defer func() {
			for _, l := range locks {
				l.Unlock()
			}
		}()
		for _, n := range names {
			if strings.HasPrefix(n, ".") {
				continue
			}
			l, ok := lockTask(td, n)
			if !ok {
				rep.Skipped = append(rep.Skipped, GCEntry{Path: path, Repo: ref.WorkTree, Task: n, Reason: "a controller holds the task's lock"})
				return nil
			}
			if l != nil {
				locks = append(locks, l)
			}
		}
		rep.Removed = append(rep.Removed, GCEntry{Path: path, Repo: ref.WorkTree, Reason: "the git directory " + ref.GitDir + " no longer exists"})
		if !dryRun {
			return s.remove(repos, id)
		}
		return nil
	}
	for _, n := range names {
		tp := filepath.Join(path, tasksDir, n)
		if strings.HasPrefix(n, ".gc-") {
			if !dryRun {
				_ = os.RemoveAll(tp)
			}
			continue
		}
		l, ok := lockTask(td, n)
		if !ok {
			rep.Skipped = append(rep.Skipped, GCEntry{Path: tp, Repo: ref.WorkTree, Task: n, Reason: "a controller holds the task's lock"})
			continue
		}
		reason := taskGone(td, n)
		if reason == "" {
			rep.Kept++
		} else {
			rep.Removed = append(rep.Removed, GCEntry{Path: tp, Repo: ref.WorkTree, Task: n, Reason: reason})
			if !dryRun {
				if err := s.remove(td, n); err != nil {
					if l != nil {
						l.Unlock()
					}
					return err
				}
			}
		}
		if l != nil {
			l.Unlock()
		}
	}
	return nil
}

// lockTask takes task n's store lock; ok is false when it is busy. A folder that cannot be
// opened gives (nil, true): there is no controller on it.
func lockTask(td *fsx.Dir, n string) (*fsx.Lock, bool) {
	d, err := td.Sub(n)
	if err != nil {
		return nil, true
	}
	defer d.Close()
	l, err := d.TryLock(lockFile)
	if errors.Is(err, fsx.ErrLockBusy) {
		return nil, false
	}
	if err != nil {
		return nil, true
	}
	return l, true
}

// taskGone says why task n's record is an orphan, or "" when its task folder still exists.
func taskGone(td *fsx.Dir, n string) string {
	d, err := td.Sub(n)
	if err != nil {
		return "not a store folder: " + err.Error()
	}
	defer d.Close()
	t := &Task{dir: d, name: n}
	r, err := t.Load()
	switch {
	case err != nil:
		return "" // a corrupt record is kept for the user to inspect; run-task reports it
	case r == nil:
		return "no record: its first pre-flight was refused or did not finish"
	case !filepath.IsAbs(r.TaskDir):
		return ""
	case !exists(r.TaskDir):
		return "the task folder " + r.TaskDir + " no longer exists"
	}
	return ""
}

// remove renames parent/name to a ".gc-" name, then removes it.
func (s *Store) remove(parent *fsx.Dir, name string) error {
	trash := ".gc-" + name + "-" + strconv.FormatInt(time.Now().UnixNano(), 10)
	if err := parent.Rename(name, trash); err != nil {
		return wrap("remove", filepath.Join(parent.Path(), name), err)
	}
	return wrap("remove", filepath.Join(parent.Path(), trash), os.RemoveAll(filepath.Join(parent.Path(), trash)))
}

// exists reports whether path exists, a symlink included. Only ENOENT and ENOTDIR mean gone, so a
// permission error keeps the record.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil || !(errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR))
}
