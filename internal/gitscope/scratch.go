package gitscope

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// InitScratch creates a new git repository in the empty or new directory dir and commits every
// file in it as one "initial" commit with a fixed identity and date, for `mastermind demo`. It
// refuses an existing repository and ignores the user's git configuration and hooks, so no
// configured program runs.
func InitScratch(ctx context.Context, dir string) error {
	if _, err := os.Lstat(dir + "/.git"); err == nil {
		return fmt.Errorf("%s already holds a git repository; refusing to reuse it as a scratch repository", dir)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	bin, err := exec.LookPath("git")
	if err != nil {
		return fmt.Errorf("the demo needs git on PATH: %w", err)
	}
	env := append(gitEnv(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	for _, args := range [][]string{
		{"init", "-q"},
		{"config", "user.name", "mastermind demo"},
		{"config", "user.email", "demo@example.invalid"},
		{"config", "commit.gpgsign", "false"},
		{"config", "core.hooksPath", os.DevNull},
		{"add", "-A"},
		{"commit", "-q", "-m", "initial"},
	} {
		cmd := exec.CommandContext(ctx, bin, append([]string{"-C", dir}, args...)...)
		cmd.Env = env
		var stderr cappedBuffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			return &ErrGitFailed{Cmd: args[0], Exit: cmd.ProcessState.ExitCode(), Stderr: msg}
		}
	}
	return nil
}
