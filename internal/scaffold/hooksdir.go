package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// maxConfigBytes bounds each git configuration file read by HooksDir.
const maxConfigBytes = 4 << 20

// maxIncludeDepth bounds nested include.path files, as git does (10).
const maxIncludeDepth = 10

// HookLocation is where git looks for hooks in one work tree.
type HookLocation struct {
	// Dir is the absolute hooks directory.
	Dir string
	// Source is "core.hooksPath" when the configuration sets it, otherwise "default"
	// (<common git dir>/hooks).
	Source string
	// ConfigFile is the configuration file that set core.hooksPath ("" for the default).
	ConfigFile string
	// Unsure lists configuration files with includeIf sections, which HooksDir cannot evaluate
	// without git: one of them might set core.hooksPath.
	Unsure []string
}

// HooksDir finds the hooks directory of the work tree whose top level is root, the way
// `git rev-parse --git-path hooks` does, without running git: it resolves root/.git (a directory,
// or a "gitdir:" file for linked worktrees and separate git dirs) and its commondir, then reads
// core.hooksPath from the configuration files in git's order: system (/etc/gitconfig, or
// $GIT_CONFIG_SYSTEM; skipped when $GIT_CONFIG_NOSYSTEM is true), global ($GIT_CONFIG_GLOBAL, or
// $XDG_CONFIG_HOME/git/config then ~/.gitconfig), the repository's config and, with
// extensions.worktreeConfig, config.worktree. The last value wins; include.path files are
// followed; includeIf sections are reported in Unsure. A hooksPath starting with "~/" is taken
// from the home directory, a relative one from root. Without core.hooksPath the directory is
// <common git dir>/hooks (shared by linked worktrees). A root without .git is an error.
func HooksDir(root string) (HookLocation, error) {
	gitDir, commonDir, err := gitDirs(root)
	if err != nil {
		return HookLocation{}, err
	}
	var files []string
	if !envTrue("GIT_CONFIG_NOSYSTEM") {
		if p := os.Getenv("GIT_CONFIG_SYSTEM"); p != "" {
			files = append(files, p)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	if p := os.Getenv("GIT_CONFIG_GLOBAL"); p != "" {
		files = append(files, p)
	} else {
		home, _ := os.UserHomeDir()
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			files = append(files, filepath.Join(x, "git", "config"))
		} else if home != "" {
			files = append(files, filepath.Join(home, ".config", "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	local := filepath.Join(commonDir, "config")
	files = append(files, local)

	r := &configReader{}
	for _, f := range files {
		if err := r.read(f, 0); err != nil {
			return HookLocation{}, err
		}
		if f == local && r.worktreeConfig {
			if err := r.read(filepath.Join(gitDir, "config.worktree"), 0); err != nil {
				return HookLocation{}, err
			}
		}
	}
	loc := HookLocation{Unsure: r.unsure}
	if r.hooksPath == "" {
		loc.Dir, loc.Source = filepath.Join(commonDir, "hooks"), "default"
		return loc, nil
	}
	dir, err := expandPath(r.hooksPath, root)
	if err != nil {
		return HookLocation{}, fmt.Errorf("%s: core.hooksPath %q: %w", r.hooksFile, r.hooksPath, err)
	}
	loc.Dir, loc.Source, loc.ConfigFile = dir, "core.hooksPath", r.hooksFile
	return loc, nil
}

// configReader accumulates the settings HooksDir needs across configuration files.
type configReader struct {
	hooksPath, hooksFile string
	worktreeConfig       bool
	unsure               []string
}

// read decodes one configuration file (a missing file is skipped) and follows include.path.
func (r *configReader) read(file string, depth int) error {
	data, err := fsx.ReadFile(file, maxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) || fsx.ReasonOf(err) == fsx.ReasonMissing {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read git configuration %s: %w", file, err)
	}
	cfg := format.New()
	if err := format.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
		return fmt.Errorf("git configuration %s cannot be parsed: %v", file, err)
	}
	for _, s := range cfg.Sections {
		switch {
		case s.IsName("core"):
			for _, o := range s.Options {
				if o.IsKey("hookspath") {
					r.hooksPath, r.hooksFile = o.Value, file
				}
			}
		case s.IsName("extensions"):
			for _, o := range s.Options {
				if o.IsKey("worktreeconfig") {
					r.worktreeConfig = boolValue(o.Value)
				}
			}
		case s.IsName("include"):
			for _, o := range s.Options {
				if !o.IsKey("path") || o.Value == "" {
					continue
				}
				if depth >= maxIncludeDepth {
					return fmt.Errorf("git configuration %s: include.path nested more than %d deep", file, maxIncludeDepth)
				}
				inc, err := expandPath(o.Value, filepath.Dir(file))
				if err != nil {
					return fmt.Errorf("git configuration %s: include.path %q: %w", file, o.Value, err)
				}
				if err := r.read(inc, depth+1); err != nil {
					return err
				}
			}
		case s.IsName("includeif"):
			r.unsure = append(r.unsure, file)
		}
	}
	return nil
}

// expandPath applies git's pathname rules: "~/" is the home directory, an absolute path is kept,
// anything else is relative to base. "~user/" is not supported.
func expandPath(p, base string) (string, error) {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, strings.TrimPrefix(p[1:], "/")), nil
	case strings.HasPrefix(p, "~"):
		return "", errors.New("~user paths are not supported; use an absolute path")
	case filepath.IsAbs(p):
		return filepath.Clean(p), nil
	}
	return filepath.Join(base, p), nil
}

// gitDirs resolves root/.git to the git directory and the common directory (they differ for
// linked worktrees, whose .git file points into <common>/worktrees/<name>).
func gitDirs(root string) (gitDir, commonDir string, err error) {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return "", "", fmt.Errorf("%s: not a git work tree (no .git): %w", root, err)
	}
	gitDir = dotgit
	switch {
	case fi.Mode().IsRegular():
		b, err := fsx.ReadFile(dotgit, 64<<10)
		if err != nil {
			return "", "", err
		}
		line, _, _ := bytes.Cut(b, []byte("\n"))
		p, found := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
		if !found {
			return "", "", fmt.Errorf("%s: expected a \"gitdir: <path>\" line", dotgit)
		}
		p = strings.TrimSpace(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		gitDir = filepath.Clean(p)
	case !fi.IsDir():
		return "", "", fmt.Errorf("%s is neither a directory nor a gitdir file", dotgit)
	}
	commonDir = gitDir
	b, err := fsx.ReadFile(filepath.Join(gitDir, "commondir"), 64<<10)
	switch {
	case err == nil:
		p := strings.TrimSpace(string(b))
		if !filepath.IsAbs(p) {
			p = filepath.Join(gitDir, p)
		}
		commonDir = filepath.Clean(p)
	case fsx.ReasonOf(err) != fsx.ReasonMissing && !errors.Is(err, fs.ErrNotExist):
		return "", "", err
	}
	return gitDir, commonDir, nil
}

// boolValue interprets a git boolean (true/yes/on/1, case-insensitive; a bare key is true).
func boolValue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "true", "yes", "on", "1":
		return true
	}
	return false
}

// envTrue interprets an environment variable as a git boolean; unset or empty is false.
func envTrue(name string) bool {
	v, ok := os.LookupEnv(name)
	return ok && v != "" && boolValue(v)
}
