package gitscope

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// maxIgnoreFileBytes bounds one ignore file read by the degraded walk.
const maxIgnoreFileBytes = 4 << 20

// parseIgnoreData turns ignore-file bytes into go-git patterns rooted at domain, the components
// of the directory holding the file. Comments and blank lines are skipped, as git does.
func parseIgnoreData(data []byte, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	// git skips a UTF-8 byte order mark at the start of an ignore file (dir.c skip_utf8_bom).
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxIgnoreFileBytes)
	for sc.Scan() {
		s := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(s, "#") || strings.TrimSpace(s) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(s, domain))
	}
	return ps
}

// readIgnoreFile reads one ignore file if it is a regular file of at most 4 MiB, never through a
// symlink, as git 2.32 and later refuse symlinked .gitignore files.
func readIgnoreFile(path string, domain []string) []gitignore.Pattern {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxIgnoreFileBytes {
		return nil
	}
	data, err := readRegular(path, maxIgnoreFileBytes)
	if err != nil {
		return nil
	}
	return parseIgnoreData(data, domain)
}

// readConfigFile parses one git config file, or nil.
func readConfigFile(path string) *format.Config {
	f, err := openRegular(path)
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

// xdgConfigHome is $XDG_CONFIG_HOME, or ~/.config.
func xdgConfigHome() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return x
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".config")
	}
	return ""
}

// expandTilde expands a leading "~/" with $HOME, as git does for core.excludesFile.
func expandTilde(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, rest)
		}
	}
	return p
}

// basePatterns loads the ignore sources below the per-directory .gitignore files, lowest
// priority first: core.excludesFile, then <common dir>/info/exclude. `include` directives in
// config files are not followed, a documented divergence.
func basePatterns(root string) []gitignore.Pattern {
	excludes := ""
	configs := []string{}
	if x := xdgConfigHome(); x != "" {
		configs = append(configs, filepath.Join(x, "git", "config"))
	}
	if h, err := os.UserHomeDir(); err == nil {
		configs = append(configs, filepath.Join(h, ".gitconfig"))
	}
	for _, c := range configs {
		if cfg := readConfigFile(c); cfg != nil && cfg.Section("core").HasOption("excludesfile") {
			excludes = cfg.Section("core").Option("excludesfile")
		}
	}
	if cfg := readRepoConfig(root); cfg != nil && cfg.Section("core").HasOption("excludesfile") {
		excludes = cfg.Section("core").Option("excludesfile")
	}
	if excludes == "" {
		if x := xdgConfigHome(); x != "" {
			excludes = filepath.Join(x, "git", "ignore")
		}
	}
	var ps []gitignore.Pattern
	if excludes != "" {
		ps = append(ps, readIgnoreFile(expandTilde(excludes), nil)...)
	}
	if _, common, ok := gitDirOf(root); ok {
		ps = append(ps, readIgnoreFile(filepath.Join(common, "info", "exclude"), nil)...)
	}
	return ps
}

// gitignorePattern is go-git's ignore pattern.
type gitignorePattern = gitignore.Pattern

// parseConfigBytes parses git config file bytes, or nil.
func parseConfigBytes(b []byte) *format.Config {
	cfg := format.New()
	if err := format.NewDecoder(bytes.NewReader(b)).Decode(cfg); err != nil {
		return nil
	}
	return cfg
}
