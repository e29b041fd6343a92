package fsx

import (
	"errors"
	"fmt"
	"io/fs"
)

// Reason classifies why a path was refused.
type Reason string

// Reasons a path can be refused. They appear in messages and let callers map a refusal to their
// own rule ids (for example report.not_regular).
const (
	ReasonMissing           Reason = "missing"            // the path does not exist
	ReasonSymlink           Reason = "symlink"            // the path itself is a symbolic link
	ReasonSymlinkedAncestor Reason = "symlinked_ancestor" // a directory between the root and the path is a symlink
	ReasonNotRegular        Reason = "not_regular"        // FIFO, socket, device or directory
	ReasonOutsideRoot       Reason = "outside_root"       // the path escapes the repository root
	ReasonTooLarge          Reason = "too_large"          // more bytes than the limit
	ReasonUnstable          Reason = "unstable"           // size or mtime changed while reading
	ReasonReplaced          Reason = "replaced"           // an open directory was moved or replaced (Dir.Check)
)

// PathError is a refusal of a path for one of the Reasons above. Other I/O failures (permission
// denied, EIO) are returned as ordinary *os.PathError values and are operational errors.
type PathError struct {
	Path   string // the path as given by the caller
	Reason Reason
	// Detail names what was found: "FIFO", "directory", the symlinked ancestor, or the size.
	Detail string
	// Size is the number of bytes read (at most limit+1) for ReasonTooLarge.
	Size int64
}

func (e *PathError) Error() string {
	switch e.Reason {
	case ReasonMissing:
		return fmt.Sprintf("%s does not exist", e.Path)
	case ReasonSymlink:
		return fmt.Sprintf("%s is a symbolic link; mastermind never follows links", e.Path)
	case ReasonSymlinkedAncestor:
		return fmt.Sprintf("%s has a symlinked ancestor %s; mastermind never follows links", e.Path, e.Detail)
	case ReasonNotRegular:
		return fmt.Sprintf("%s is not a regular file (found %s)", e.Path, e.Detail)
	case ReasonOutsideRoot:
		return fmt.Sprintf("%s is outside the repository", e.Path)
	case ReasonTooLarge:
		return fmt.Sprintf("%s is larger than the limit (%s)", e.Path, e.Detail)
	case ReasonUnstable:
		return fmt.Sprintf("%s changed while it was being read", e.Path)
	case ReasonReplaced:
		return fmt.Sprintf("%s was moved or replaced while mastermind was using it (%s); mastermind writes only into the folder it opened, so stop whatever is changing it and rerun", e.Path, e.Detail)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Reason)
}

// Is lets errors.Is(err, &PathError{Reason: r}) match on the reason alone, and
// errors.Is(err, fs.ErrNotExist) hold for ReasonMissing.
func (e *PathError) Is(target error) bool {
	if target == fs.ErrNotExist {
		return e.Reason == ReasonMissing
	}
	var t *PathError
	if !errors.As(target, &t) {
		return false
	}
	return t.Reason == e.Reason && (t.Path == "" || t.Path == e.Path)
}

// ReasonOf returns the Reason of a *PathError in err's chain, or "" when err is not a refusal.
func ReasonOf(err error) Reason {
	var pe *PathError
	if errors.As(err, &pe) {
		return pe.Reason
	}
	return ""
}
