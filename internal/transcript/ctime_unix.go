//go:build unix

package transcript

import (
	"time"

	"golang.org/x/sys/unix"
)

// ctime is the status change time of path, not following a symlink.
func ctime(path string) (time.Time, bool) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return time.Time{}, false
	}
	return time.Unix(st.Ctim.Unix()), true
}
