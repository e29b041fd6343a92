package verifyrun

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// removedPrefixes are the environment variable prefixes a run never sees
// (verification-receipts.md §2): GIT_* would point the command's git at another repository,
// index or object store (GIT_DIR, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY); MASTERMIND_* would
// reach mastermind's own configuration and store.
var removedPrefixes = []string{"GIT_", "MASTERMIND_"}

// Environ returns base without any GIT_* or MASTERMIND_* variable, with PWD set to dir and PATH
// reduced to its absolute entries that exist outside dir. An empty or relative PATH entry would
// make the shell look up `go` or `pytest` in the repository root, where the executor could have
// put its own, and an absolute entry inside the work tree does the same from a directory that is
// usually ignored. Entries are compared with dir after resolving symbolic links, and one that
// cannot be resolved is dropped too. On Windows, where cmd.exe looks in the current
// directory first, NoDefaultCurrentDirectoryInExePath is set for the same reason. Names are
// compared without case, since Windows environment names are case-insensitive; entries without
// "=" are dropped.
func Environ(base []string, dir string) []string {
	out := make([]string, 0, len(base)+2)
	for _, kv := range base {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		up := strings.ToUpper(name)
		switch {
		case up == "PWD" || hasRemovedPrefix(up):
			continue
		case up == "PATH":
			kv = name + "=" + outsidePath(value, dir)
		}
		out = append(out, kv)
	}
	if runtime.GOOS == "windows" {
		out = append(out, "NoDefaultCurrentDirectoryInExePath=1")
	}
	return append(out, "PWD="+dir)
}

// outsidePath keeps the entries of a PATH value that are absolute, exist, and are not dir or
// below it, lexically or once symbolic links are resolved; in order, as written.
func outsidePath(value, dir string) string {
	root := filepath.Clean(dir)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	var keep []string
	for _, e := range filepath.SplitList(value) {
		if e == "" || !filepath.IsAbs(e) || within(root, filepath.Clean(e)) {
			continue
		}
		real, err := filepath.EvalSymlinks(e)
		if err != nil || within(root, real) || within(realRoot, real) {
			continue
		}
		keep = append(keep, e)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// within reports whether the clean absolute path p is root or below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func hasRemovedPrefix(upperName string) bool {
	for _, p := range removedPrefixes {
		if strings.HasPrefix(upperName, p) {
			return true
		}
	}
	return false
}
