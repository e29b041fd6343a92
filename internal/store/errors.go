package store

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// Kind classifies a store failure. Every Kind is an operational failure (exit 3); Kind decides the
// advice in the message.
type Kind string

// Kinds of store failure.
const (
	KindNoLocation Kind = "no_location"  // neither MASTERMIND_STATE_DIR, XDG_STATE_HOME nor a home directory
	KindReadOnly   Kind = "read_only"    // EROFS, EACCES or EPERM while writing
	KindFull       Kind = "full"         // ENOSPC or EDQUOT
	KindBusy       Kind = "busy"         // another controller holds the task's store lock
	KindCorrupt    Kind = "corrupt"      // a record that does not parse or fails its checks
	KindUnsafe     Kind = "unsafe"       // a symlink, FIFO or other non-regular file where the store expects its own
	KindInWorkTree Kind = "in_work_tree" // the store is inside the work tree it keeps records of
	KindRekeyed    Kind = "rekeyed"      // the work tree's git directory changed while the old one holds the task's record
	KindIO         Kind = "io"           // any other I/O failure
)

// Error is a store failure. Path is the file or directory concerned; Op what was being done
// ("write", "read", "lock", ...).
type Error struct {
	Kind Kind
	Op   string
	Path string
	Err  error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("controller store: %s %s: %v", e.Op, e.Path, e.Err)
	switch e.Kind {
	case KindNoLocation:
		return fmt.Sprintf("controller store: %v; set %s to a directory outside the work tree", e.Err, EnvStateDir)
	case KindReadOnly:
		msg += "; the store is not writable: make it writable or set " + EnvStateDir + " to a writable directory outside the work tree (nothing was changed)"
	case KindFull:
		msg += "; the file system holding the store is full: free space and rerun (the previous record is intact)"
	case KindBusy:
		msg += "; another mastermind is working on this task: wait for it and rerun"
	case KindCorrupt:
		msg += "; the record is left as it is: restore it or remove the task's store folder and rerun --pre-only"
	case KindUnsafe:
		msg += "; the store never follows links or opens special files: remove it and rerun"
	case KindInWorkTree:
		msg += "; an agent that can write the work tree could rewrite the controller's records: set " + EnvStateDir + " to a directory outside the work tree"
	case KindRekeyed:
		msg += "; a changed .git file or a moved git directory would hide the task's record (and its baseline): restore the git directory, or, if the change is deliberate, remove the old records named above and run --pre-only"
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Is lets errors.Is(err, store.ErrReadOnly) and the other Err values match on Kind alone.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Op == "" && t.Path == "" && t.Err == nil && t.Kind == e.Kind
}

// Sentinels for errors.Is, one per Kind.
var (
	ErrNoLocation = &Error{Kind: KindNoLocation}
	ErrReadOnly   = &Error{Kind: KindReadOnly}
	ErrFull       = &Error{Kind: KindFull}
	ErrBusy       = &Error{Kind: KindBusy}
	ErrCorrupt    = &Error{Kind: KindCorrupt}
	ErrUnsafe     = &Error{Kind: KindUnsafe}
	ErrInWorkTree = &Error{Kind: KindInWorkTree}
	ErrRekeyed    = &Error{Kind: KindRekeyed}
)

// KindOf returns the Kind of a store *Error in err's chain, or "".
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// wrap classifies err as a store *Error for op on path; nil stays nil and an *Error is returned
// as it is.
func wrap(op, path string, err error) error {
	if err == nil {
		return nil
	}
	var se *Error
	if errors.As(err, &se) {
		return err
	}
	k := KindIO
	switch {
	case errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		k = KindReadOnly
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		k = KindFull
	case errors.Is(err, fsx.ErrLockBusy):
		k = KindBusy
	case fsx.ReasonOf(err) != "" && fsx.ReasonOf(err) != fsx.ReasonMissing:
		k = KindUnsafe
	}
	return &Error{Kind: k, Op: op, Path: path, Err: err}
}
