package gitscope

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// errAlternates is the layout go-git cannot read objects from: objects/info/alternates.
var errAlternates = errors.New("objects/info/alternates (a --shared or --reference clone): the built-in reader does not find borrowed objects")

// openGoGit opens the repository at root for go-git as git.PlainOpenWithOptions does with
// EnableDotGitCommonDir, but refuses a common directory with objects/info/alternates and any
// FIFO, socket or device go-git would read (gitscope.md §4.8). Every go-git open of a work tree
// comes here.
func openGoGit(root string) (*git.Repository, error) {
	gitDir, commonDir, ok := gitDirOf(root)
	if !ok {
		return nil, git.ErrRepositoryNotExists
	}
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
		return nil, git.ErrRepositoryNotExists
	}
	if _, err := os.Lstat(filepath.Join(commonDir, "objects", "info", "alternates")); err == nil {
		return nil, errAlternates
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("objects/info/alternates: %w", err)
	}
	var repoFS billy.Filesystem = regularFS{osfs.New(gitDir)}
	if commonDir != gitDir {
		repoFS = dotgit.NewRepositoryFilesystem(repoFS, regularFS{osfs.New(commonDir)})
	}
	return git.Open(filesystem.NewStorage(repoFS, cache.NewObjectLRUDefault()), osfs.New(root))
}

// errNotRegularGitFile is a FIFO, socket or device where go-git would read a repository file.
var errNotRegularGitFile = errors.New("repository file is a FIFO, socket or device")

// regularFS is a billy.Filesystem whose read opens refuse FIFOs, sockets and devices, following
// symbolic links as the open would. The check and the open are not atomic, which is safe because
// the executor has finished when the audit reads the repository.
type regularFS struct{ billy.Filesystem }

// Open opens name for reading.
func (r regularFS) Open(name string) (billy.File, error) {
	return r.OpenFile(name, os.O_RDONLY, 0)
}

// OpenFile refuses a special file when it opens name for reading only.
func (r regularFS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE) == 0 {
		if fi, err := r.Filesystem.Stat(name); err == nil && fi.Mode()&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice|fs.ModeCharDevice|fs.ModeIrregular) != 0 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: errNotRegularGitFile}
		}
	}
	return r.Filesystem.OpenFile(name, flag, perm)
}

// Chroot keeps the check below the new root.
func (r regularFS) Chroot(path string) (billy.Filesystem, error) {
	c, err := r.Filesystem.Chroot(path)
	if err != nil {
		return nil, err
	}
	return regularFS{c}, nil
}
