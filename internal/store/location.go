package store

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// EnvStateDir names the environment variable that sets the store root.
const EnvStateDir = "MASTERMIND_STATE_DIR"

// Location returns the store root of trust-model.md §3: $MASTERMIND_STATE_DIR if set, else
// $XDG_STATE_HOME/mastermind, else ~/.local/state/mastermind; on Windows %LocalAppData%\mastermind
// after $MASTERMIND_STATE_DIR. Relative XDG values are ignored and a relative
// $MASTERMIND_STATE_DIR is made absolute; no location is KindNoLocation.
func Location() (string, error) {
	return location(os.Getenv, os.UserHomeDir, runtime.GOOS)
}

func location(getenv func(string) string, home func() (string, error), goos string) (string, error) {
	if v := getenv(EnvStateDir); v != "" {
		abs, err := filepath.Abs(v)
		if err != nil {
			return "", &Error{Kind: KindNoLocation, Err: err}
		}
		return abs, nil
	}
	if goos == "windows" {
		if v := getenv("LocalAppData"); v != "" && filepath.IsAbs(v) {
			return filepath.Join(v, "mastermind"), nil
		}
		return "", &Error{Kind: KindNoLocation, Err: errors.New("%LocalAppData% is not set")}
	}
	if v := getenv("XDG_STATE_HOME"); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, "mastermind"), nil
	}
	h, err := home()
	if err != nil || h == "" || !filepath.IsAbs(h) {
		return "", &Error{Kind: KindNoLocation, Err: errors.New("no home directory and neither " + EnvStateDir + " nor XDG_STATE_HOME is set")}
	}
	return filepath.Join(h, ".local", "state", "mastermind"), nil
}

// RepoID is the store's name for a work tree: the lowercase hex SHA-256 of the real path of the
// work tree's own git directory, not the common one, so that each linked worktree has its own
// records and a repository reached through a symlink has one id.
func RepoID(gitDir string) (string, error) {
	abs, err := filepath.Abs(gitDir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	return fsx.SHA256Hex([]byte(real)), nil
}
