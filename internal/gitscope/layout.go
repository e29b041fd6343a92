package gitscope

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// gitDirOf resolves root/.git: a directory, or a file "gitdir: <path>" (linked worktrees,
// submodules, --separate-git-dir). It returns the git directory and the common directory (the
// one holding config and objects; differs for linked worktrees).
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
		line, _, _ := bytes.Cut(b, []byte("\n"))
		p, found := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
		if !found {
			return "", "", false
		}
		p = strings.TrimSpace(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		gitDir = filepath.Clean(p)
	} else if !fi.IsDir() {
		return "", "", false
	}
	commonDir = gitDir
	if b, err := readRegular(filepath.Join(gitDir, "commondir"), 64<<10); err == nil {
		p := strings.TrimSpace(string(b))
		if !filepath.IsAbs(p) {
			p = filepath.Join(gitDir, p)
		}
		commonDir = filepath.Clean(p)
	}
	return gitDir, commonDir, true
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
