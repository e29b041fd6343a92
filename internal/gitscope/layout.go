package gitscope

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// gitDirOf resolves root/.git, a directory or a "gitdir: <path>" file, and returns the git
// directory and the common directory that holds config and objects.
func gitDirOf(root string) (gitDir, commonDir string, ok bool) {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return "", "", false
	}
	gitDir = dotgit
	if fi.Mode().IsRegular() {
		b, err := readRegular(dotgit, 64<<10)
		if err != nil {
			return "", "", false
		}
		// As git's read_gitfile_gently does: the exact prefix "gitdir: ", then the rest of the
		// file verbatim without its trailing CR and LF characters. Reading it any other way would
		// let git and go-git open different directories.
		rest, found := bytes.CutPrefix(b, []byte("gitdir: "))
		p := strings.TrimRight(string(rest), "\r\n")
		if !found || p == "" || strings.IndexByte(p, 0) >= 0 {
			return "", "", false
		}
		if gitDir, ok = realPath(root, p); !ok {
			return "", "", false
		}
	} else if !fi.IsDir() {
		return "", "", false
	}
	commonDir = gitDir
	if b, err := readRegular(filepath.Join(gitDir, "commondir"), 64<<10); err == nil {
		// git's get_common_dir_noenv: trailing CR and LF removed, nothing else.
		if commonDir, ok = realPath(gitDir, strings.TrimRight(string(b), "\r\n")); !ok {
			return "", "", false
		}
	}
	return gitDir, commonDir, true
}

// realPath resolves p, relative to dir unless absolute, on disk as git's real_pathdup does: a
// symbolic link is followed before a ".." after it applies, where a lexical Clean would open a
// different directory than git. ok is false when the path does not resolve.
func realPath(dir, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = dir + string(filepath.Separator) + p
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	return r, true
}

// readRepoConfig parses the repository's own config file (common dir), or nil.
func readRepoConfig(root string) *format.Config {
	_, common, ok := gitDirOf(root)
	if !ok {
		return nil
	}
	f, err := openRegular(filepath.Join(common, "config"))
	if err != nil {
		return nil
	}
	defer f.Close()
	cfg := format.New()
	if err := format.NewDecoder(f).Decode(cfg); err != nil {
		return nil
	}
	return cfg
}

// isSHA256 reports whether the repository sets extensions.objectFormat=sha256.
func isSHA256(root string) bool {
	cfg := readRepoConfig(root)
	if cfg == nil {
		return false
	}
	return strings.EqualFold(cfg.Section("extensions").Option("objectformat"), "sha256")
}
