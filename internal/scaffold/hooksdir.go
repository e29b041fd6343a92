package scaffold

import (
	"context"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// HookLocation is where git looks for hooks in one work tree.
type HookLocation struct {
	// Dir is the absolute hooks directory.
	Dir string
	// Source is "core.hooksPath" when the configuration sets it, otherwise "default"
	// (<common git dir>/hooks).
	Source string
	// ConfigFile is the configuration file that set core.hooksPath ("" for the default); for a
	// setting that did not come from a file, git's --show-origin text.
	ConfigFile string

	commonDir string // the common git directory, a trusted anchor for ensureHooksDir
}

// HooksDir asks git where it looks for hooks in repo's work tree (gitscope's Repo.HooksDir:
// `git rev-parse --git-path hooks` and `git config --show-origin --get core.hooksPath`), so every
// configuration file, include.path and includeIf is evaluated by git itself. Without a git
// binary the error is gitscope.ErrNoGitForHooks.
func HooksDir(ctx context.Context, repo *gitscope.Repo) (HookLocation, error) {
	g, err := repo.HooksDir(ctx)
	if err != nil {
		return HookLocation{}, err
	}
	loc := HookLocation{Dir: g.Dir, Source: "default", commonDir: g.CommonDir}
	if g.Configured {
		loc.Source = "core.hooksPath"
		loc.ConfigFile = g.Origin
		if f, ok := strings.CutPrefix(g.Origin, "file:"); ok {
			loc.ConfigFile = f
		}
	}
	return loc, nil
}
