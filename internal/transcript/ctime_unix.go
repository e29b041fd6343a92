//go:build unix

package transcript

import (
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// statTimes is the status change time of path and the device it is on, not following a symlink.
func statTimes(path string) (time.Time, uint64, bool) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return time.Time{}, 0, false
	}
	return time.Unix(st.Ctim.Unix()), uint64(st.Dev), true
}

// statDev is the device of path, following symlinks (the root as given).
func statDev(path string) (uint64, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, false
	}
	return uint64(st.Dev), true
}

// writableChain reports whether this process may write dir or any directory above it (and so
// rename or replace what dir holds).
func writableChain(dir string) bool {
	for {
		if unix.Access(dir, unix.W_OK) == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}
