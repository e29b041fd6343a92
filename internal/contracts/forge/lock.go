package forge

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Lock timing of §1.7, shared with forge's own events writer.
const (
	// DefaultLockTimeout is how long acquisition retries before refusing.
	DefaultLockTimeout = 30 * time.Second
	// LockTimeoutEnv overrides DefaultLockTimeout, in milliseconds, as for the forge writer.
	LockTimeoutEnv = "FORGE_EVENTS_LOCK_TIMEOUT_MS"
	// staleAfter is the age after which a lock whose owner is dead may be taken over.
	staleAfter = 10 * time.Second
)

// LockTimeout returns the acquisition timeout: FORGE_EVENTS_LOCK_TIMEOUT_MS when it is a
// non-negative integer, otherwise 30 s.
func LockTimeout() time.Duration {
	if v := os.Getenv(LockTimeoutEnv); v != "" {
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms >= 0 {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return DefaultLockTimeout
}

// LockTimeoutError is returned when the lock was not acquired in time.
type LockTimeoutError struct {
	Path    string
	Timeout time.Duration
}

func (e *LockTimeoutError) Error() string {
	return fmt.Sprintf("events lock not acquired within %dms (%s held) — refusing an unlocked append", e.Timeout.Milliseconds(), e.Path)
}

// ErrLockLost is returned when the lock path no longer holds our lock file (fencing).
var ErrLockLost = errors.New("events lock was taken over by another writer")

// eventsLock is a held forge events lock: the O_EXCL-created file, kept open until release.
type eventsLock struct {
	path string
	f    *os.File
	dev  uint64
	ino  uint64
}

type lockToken struct {
	PID int    `json:"pid"`
	TS  string `json:"ts"`
}

// acquireLock takes path by exclusive create (§1.7), taking over a stale lock whose owner is dead,
// and retries every 15–50 ms until timeout.
func acquireLock(path string, timeout time.Duration) (*eventsLock, error) {
	deadline := time.Now().Add(timeout)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
		if err == nil {
			l, err := holdLock(path, f)
			if err != nil {
				f.Close()
				_ = os.Remove(path)
				return nil, err
			}
			return l, nil
		}
		switch {
		case errors.Is(err, syscall.EEXIST):
			if err := checkLockEntry(path); err != nil {
				return nil, err
			}
			if tryTakeover(path) {
				continue
			}
		case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EBUSY):
			// contention
		default:
			return nil, fmt.Errorf("events lock %s: %w", path, err)
		}
		if !time.Now().Before(deadline) {
			return nil, &LockTimeoutError{Path: path, Timeout: timeout}
		}
		time.Sleep(time.Duration(15+rand.IntN(36)) * time.Millisecond)
	}
}

// LockPathError is an events lock path that holds something other than a regular file: a
// symlink, directory, FIFO, socket or device. No forge writer creates one, so it is refused at
// once instead of being waited on for the whole timeout and then unlinked as a stale lock.
type LockPathError struct {
	Path  string
	Found string // "symbolic link", "directory", "FIFO", "socket" or "device"
}

func (e *LockPathError) Error() string {
	return fmt.Sprintf("events lock %s is a %s, not a lock file; remove it by hand — refusing an unlocked append", e.Path, e.Found)
}

// checkLockEntry refuses a lock path that exists and is not a regular file (LockPathError). A
// vanished entry is fine: the create is retried.
func checkLockEntry(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().IsRegular() {
		return nil
	}
	m := fi.Mode()
	found := "special file"
	switch {
	case m&os.ModeSymlink != 0:
		found = "symbolic link"
	case m.IsDir():
		found = "directory"
	case m&os.ModeNamedPipe != 0:
		found = "FIFO"
	case m&os.ModeSocket != 0:
		found = "socket"
	case m&os.ModeDevice != 0:
		found = "device"
	}
	return &LockPathError{Path: path, Found: found}
}

func holdLock(path string, f *os.File) (*eventsLock, error) {
	tok, _ := json.Marshal(lockToken{PID: os.Getpid(), TS: time.Now().UTC().Format(timestampLayout)})
	if _, err := f.Write(tok); err != nil {
		return nil, fmt.Errorf("write events lock token: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return nil, fmt.Errorf("stat events lock: %w", err)
	}
	return &eventsLock{path: path, f: f, dev: uint64(st.Dev), ino: st.Ino}, nil
}

// stillOurs checks that the lock path still names our lock file (fencing).
func (l *eventsLock) stillOurs() error {
	var st unix.Stat_t
	if err := unix.Lstat(l.path, &st); err != nil || uint64(st.Dev) != l.dev || st.Ino != l.ino {
		return ErrLockLost
	}
	return nil
}

// release unlinks the lock if it is still ours, then closes the descriptor.
func (l *eventsLock) release() error {
	err := l.stillOurs()
	if err == nil {
		err = os.Remove(l.path)
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// identity is what must not change between the two stats of a takeover.
type identity struct {
	dev, ino          uint64
	birthSec, birthNs int64
	ctimeSec, ctimeNs int64
	mtime             time.Time
}

func statIdentity(path string) (identity, bool) {
	var sx unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &sx)
	if err != nil {
		return identity{}, false
	}
	return identity{
		dev: uint64(unix.Mkdev(sx.Dev_major, sx.Dev_minor)), ino: sx.Ino,
		birthSec: sx.Btime.Sec, birthNs: int64(sx.Btime.Nsec),
		ctimeSec: sx.Ctime.Sec, ctimeNs: int64(sx.Ctime.Nsec),
		mtime: time.Unix(sx.Mtime.Sec, int64(sx.Mtime.Nsec)),
	}, true
}

// tryTakeover unlinks a lock that §1.7 calls stale, only if its inode and birth time did not
// change between two stats. It reports whether the lock path may be retried at once.
func tryTakeover(path string) bool {
	before, ok := statIdentity(path)
	if !ok {
		return true // vanished: retry the create now
	}
	now := time.Now()
	pid, readable := readLockToken(path)
	switch {
	case before.mtime.After(now):
		if !readable || pidAlive(pid) {
			return false
		}
	case now.Sub(before.mtime) > staleAfter:
		if readable && pidAlive(pid) {
			return false
		}
	default:
		return false
	}
	after, ok := statIdentity(path)
	if !ok {
		return true
	}
	if after.dev != before.dev || after.ino != before.ino || after.birthSec != before.birthSec || after.birthNs != before.birthNs {
		return false
	}
	return os.Remove(path) == nil
}

// readLockToken reads {"pid":N,...} from a lock file without following links.
func readLockToken(path string) (int, bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := f.Read(buf)
	var tok lockToken
	if err := json.Unmarshal(buf[:n], &tok); err != nil || tok.PID <= 0 {
		return 0, false
	}
	return tok.PID, true
}

// pidAlive reports whether pid exists on this host (kill(pid, 0); EPERM means it exists).
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
