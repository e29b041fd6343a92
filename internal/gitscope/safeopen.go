package gitscope

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// ErrUnsafeRepository: a file git and go-git read while opening the repository is not a regular
// file or directory. A FIFO would block every reader forever and a device would flood it, so such
// files are refused before anything reads them.
var ErrUnsafeRepository = errors.New("repository file is not a regular file")

// openRegular opens path for reading without blocking, following symlinks as git does, and
// returns it only if it is a regular file; anything else is ErrUnsafeRepository. A missing file
// is an error that is fs.ErrNotExist.
func openRegular(path string) (*os.File, error) {
	f, err := fsx.OpenFollow(path)
	return f, unsafeIfNotRegular(path, err)
}

// readRegular reads at most limit bytes of the regular file at path (fsx.ReadFollow: see
// openRegular); more is an error.
func readRegular(path string, limit int64) ([]byte, error) {
	b, err := fsx.ReadFollow(path, limit)
	return b, unsafeIfNotRegular(path, err)
}

// unsafeIfNotRegular turns fsx's not-regular refusal into ErrUnsafeRepository.
func unsafeIfNotRegular(path string, err error) error {
	var pe *fsx.PathError
	if errors.As(err, &pe) && pe.Reason == fsx.ReasonNotRegular {
		return fmt.Errorf("%s: %w (%s)", path, ErrUnsafeRepository, pe.Detail)
	}
	return err
}

func describeType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "directory"
	}
	return "special file"
}

// checkRegularIfPresent stats path (following symlinks) and returns an ErrUnsafeRepository error
// when it exists but is not a regular file.
func checkRegularIfPresent(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil // absent or unreadable: git reports that itself
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s)", path, ErrUnsafeRepository, describeType(fi.Mode()))
	}
	return nil
}

// checkGitFiles refuses a repository whose git directory holds a non-regular file where git and
// go-git read one while opening it and resolving HEAD. root is the work-tree top level (holding
// .git). Nothing is opened for reading except through openRegular.
func checkGitFiles(root string) error {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		return nil
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s)", dotgit, ErrUnsafeRepository, describeType(fi.Mode()))
	}
	if fi.Mode().IsRegular() {
		if _, err := readRegular(dotgit, 64<<10); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := checkRegularIfPresent(filepath.Join(dotgit, "commondir")); err != nil {
		return err
	}
	gitDir, commonDir, ok := gitDirOf(root)
	if !ok {
		return nil
	}
	return checkGitDirFiles(gitDir, commonDir)
}

// checkGitDirFiles is checkGitFiles for a known git directory and common directory.
func checkGitDirFiles(gitDir, commonDir string) error {
	for _, p := range []string{
		filepath.Join(gitDir, "commondir"),
		filepath.Join(gitDir, "HEAD"),
		filepath.Join(gitDir, "index"),
		filepath.Join(gitDir, "config.worktree"),
		filepath.Join(commonDir, "config"),
		filepath.Join(commonDir, "config.worktree"),
		filepath.Join(commonDir, "packed-refs"),
		filepath.Join(commonDir, "info", "exclude"),
		filepath.Join(commonDir, "objects", "info", "alternates"),
		filepath.Join(commonDir, "shallow"),
	} {
		if err := checkRegularIfPresent(p); err != nil {
			return err
		}
	}
	// The ref HEAD names (a loose ref file), in the git directory or the common directory.
	head, err := readRegular(filepath.Join(gitDir, "HEAD"), 64<<10)
	if err != nil {
		return nil
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	ref, isRef := strings.CutPrefix(strings.TrimSpace(string(line)), "ref:")
	ref = strings.TrimSpace(ref)
	if !isRef || ref == "" || strings.Contains(ref, "..") || filepath.IsAbs(ref) {
		return nil
	}
	for _, d := range []string{gitDir, commonDir} {
		if err := checkRegularIfPresent(filepath.Join(d, filepath.FromSlash(ref))); err != nil {
			return err
		}
	}
	return nil
}

// findBare walks up from dir to the first directory that looks like a bare repository: a HEAD
// file, objects and refs directories, and no .git entry.
func findBare(dir string) (string, bool) {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return "", false
		}
		h, herr := os.Lstat(filepath.Join(dir, "HEAD"))
		o, oerr := os.Stat(filepath.Join(dir, "objects"))
		rf, rerr := os.Stat(filepath.Join(dir, "refs"))
		if herr == nil && oerr == nil && rerr == nil && !h.IsDir() && o.IsDir() && rf.IsDir() {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// BareRepositoryError is Discover's and Open's error for a bare repository: there is no working
// tree to compare. errors.Is(err, ErrNotRepository) holds for it (exit 3).
type BareRepositoryError struct{ Dir string }

func (e *BareRepositoryError) Error() string {
	return fmt.Sprintf("%s is a bare repository, which has no working tree to audit; run mastermind in a checkout of it (git clone or git worktree add)", e.Dir)
}

// Is makes errors.Is(err, ErrNotRepository) true.
func (e *BareRepositoryError) Is(target error) bool { return target == ErrNotRepository }

func bareError(dir string) error { return &BareRepositoryError{Dir: dir} }
