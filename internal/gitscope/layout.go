package gitscope

import (
	"path/filepath"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/fsx"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// gitDirOf resolves root/.git, a directory or a "gitdir: <path>" file, and returns the git
// directory and the common directory that holds config and objects (fsx.GitDirOf).
func gitDirOf(root string) (gitDir, commonDir string, ok bool) { return fsx.GitDirOf(root) }

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
