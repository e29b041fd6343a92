package gitscope

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// maxFilterDrivers bounds the filter drivers gitscope disables; more is refused (each costs
// eight arguments on every diff command line).
const maxFilterDrivers = 1000

// filterListArgs reads the names of every filter.<driver>.* setting git would see (system,
// global, repository, worktree configuration and their includes). Reading configuration runs
// nothing.
var filterListArgs = []string{"config", "-z", "--name-only", "--get-regexp", `^filter\.`}

// filterGuardArgs returns, for every filter driver the configuration defines, the -c settings
// that disable it for one command: `filter.<driver>.clean=`, `.smudge=`, `.process=` (git runs
// no command for an empty value: convert.c apply_filter tests `cmd && *cmd`) and
// `.required=false` (a required driver that runs nothing would be a fatal error). git would
// otherwise run a clean or process command named in the agent-editable configuration, for a
// path named in .gitattributes, .git/info/attributes or core.attributesFile, whenever it hashes
// a stat-dirty file — and such a command can rewrite an edited file into the baseline's bytes.
//
// A driver name containing '=' cannot be written as `-c <key>=<value>` (git splits at the
// first '='); it is refused with *ErrGitFailed rather than left enabled, as are more than
// maxFilterDrivers drivers. git config's exit status 1 with no output means no driver.
func (r *Repo) filterGuardArgs(ctx context.Context) ([]string, error) {
	out, err := r.runSimple(ctx, r.root, filterListArgs...)
	if err != nil {
		var gf *ErrGitFailed
		if errors.As(err, &gf) && gf.Exit == 1 && len(out) == 0 {
			return nil, nil
		}
		return nil, err
	}
	drivers, err := parseFilterDrivers(out)
	if err != nil {
		return nil, &ErrGitFailed{Cmd: "config", Exit: -1, Stderr: err.Error()}
	}
	return disableDrivers(drivers), nil
}

// filterArgsFromList is filterGuardArgs from a `git config --list -z` listing already read.
func filterArgsFromList(list []byte) ([]string, error) {
	es, err := parseConfigList(list)
	if err != nil {
		return nil, &ErrGitFailed{Cmd: "config", Exit: -1, Stderr: err.Error()}
	}
	var names []byte
	for _, e := range es {
		if strings.HasPrefix(strings.ToLower(e.key), "filter.") {
			names = append(append(names, "filter."+e.key[len("filter."):]...), 0)
		}
	}
	drivers, err := parseFilterDrivers(names)
	if err != nil {
		return nil, &ErrGitFailed{Cmd: "config", Exit: -1, Stderr: err.Error()}
	}
	return disableDrivers(drivers), nil
}

// disableDrivers renders the -c settings that disable each driver (see filterGuardArgs).
func disableDrivers(drivers []string) []string {
	args := make([]string, 0, 8*len(drivers))
	for _, d := range drivers {
		for _, kv := range []string{"clean=", "smudge=", "process=", "required=false"} {
			args = append(args, "-c", "filter."+d+"."+kv)
		}
	}
	return args
}

// parseFilterDrivers reads `git config -z --name-only` output (NUL-terminated keys) and returns
// the sorted, unique driver names: the subsection of each filter.<driver>.<key>, which may be
// empty or contain dots. A key without a subsection ("filter.x") names no driver.
func parseFilterDrivers(out []byte) ([]string, error) {
	seen := map[string]bool{}
	var drivers []string
	for len(out) > 0 {
		i := slices.Index(out, 0)
		if i < 0 {
			return nil, fmt.Errorf("unexpected output: missing trailing NUL")
		}
		key := string(out[:i])
		out = out[i+1:]
		rest, ok := strings.CutPrefix(key, "filter.")
		if !ok {
			return nil, fmt.Errorf("unexpected output: key %q", truncateForMessage([]byte(key)))
		}
		dot := strings.LastIndexByte(rest, '.')
		if dot < 0 {
			continue
		}
		d := rest[:dot]
		if seen[d] {
			continue
		}
		if strings.ContainsAny(d, "=\n\x00") {
			return nil, fmt.Errorf("the configuration defines filter driver %q, which cannot be disabled on the git command line; remove it", truncateForMessage([]byte(d)))
		}
		seen[d] = true
		drivers = append(drivers, d)
		if len(drivers) > maxFilterDrivers {
			return nil, fmt.Errorf("the configuration defines more than %d filter drivers", maxFilterDrivers)
		}
	}
	slices.Sort(drivers)
	return drivers, nil
}

// filterGuard runs filterGuardArgs in the background; wait returns its result. It lets the
// configuration read overlap the private-index copy and the other recipe commands, so only a
// diff waits for it.
type filterGuard struct {
	done chan struct{}
	args []string
	err  error
}

func (r *Repo) startFilterGuard(ctx context.Context) *filterGuard {
	g := &filterGuard{done: make(chan struct{})}
	go func() {
		defer close(g.done)
		g.args, g.err = r.filterGuardArgs(ctx)
	}()
	return g
}

func (g *filterGuard) wait() ([]string, error) {
	<-g.done
	return g.args, g.err
}
