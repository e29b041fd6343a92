package gitscope

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// pinArgs are the global arguments every git command run in the repository carries (after
// -C <dir>), computed once per Repo. They override settings an executor can write into the
// agent-editable .git/config (or config.worktree) to hide real changes from the recipe; -c on
// the command line beats every configuration file:
//
//   - --work-tree=<root> pins the work tree: `git -C <root>` finds the repository from root but
//     then takes the work tree from core.worktree (config or config.worktree), which can point at
//     a decoy copy of the baseline. --work-tree (GIT_WORK_TREE) beats core.worktree and
//     core.bare in every layout (a .git directory, a linked worktree, --separate-git-dir). No
//     --git-dir goes with it: git's discovery still finds the git directory, and an explicit
//     --git-dir would switch off git's safe.directory ownership check (gitscope.md #55).
//   - core.ignorecase comes from a read-only probe of the work tree's file system
//     (probeIgnoreCase), not from configuration: `core.ignorecase=true` on a case-sensitive
//     file system makes `ls-files --others` hide `src/X.go` next to a tracked `src/x.go`.
//   - core.checkStat=default and core.trustctime=true: git compares every stat field, ctime and
//     inode included, before it trusts the index's cached OID. `checkStat=minimal` with
//     `trustctime=false` hides a same-size edit whose mtime was restored (gitscope.md #11).
//     Cost: none on an unconfigured repository (these are git's defaults); where the
//     configuration relaxed them, stat-dirty files are re-hashed.
//   - core.symlinks=true (not on Windows): with core.symlinks=false git compares a regular file
//     with a tracked symlink's target text, so a symlink replaced by a file holding that text
//     looks unchanged. Where the file system really has no symbolic links, every tracked link
//     shows as modified: more paths, never fewer (fail closed).
//
// core.fileMode is deliberately left to the configuration (gitscope.md #7). core.ignoreStat
// only marks entries assume-unchanged when git writes them (the executor's own `git add`),
// which is gitscope.md #33; it changes nothing when git reads.
func (r *Repo) pinArgs() []string {
	r.pinOnce.Do(func() {
		r.pins = []string{
			"--work-tree=" + r.root,
			"-c", "core.ignorecase=" + strconv.FormatBool(probeIgnoreCase(r.root)),
			"-c", "core.checkStat=default",
			"-c", "core.trustctime=true",
			// Objects as stored, never through a substitute the executor can write: replace
			// refs (repository config beats GIT_NO_REPLACE_OBJECTS=1 in git 2.39), a
			// commit-graph (it carries each commit's root tree) or a multi-pack index (it maps
			// object ids to pack offsets). A 40-hex id is never looked up as a ref name
			// (warnAmbiguousRefs reads refs/heads/<id> and the like, which could be FIFOs).
			"-c", "core.useReplaceRefs=false",
			"-c", "core.commitGraph=false",
			"-c", "core.multiPackIndex=false",
			"-c", "core.warnAmbiguousRefs=false",
		}
		if runtime.GOOS != "windows" {
			r.pins = append(r.pins, "-c", "core.symlinks=true")
		}
	})
	return r.pins
}

// untrackedGuardArgs go with every ls-files listing of untracked files: never consult the
// index's untracked cache, whose directory stat data an executor can forge so that git status
// hides a new file. git 2.39's ls-files never hands the cache to its directory walk (only
// status does); the setting keeps that so on every version. It is not given to the diff:
// dropping an existing cache would make every stat-cache refresh rewrite the private index.
var untrackedGuardArgs = []string{"-c", "core.untrackedCache=false"}

// probeIgnoreCase reports whether the file system holding the work tree root folds ASCII case:
// an entry of root, looked up with its name's case swapped, is the very same file (os.SameFile
// on two Lstat results). Nothing is created or written. The entry is root/.git when it is a
// directory, otherwise the first directory among root's first 256 entries whose name has an
// ASCII letter. Only directories are used, because a regular file (a linked worktree's .git
// file) can be hard-linked under the swapped name on a case-sensitive file system, and Lstat
// never follows a symbolic link named with the swapped case. No usable entry, or any error,
// gives false: case-sensitive, the answer under which git hides the fewest paths.
func probeIgnoreCase(root string) bool {
	if fi, err := os.Lstat(filepath.Join(root, ".git")); err == nil && fi.IsDir() {
		return sameUnderSwappedCase(root, ".git", fi)
	}
	d, err := os.Open(root)
	if err != nil {
		return false
	}
	ents, _ := d.ReadDir(256)
	d.Close()
	for _, e := range ents {
		if !e.IsDir() || swapASCIICase(e.Name()) == e.Name() {
			continue
		}
		fi, err := os.Lstat(filepath.Join(root, e.Name()))
		if err != nil || !fi.IsDir() {
			return false
		}
		return sameUnderSwappedCase(root, e.Name(), fi)
	}
	return false
}

// sameUnderSwappedCase reports whether root/<name with its ASCII case swapped> is fi's file.
func sameUnderSwappedCase(root, name string, fi os.FileInfo) bool {
	swapped := swapASCIICase(name)
	if swapped == name {
		return false
	}
	other, err := os.Lstat(filepath.Join(root, swapped))
	return err == nil && os.SameFile(fi, other)
}

// swapASCIICase turns ASCII upper case into lower case and back; other bytes are kept.
func swapASCIICase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = c - 'a' + 'A'
		case 'A' <= c && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}
