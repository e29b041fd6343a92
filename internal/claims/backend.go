package claims

import (
	"errors"
	"fmt"
)

// ErrBackendUnavailable matches every *BackendUnavailableError (errors.Is).
var ErrBackendUnavailable = errors.New("claims backend unavailable")

// BackendUnavailableError is Verify's only error: a claim needs the backend of a §10.6 language
// that this build leaves out. Its outcome would depend on the build, so Verify gives none and
// post-flight ends as an operational error (lifecycle-v2.md §8).
type BackendUnavailableError struct {
	Language   string
	ClaimIndex int
	File       string
}

func (e *BackendUnavailableError) Error() string {
	return fmt.Sprintf("this mastermind build cannot check %s claims (built without cgo); use a build with tree-sitter "+
		"(claim %d needs %s; `go install` with a C compiler and CGO_ENABLED=1 builds one)", e.Language, e.ClaimIndex, e.File)
}

// Is reports whether target is ErrBackendUnavailable.
func (e *BackendUnavailableError) Is(target error) bool { return target == ErrBackendUnavailable }

// displayName is the language's name in messages.
func (l language) displayName() string {
	switch l {
	case langGo:
		return "Go"
	case langPython:
		return "Python"
	case langJS:
		return "JavaScript"
	case langTS:
		return "TypeScript"
	case langTSX:
		return "TSX"
	case langRust:
		return "Rust"
	case langJava:
		return "Java"
	}
	return string(l)
}
