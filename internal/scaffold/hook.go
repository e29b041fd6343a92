package scaffold

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// HookName is the git hook new installs write.
const HookName = "pre-push"

// HookMarker is the comment line that identifies a hook written by InstallHook. A hook file
// holding it is ours and may be updated without --force.
const HookMarker = "# mastermind-hook: pre-push"

// maxHookBytes bounds the existing hook file read by InstallHook.
const maxHookBytes = 1 << 20

// Hook actions reported in HookResult.Action.
const (
	HookInstalled = "installed" // no hook existed
	HookUnchanged = "unchanged" // our hook with the same text and mode was already there
	HookUpdated   = "updated"   // our hook with other text (another --fail-on, older version) was rewritten
	HookReplaced  = "replaced"  // a foreign hook was replaced because Force was set
)

// HookOptions are the inputs of InstallHook.
type HookOptions struct {
	// FailOn is "broken" or "drift": the lowest gate verdict that blocks the push.
	FailOn string
	// Force replaces an existing regular hook file that lacks HookMarker.
	Force bool
}

// HookResult says what InstallHook did.
type HookResult struct {
	Path     string       // absolute path of the hook file
	Action   string       // HookInstalled, HookUnchanged, HookUpdated or HookReplaced
	Location HookLocation // where the hooks directory came from
}

// RefusedError is an existing hook that InstallHook will not replace: a foreign hook without
// Force, or a symbolic link or non-regular file (never replaced, even with Force). It is "does
// not pass" (exit 1).
type RefusedError struct {
	Path   string
	Reason string // a finished clause naming what was found and what to do
}

func (e *RefusedError) Error() string { return fmt.Sprintf("%s %s", e.Path, e.Reason) }

// HookScript returns the pre-push hook text, which runs `mastermind gate --base <remote sha>
// --head <local sha>` for each pushed ref, with --fail-on drift when failOn is "drift". Its
// handling of deleted refs, new branches and a missing binary is in trust-model.md §5.
func HookScript(failOn string) []byte {
	flags := ""
	blocks := "a broken verdict"
	if failOn == "drift" {
		flags = " --fail-on drift"
		blocks = "a broken or drift verdict"
	}
	return []byte(`#!/bin/sh
` + HookMarker + ` v2
# Installed by "mastermind hook install": gates exactly the commits being pushed with
# mastermind's pre-merge gate against the remote (gate --base <remote sha> --head <local sha>,
# one run per pushed ref) and blocks the push on ` + blocks + `.
# Set MASTERMIND to the binary to use when mastermind is not on PATH.
# Reinstall with "mastermind hook install"; delete this file to uninstall.
mm=${MASTERMIND:-mastermind}
if ! command -v "$mm" >/dev/null 2>&1; then
	echo "pre-push: $mm not found; install mastermind, set MASTERMIND, or remove $0" >&2
	exit 1
fi
remote=${1:-origin}
status=0
while read -r local_ref local_sha remote_ref remote_sha; do
	[ -n "$local_sha" ] || continue
	case $local_sha in *[!0]*) ;; *) continue ;; esac # a deleted ref: nothing to gate
	case $remote_sha in
	*[!0]*)
		if ! git cat-file -e "$remote_sha^{commit}" 2>/dev/null; then
			echo "pre-push: $remote_ref is at $remote_sha on $remote, which this repository does not have; fetch first (git fetch $remote)" >&2
			status=1
			continue
		fi
		base=$remote_sha
		;;
	*) # a new branch: against the merge base with the remote's default branch
		base=
		for ref in "refs/remotes/$remote/HEAD" "refs/remotes/$remote/main" "refs/remotes/$remote/master"; do
			if base=$(git rev-parse -q --verify "$ref^{commit}" 2>/dev/null); then break; fi
			base=
		done
		if [ -z "$base" ]; then
			echo "pre-push: cannot find the default branch of $remote for the new branch $remote_ref; run git remote set-head $remote --auto (or git fetch $remote)" >&2
			status=1
			continue
		fi
		;;
	esac
	echo "pre-push: mastermind gate --base $base --head $local_sha ($local_ref)" >&2
	"$mm" gate --base "$base" --head "$local_sha"` + flags + ` </dev/null || status=1
done
exit $status
`)
}

// InstallHook writes HookScript atomically with mode 0755 into the hooks directory git names for
// repo's work tree, following no symbolic link. A foreign file is a *RefusedError unless o.Force,
// and a symbolic link or non-regular file at the hook path always is.
func InstallHook(ctx context.Context, repo *gitscope.Repo, o HookOptions) (HookResult, error) {
	loc, err := HooksDir(ctx, repo)
	if err != nil {
		return HookResult{}, err
	}
	if err := ensureHooksDir(repo.Root(), loc); err != nil {
		return HookResult{}, err
	}
	res := HookResult{Path: filepath.Join(loc.Dir, HookName), Action: HookInstalled, Location: loc}
	want := HookScript(o.FailOn)
	fi, err := os.Lstat(res.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return res, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return res, &RefusedError{Path: res.Path, Reason: "is a symbolic link; mastermind never follows links. Remove it and run hook install again"}
	case !fi.Mode().IsRegular():
		return res, &RefusedError{Path: res.Path, Reason: "is not a regular file; remove it and run hook install again"}
	default:
		have, err := fsx.ReadFile(res.Path, maxHookBytes)
		if err != nil && fsx.ReasonOf(err) != fsx.ReasonTooLarge {
			return res, err
		}
		switch {
		case bytes.Equal(have, want) && fi.Mode().Perm() == 0o755:
			res.Action = HookUnchanged
			return res, nil
		case bytes.Contains(have, []byte(HookMarker)):
			res.Action = HookUpdated
		case o.Force:
			res.Action = HookReplaced
		default:
			return res, &RefusedError{Path: res.Path, Reason: "already exists and was not installed by mastermind; merge the gate into it by hand (mastermind gate --base <remote sha> --head <local sha> --fail-on drift for each pushed ref), or replace it with --force"}
		}
	}
	if err := fsx.CheckWritable(res.Path); err != nil {
		return res, err
	}
	if err := fsx.WriteFileAtomicMode(res.Path, want, 0o755); err != nil {
		return res, fmt.Errorf("write %s: %w", res.Path, err)
	}
	return res, nil
}

// ensureHooksDir creates the hooks directory loc.Dir when missing. Below the work tree or below
// the common git directory (where linked worktrees keep their hooks, outside the work tree) no
// component may be a symbolic link; elsewhere (an absolute core.hooksPath) the directory itself
// must not be one.
func ensureHooksDir(root string, loc HookLocation) error {
	dir := loc.Dir
	for _, base := range []string{root, loc.commonDir} {
		if base == "" {
			continue
		}
		rel, err := filepath.Rel(base, dir)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		return ensureDirs(base, filepath.ToSlash(rel))
	}
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return &fsx.PathError{Path: dir, Reason: fsx.ReasonSymlink}
	}
	if !fi.IsDir() {
		return fmt.Errorf("hooks directory %s is not a directory", dir)
	}
	return nil
}
