package gitscope

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// pinArgs are the global arguments every git command run in the repository carries, computed
// once per Repo. They override the settings an executor can write into .git/config to hide a
// change from the recipe; each pin and why is in gitscope.md §4.8.
func (r *Repo) pinArgs() []string {
	r.pinOnce.Do(func() {
		r.pins = []string{
			"--work-tree=" + r.root,
			"-c", "core.ignorecase=" + strconv.FormatBool(probeIgnoreCase(r.root)),
			"-c", "core.checkStat=default",
			"-c", "core.trustctime=true",
			// Objects as stored, never through a substitute the executor can write: replace
			// refs, a commit-graph or a multi-pack index (gitscope.md §4.6 "Objects"). A 40-hex
			// id is never looked up as a ref name, which could be a FIFO.
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

// probeIgnoreCase reports whether the file system holding the work tree root folds ASCII case,
// by looking a directory of root up with its name's case swapped; it writes nothing. Any doubt
// answers false, under which git hides the fewest paths (gitscope.md §4.8).
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
