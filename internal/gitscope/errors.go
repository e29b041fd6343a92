package gitscope

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// ErrNotRepository: the start directory (or --root) is not inside a git work tree, or the
// repository is bare. The CLI maps it to exit 3.
var ErrNotRepository = errors.New("not a git repository (or any of the parent directories)")

// ErrNoRepository is Discover's error when neither the start directory nor any parent holds a
// .git entry or is a bare repository: there is no repository at all, as opposed to one that
// cannot be used. errors.Is(err, ErrNotRepository) holds for it too.
var ErrNoRepository error = noRepositoryError{}

type noRepositoryError struct{}

func (noRepositoryError) Error() string        { return ErrNotRepository.Error() }
func (noRepositoryError) Is(target error) bool { return target == ErrNotRepository }

// ErrBaselineUnavailable: the saved baseline OID is not a commit in the object database, for
// example after a history rewrite (gitscope.md §4.3). Post-flight exits 3 with this message.
var ErrBaselineUnavailable = errors.New("saved baseline commit is unavailable; restore its git history")

// ErrUnsupportedRepository: go-git cannot open this repository layout (gitscope.md §5). Callers
// never see it while a usable git binary exists, and errors wrapping it carry go-git's reason.
var ErrUnsupportedRepository = errors.New("repository layout is not supported by the built-in reader")

// ErrSHA256Repository: the repository uses extensions.objectFormat=sha256, refused in v1
// (gitscope.md §3 "Open"). Exit 3.
var ErrSHA256Repository = errors.New("SHA-256 repositories are not supported yet")

// ErrCommitNotFound: ResolveCommit found no commit for the prefix.
var ErrCommitNotFound = errors.New("does not resolve to a commit in this repository")

// ErrAmbiguous: ResolveCommit's prefix matches more than one object. The concrete error is an
// *AmbiguousError carrying the match count; errors.Is(err, ErrAmbiguous) holds for it.
var ErrAmbiguous = errors.New("is ambiguous")

// ErrInvalidRevision: a user-given REV breaks the form rules of §4.3. The CLI maps it to a usage
// error.
var ErrInvalidRevision = errors.New("invalid revision")

// ErrRevisionNotFound: a well-formed user REV does not name a commit.
var ErrRevisionNotFound = errors.New("does not name a commit in this repository")

// AmbiguousError is ResolveCommit's ambiguity: Matches objects share Prefix.
type AmbiguousError struct {
	Prefix  string
	Matches int // number of matching objects; 0 when git did not say
}

func (e *AmbiguousError) Error() string {
	if e.Matches > 0 {
		return fmt.Sprintf("%s is ambiguous (matches %d objects)", e.Prefix, e.Matches)
	}
	return fmt.Sprintf("%s is ambiguous", e.Prefix)
}

// Is makes errors.Is(err, ErrAmbiguous) true.
func (e *AmbiguousError) Is(target error) bool { return target == ErrAmbiguous }

// ErrGitFailed is a git command that exited non-zero, timed out, or printed output of an
// unexpected shape. Exit is -1 when the process did not exit normally or the output had the wrong
// shape, and Stderr is then the description of the violation.
type ErrGitFailed struct {
	Cmd    string
	Exit   int
	Stderr string
}

// Error names the subcommand and the first line of git's message, escaped with textsafe because
// git echoes agent-editable configuration values and file names into its messages.
func (e *ErrGitFailed) Error() string {
	return fmt.Sprintf("git %s failed: %s", e.Cmd, textsafe.Escape(firstLine(e.Stderr)))
}

// ErrDubiousOwnership is git's "detected dubious ownership" refusal: Path is owned by another
// user. mastermind never adds safe.directory itself; the message tells the user how to.
type ErrDubiousOwnership struct {
	Path string
}

func (e *ErrDubiousOwnership) Error() string {
	return fmt.Sprintf("git refuses to read %s because it is owned by another user; if you trust it, run `git config --global --add safe.directory %s`", e.Path, e.Path)
}

// firstLine returns the first non-empty line of s, trimmed, or "(no message)".
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return "(no message)"
}
