package gitscope

import (
	"context"
	"errors"
	"strings"
)

// Upstream names the upstream the local gate compares the branch with, chosen as trust-model.md
// §5 says: git's short name and its commit, both "" when there is none. Refs and configuration
// are the executor's to write, so the caller prints what it found.
func (r *Repo) Upstream(ctx context.Context) (name, oid string, err error) {
	if !r.gitUsable() {
		return "", "", nil
	}
	short := func(args ...string) (string, bool, error) {
		out, err := r.runSimple(ctx, r.root, args...)
		var gf *ErrGitFailed
		if errors.As(err, &gf) && gf.Exit > 0 {
			return "", false, nil // no such ref or no upstream: git's answer, not a failure
		}
		if err != nil {
			return "", false, err
		}
		s := strings.TrimSpace(string(out))
		return s, s != "", nil
	}
	name, ok, err := short("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
	if err != nil {
		return "", "", err
	}
	if !ok {
		remotes, _, err := short("remote")
		if err != nil {
			return "", "", err
		}
		var cands []string
		for _, rm := range strings.Fields(remotes) {
			if rm == "origin" {
				cands = append([]string{rm}, cands...)
			} else if !strings.HasPrefix(rm, "-") {
				cands = append(cands, rm)
			}
		}
		if len(cands) > 1 && cands[0] != "origin" {
			cands = nil // several remotes and no origin: which one is the base is not ours to guess
		}
		for _, rm := range cands {
			if name, ok, err = short("symbolic-ref", "-q", "--short", "refs/remotes/"+rm+"/HEAD"); err != nil {
				return "", "", err
			} else if ok {
				break
			}
		}
	}
	if !ok || strings.HasPrefix(name, "-") {
		return "", "", nil
	}
	oid, err = r.ResolveRevision(ctx, name)
	if errors.Is(err, ErrRevisionNotFound) {
		return "", "", nil
	}
	return name, oid, err
}
