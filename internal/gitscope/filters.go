package gitscope

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// maxFilterDrivers bounds the filter drivers gitscope disables, each costing eight arguments on
// every diff command line; more is refused.
const maxFilterDrivers = 1000

// filterGuardArgs returns the -c settings that disable every filter driver the configuration
// defines for one command, because a clean or process driver could rewrite an edited file into
// the baseline's bytes when git hashes it (gitscope.md §4.8). It also refuses a FIFO, socket or
// device at the core.excludesFile and core.attributesFile the configuration names.
func (r *Repo) filterGuardArgs(ctx context.Context) ([]string, error) {
	list, err := r.configList(ctx)
	if err != nil {
		return nil, err
	}
	excludes, attributes := r.globalInputPaths(list, true)
	for _, p := range []string{excludes, attributes} {
		if err := checkRegularIfPresent(p); err != nil {
			return nil, err
		}
	}
	args, err := filterArgsFromList(list)
	if err != nil {
		return nil, err
	}
	es, _ := parseConfigList(list)
	if v, ok := lastValue(es, "core.sparsecheckout"); ok && strings.EqualFold(v, "true") {
		args = append(args, sparseArgs...)
	}
	return args, nil
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
