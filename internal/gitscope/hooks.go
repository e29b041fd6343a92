package gitscope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// ErrNoGitForHooks: HooksDir needs a git binary; there is no pure-Go fallback, because only git
// evaluates its configuration (include, includeIf, ~user paths) exactly as a later `git push`
// will, and a pre-push hook needs git anyway. The CLI maps it to exit 3.
var ErrNoGitForHooks = errors.New("finding the git hooks directory needs git, and no git binary was found on PATH")

// HooksLocation is where git looks for the hooks of one work tree, as git itself answers.
type HooksLocation struct {
	// Dir is the absolute, clean hooks directory, `git rev-parse --git-path hooks` joined with the
	// work-tree root when relative. Symbolic links are not resolved, because the caller refuses a
	// symlinked hooks directory.
	Dir string
	// Configured reports that core.hooksPath is set in a configuration file git reads.
	Configured bool
	// Value is core.hooksPath as written in the configuration ("" when not Configured).
	Value string
	// Origin is where core.hooksPath was set, as `git config --show-origin` says, with a relative
	// file made absolute: "file:/home/me/.gitconfig", "file:/repo/.git/config", or another
	// origin kind ("command line:", "blob:..."). "" when not Configured.
	Origin string
	// CommonDir is the common git directory, the main repository's for a linked worktree, absolute
	// and clean with symbolic links not resolved.
	CommonDir string
}

// hookEnvPassthrough are the caller's variables that HooksDir hands to git on top of the
// hardened environment. They choose the configuration files the user's own git reads, so they
// decide where a later `git push` looks for hooks; every other GIT_* variable stays dropped.
var hookEnvPassthrough = []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM"}

// HooksDir asks git where it looks for this work tree's hooks. It is the one query run without
// the core.hooksPath=/dev/null pin, the setting being asked about; internal/gitscope/README.md
// says why that is safe. An empty core.hooksPath is an error, because git versions disagree on it.
func (r *Repo) HooksDir(ctx context.Context) (HooksLocation, error) {
	if _, err := r.gitBinary(); err != nil {
		return HooksLocation{}, ErrNoGitForHooks
	}
	var env []string
	for _, k := range hookEnvPassthrough {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	var loc HooksLocation
	out, err := r.runSmall(ctx, r.root, baseGlobalArgs, env, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return HooksLocation{}, err
	}
	if loc.Dir, err = r.onePath(out, "hooks directory"); err != nil {
		return HooksLocation{}, err
	}
	out, err = r.runSmall(ctx, r.root, baseGlobalArgs, env, "rev-parse", "--git-common-dir")
	if err != nil {
		return HooksLocation{}, err
	}
	if loc.CommonDir, err = r.onePath(out, "common git directory"); err != nil {
		return HooksLocation{}, err
	}
	out, err = r.runSmall(ctx, r.root, baseGlobalArgs, env, "config", "-z", "--show-origin", "--get", "core.hooksPath")
	var gf *ErrGitFailed
	switch {
	case errors.As(err, &gf) && gf.Exit == 1:
		// `git config --get` of a valid key exits 1 only when it is not set; an unreadable
		// or malformed configuration file is a fatal error (128).
		return loc, nil
	case err != nil:
		return HooksLocation{}, err
	}
	origin, value, err := parseShowOrigin(out)
	if err != nil {
		return HooksLocation{}, err
	}
	if value == "" {
		return HooksLocation{}, fmt.Errorf("core.hooksPath is set to an empty value (%s); git versions disagree on what that means: set it to a directory or unset it", textsafe.Escape(origin))
	}
	if f, ok := strings.CutPrefix(origin, "file:"); ok && f != "" && !filepath.IsAbs(f) {
		origin = "file:" + filepath.Join(r.root, f)
	}
	loc.Configured, loc.Value, loc.Origin = true, value, origin
	return loc, nil
}

// onePath reads one path line of rev-parse output and makes it absolute from the root the
// command ran in.
func (r *Repo) onePath(out []byte, what string) (string, error) {
	p, ok := bytes.CutSuffix(out, []byte("\n"))
	if !ok || len(p) == 0 || bytes.ContainsAny(p, "\n\x00") {
		return "", &ErrGitFailed{Cmd: "rev-parse", Exit: -1, Stderr: "unexpected output: " + what}
	}
	s := string(p)
	if !filepath.IsAbs(s) {
		s = filepath.Join(r.root, s)
	}
	return filepath.Clean(s), nil
}

// parseShowOrigin splits `git config -z --show-origin --get` output: "<origin>\0<value>\0".
func parseShowOrigin(out []byte) (origin, value string, err error) {
	f := bytes.Split(out, []byte{0})
	if len(f) != 3 || len(f[2]) != 0 || len(f[0]) == 0 {
		return "", "", &ErrGitFailed{Cmd: "config", Exit: -1, Stderr: "unexpected output: core.hooksPath with its origin"}
	}
	return string(f[0]), string(f[1]), nil
}
