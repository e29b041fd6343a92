package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// GitignoreRel is the repository-relative path of the .gitignore new-spec keeps in .mastermind.
const GitignoreRel = ".mastermind/.gitignore"

// LockPattern is the line of GitignoreRel that keeps every lock file below .mastermind out of
// commits: the controller lock tasks/<task>/state.controller.lock, the lessons lock
// tasks/_lessons.md.lock and the dispatch counter locks dispatch/<ID>.json.lock
// (spec-and-lifecycle.md §0, agent-contracts.md §2.9). They are per machine, and a committed one
// would show up in every clone.
const LockPattern = "*.lock"

// gitignoreText is the content of a new GitignoreRel, and gitignoreBlock what is appended to an
// existing one that lacks LockPattern.
const (
	gitignoreBlock = "# mastermind lock files are per machine; never commit them.\n" + LockPattern + "\n"
	gitignoreText  = "# Written by mastermind new-spec.\n" + gitignoreBlock
)

// maxGitignoreBytes bounds the existing .gitignore that EnsureGitignore reads.
const maxGitignoreBytes = 1 << 20

// EnsureGitignore makes root/.mastermind/.gitignore ignore the lock files (LockPattern): it
// writes the file when it is missing, appends the pattern when an existing file has no line
// equal to it, and leaves it alone otherwise. Every write is atomic. The .mastermind folder must
// exist. A symlink, a non-regular file or a file over 1 MiB at the path is refused (an
// *fsx.PathError, or an error naming the size), so nothing outside the repository is written.
func EnsureGitignore(root string) error {
	abs := filepath.Join(root, filepath.FromSlash(GitignoreRel))
	old, err := fsx.ReadInRoot(root, GitignoreRel, maxGitignoreBytes)
	var pe *fsx.PathError
	switch {
	case errors.As(err, &pe) && pe.Reason == fsx.ReasonMissing:
		return fsx.WriteFileAtomic(abs, []byte(gitignoreText), 0o644)
	case errors.As(err, &pe) && pe.Reason == fsx.ReasonTooLarge:
		return fmt.Errorf("%s is larger than %d bytes; add the line %s to it yourself", GitignoreRel, maxGitignoreBytes, LockPattern)
	case err != nil:
		return fmt.Errorf("%s: %w", GitignoreRel, err)
	}
	for _, line := range bytes.Split(old, []byte("\n")) {
		if string(bytes.TrimSpace(line)) == LockPattern {
			return nil
		}
	}
	data := bytes.Clone(old)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	return fsx.WriteFileAtomic(abs, append(data, gitignoreBlock...), 0o644)
}
