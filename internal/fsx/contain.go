package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Rel converts path, absolute or relative to the current directory, to a slash-separated path
// relative to the absolute, clean root, resolving no symlink. A path that escapes root is a
// *PathError with ReasonOutsideRoot.
func Rel(root, path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", &PathError{Path: path, Reason: ReasonOutsideRoot}
	}
	return filepath.ToSlash(rel), nil
}

// CheckNoSymlink verifies that no component of the slash-separated rel below root is a symbolic
// link and every ancestor is a directory. "." and ".." are ReasonOutsideRoot; the final
// component may be any other type, which callers that need a regular file check on open.
func CheckNoSymlink(root, rel string) error {
	if rel == "" || filepath.IsAbs(rel) {
		return &PathError{Path: rel, Reason: ReasonOutsideRoot}
	}
	parts := strings.Split(rel, "/")
	cur := root
	for i, p := range parts {
		if p == "" || p == "." || p == ".." {
			return &PathError{Path: rel, Reason: ReasonOutsideRoot}
		}
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(cur)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return &PathError{Path: rel, Reason: ReasonMissing}
			}
			return err
		}
		last := i == len(parts)-1
		if fi.Mode()&fs.ModeSymlink != 0 {
			if last {
				return &PathError{Path: rel, Reason: ReasonSymlink}
			}
			return &PathError{Path: rel, Reason: ReasonSymlinkedAncestor, Detail: strings.Join(parts[:i+1], "/")}
		}
		if !last && !fi.IsDir() {
			return &PathError{Path: rel, Reason: ReasonNotRegular, Detail: "a non-directory ancestor " + strings.Join(parts[:i+1], "/")}
		}
	}
	return nil
}

// ReadInRoot reads root/rel after CheckNoSymlink, with ReadFile's limit and checks. rel is
// slash-separated and relative to root.
func ReadInRoot(root, rel string, limit int64) ([]byte, error) {
	if err := CheckNoSymlink(root, rel); err != nil {
		return nil, err
	}
	return ReadFile(filepath.Join(root, filepath.FromSlash(rel)), limit)
}

// RelReal is Rel, and when path is not inside root as written, Rel of the real paths, since the
// working directory may be reached through a symlink such as macOS's /tmp. Symlinks inside the
// repository part of path are not resolved; callers check them with CheckNoSymlink.
func RelReal(root, path string) (string, error) {
	rel, err := Rel(root, path)
	if err == nil {
		return rel, nil
	}
	realRoot, rerr := filepath.EvalSymlinks(root)
	if rerr != nil {
		return "", err
	}
	abs, aerr := filepath.Abs(path)
	if aerr != nil {
		return "", err
	}
	dir, rest := abs, ""
	for {
		if real, eerr := filepath.EvalSymlinks(dir); eerr == nil {
			return Rel(realRoot, filepath.Join(real, rest))
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", err
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}
