package repopath

import (
	"fmt"
	"strings"
	"unicode"
)

// Limits from executor-report-v1.md §4.2.
const (
	MaxBytes      = 4096 // a normalised path longer than this is invalid
	MaxComponents = 64   // a normalised path with more components than this is invalid
)

// Reason says why a path failed hygiene. The String form is the message text used after
// "is not a repository-relative path: ".
type Reason string

// Hygiene failures, in the order they are checked.
const (
	ReasonSpace        Reason = "leading or trailing white space"
	ReasonAbsolute     Reason = "absolute path"
	ReasonDrive        Reason = "Windows drive prefix"
	ReasonDotDot       Reason = "a .. component"
	ReasonEmptyPart    Reason = "an empty component or a trailing /"
	ReasonDot          Reason = "a . component"
	ReasonControl      Reason = "a control character"
	ReasonTooLong      Reason = "longer than 4096 bytes"
	ReasonTooManyParts Reason = "more than 64 components"
	ReasonEmpty        Reason = "empty path"
)

// Error is a hygiene failure for one path.
type Error struct {
	Path   string // the path as written
	Reason Reason
}

func (e *Error) Error() string {
	return fmt.Sprintf("%q is not a repository-relative path: %s", e.Path, e.Reason)
}

// PathLimit reports whether the failure is one of the size limits (the spec's
// path_limit_exceeded reason) rather than a malformed path.
func (e *Error) PathLimit() bool {
	return e.Reason == ReasonTooLong || e.Reason == ReasonTooManyParts
}

// Normalize applies the normalisation of executor-report-v1.md §4.2: every "\" becomes "/", then
// every leading "./" is stripped. It does not check hygiene.
func Normalize(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

// Clean normalises p and checks its hygiene. It returns the normalised path, or an *Error naming
// the first rule it breaks. Comparison of cleaned paths is byte-exact and case-sensitive.
func Clean(p string) (string, error) {
	n := Normalize(p)
	if r := check(n); r != "" {
		return n, &Error{Path: p, Reason: r}
	}
	return n, nil
}

func check(n string) Reason {
	if n == "" {
		return ReasonEmpty
	}
	if strings.TrimFunc(n, unicode.IsSpace) != n {
		return ReasonSpace
	}
	if strings.HasPrefix(n, "/") {
		return ReasonAbsolute
	}
	if len(n) >= 2 && n[1] == ':' && isASCIILetter(n[0]) {
		return ReasonDrive
	}
	parts := strings.Split(n, "/")
	for _, part := range parts {
		if part == ".." {
			return ReasonDotDot
		}
	}
	for _, part := range parts {
		if part == "" {
			return ReasonEmptyPart
		}
		if part == "." {
			return ReasonDot
		}
	}
	for _, r := range n {
		if r < 0x20 || r == 0x7f {
			return ReasonControl
		}
	}
	if len(n) > MaxBytes {
		return ReasonTooLong
	}
	if len(parts) > MaxComponents {
		return ReasonTooManyParts
	}
	return ""
}

func isASCIILetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// IsAncestor reports whether dir is a proper ancestor directory of p ("docs" of "docs/a.md").
func IsAncestor(dir, p string) bool {
	return len(p) > len(dir) && strings.HasPrefix(p, dir) && p[len(dir)] == '/'
}
