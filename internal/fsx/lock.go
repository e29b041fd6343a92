package fsx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gofrs/flock"
)

// ErrLockBusy is returned by TryLock when another process holds the lock.
var ErrLockBusy = errors.New("lock is busy")

// Lock is a held exclusive file lock. Unlock releases it; the lock file stays on disk.
type Lock struct {
	fl *flock.Flock // TryLock, LockWait
	f  *os.File     // Dir.TryLock: closing the descriptor releases the flock(2) lock
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l.f != nil {
		return l.f.Close()
	}
	return l.fl.Unlock()
}

// TryLock takes the exclusive lock at path without waiting (spec-and-lifecycle.md §12.1). A busy
// lock returns an error wrapping ErrLockBusy. A symlink or non-regular file at path is refused.
func TryLock(path string) (*Lock, error) {
	if err := CheckWritable(path); err != nil {
		return nil, err
	}
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, ErrLockBusy)
	}
	return &Lock{fl: fl}, nil
}

// LockWait takes the exclusive lock at path, retrying every 20 ms for at most timeout. A lock still
// busy after timeout returns an error wrapping ErrLockBusy.
func LockWait(path string, timeout time.Duration) (*Lock, error) {
	if err := CheckWritable(path); err != nil {
		return nil, err
	}
	fl := flock.New(path)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ok, err := fl.TryLockContext(ctx, 20*time.Millisecond)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, ErrLockBusy)
	}
	return &Lock{fl: fl}, nil
}
