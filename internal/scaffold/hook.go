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

// HookScript returns the pre-push hook text for failOn ("drift" runs `mastermind gate --fail-on
// drift`; anything else runs `mastermind gate`, which fails on broken only). The script uses
// $MASTERMIND when set, otherwise mastermind from PATH, and exits 1 when neither is found, so a
// missing binary blocks the push instead of silently skipping the gate.
func HookScript(failOn string) []byte {
	gate := `"$mm" gate`
	blocks := "a broken verdict"
	if failOn == "drift" {
		gate += " --fail-on drift"
		blocks = "a broken or drift verdict"
	}
	return []byte(`#!/bin/sh
` + HookMarker + ` v1
# Installed by "mastermind hook install": runs mastermind's pre-merge gate over
# every open task and blocks the push on ` + blocks + `.
# Set MASTERMIND to the binary to use when mastermind is not on PATH.
# Reinstall with "mastermind hook install"; delete this file to uninstall.
mm=${MASTERMIND:-mastermind}
if ! command -v "$mm" >/dev/null 2>&1; then
	echo "pre-push: $mm not found; install mastermind, set MASTERMIND, or remove $0" >&2
	exit 1
fi
exec ` + gate + `
`)
}

// InstallHook writes the pre-push hook (HookScript) into the hooks directory of repo's work tree
// (HooksDir, answered by git), creating the directory when missing. The file is written
// atomically with mode 0755. An identical hook of ours is left alone (HookUnchanged); another
// hook of ours is rewritten; a foreign regular file is a *RefusedError unless o.Force. A symbolic
// link or non-regular file at the hook path is always a *RefusedError, and a symlinked hooks
// directory or ancestor below the work tree or common git directory is an *fsx.PathError: links
// are never followed. Without a git binary the error is gitscope.ErrNoGitForHooks. Other
// failures are git or I/O errors.
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
			return res, &RefusedError{Path: res.Path, Reason: "already exists and was not installed by mastermind; merge the gate into it by hand (mastermind gate --fail-on drift), or replace it with --force"}
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
