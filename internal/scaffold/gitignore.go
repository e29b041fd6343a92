package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"path"

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

// GitignoreContent returns what EnsureGitignore writes over the .gitignore content old (exists
// false: there is none): the new content and true, or nil and false when old already holds
// LockPattern. Its output is the only .gitignore content the gate against a base takes for the
// controller's (trust-model.md I3).
func GitignoreContent(old []byte, exists bool) ([]byte, bool) {
	if !exists {
		return []byte(gitignoreText), true
	}
	for _, line := range bytes.Split(old, []byte("\n")) {
		if string(bytes.TrimSpace(line)) == LockPattern {
			return nil, false
		}
	}
	data := bytes.Clone(old)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	return append(data, gitignoreBlock...), true
}

// EnsureGitignore makes root/.mastermind/.gitignore ignore the lock files (LockPattern): it
// writes the file when it is missing, appends the pattern when an existing file has no line
// equal to it, and leaves it alone otherwise. The write is atomic and goes through a handle of
// .mastermind opened without following links (trust-model.md I4); record, when set, is called
// with the new content first (the controller store's registry). The .mastermind folder must
// exist. A symlink, a non-regular file or a file over 1 MiB at the path is refused (an
// *fsx.PathError, or an error naming the size), so nothing outside the repository is written.
func EnsureGitignore(root string, record func(rel string, data []byte) error) error {
	d, err := fsx.OpenDir(root, path.Dir(GitignoreRel))
	if err != nil {
		return fmt.Errorf("%s: %w", GitignoreRel, err)
	}
	defer d.Close()
	old, err := d.ReadFile(path.Base(GitignoreRel), maxGitignoreBytes)
	var pe *fsx.PathError
	exists := true
	switch {
	case errors.As(err, &pe) && pe.Reason == fsx.ReasonMissing:
		exists = false
	case errors.As(err, &pe) && pe.Reason == fsx.ReasonTooLarge:
		return fmt.Errorf("%s is larger than %d bytes; add the line %s to it yourself", GitignoreRel, maxGitignoreBytes, LockPattern)
	case err != nil:
		return fmt.Errorf("%s: %w", GitignoreRel, err)
	}
	data, write := GitignoreContent(old, exists)
	if !write {
		return nil
	}
	if record != nil {
		if err := record(GitignoreRel, data); err != nil {
			return err
		}
	}
	return d.WriteFileAtomic(path.Base(GitignoreRel), data, 0o644)
}
