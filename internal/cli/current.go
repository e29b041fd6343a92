package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/scaffold"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// currentRel is the current-task pointer of integrations.md §2, a mirror of the controller store's
// current task. The doors read the store, so an executor that repoints the file changes nothing.
const currentRel = postflight.CurrentRel

// isTaskName reports whether s is a task folder name (spec-and-lifecycle.md §0,
// scaffold.TaskNamePattern) without "..", so it can be joined under .mastermind/tasks.
func isTaskName(s string) bool {
	return scaffold.TaskNamePattern.MatchString(s) && !strings.Contains(s, "..")
}

// specForTask is the repository-relative spec path of a task folder name.
func specForTask(task string) string { return ".mastermind/tasks/" + task + "/spec.md" }

// readCurrentTask returns the controller store's current task of repo, "" when there is none, and
// warns on warn when the pointer says otherwise. A store that cannot be read is an error.
func readCurrentTask(repo *gitscope.Repo, warn io.Writer) (string, error) {
	gitDir, err := repo.GitDir()
	if err != nil {
		return "", err
	}
	cur, err := postflight.ReadCurrentTask(repo.Root(), gitDir, "")
	if err != nil {
		return "", fmt.Errorf("current task: %w", err)
	}
	if cur.Warning != "" && warn != nil {
		fmt.Fprintf(warn, "mastermind: warning: %s\n", textsafe.Escape(cur.Warning))
	}
	return cur.Task, nil
}

// currentSpec returns the absolute spec path of repo's current task, for `--current`: a
// *UsageError when there is none, readCurrentTask's error when it cannot be read.
func currentSpec(repo *gitscope.Repo, warn io.Writer) (string, error) {
	task, err := readCurrentTask(repo, warn)
	if err != nil {
		return "", err
	}
	if task == "" {
		return "", usageErrorf("--current: no current task (the controller store names none: pre-flight sets it, completion clears it): give the spec path")
	}
	return filepath.Join(repo.Root(), filepath.FromSlash(specForTask(task))), nil
}

// specArgs is the positional-argument rule of a command run as `<spec> | --current`: at most
// one argument (RunE checks that exactly one of the two was given).
func specArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return usageErrorf("%s takes 1 argument(s), got %d", cmd.CommandPath(), len(args))
	}
	return nil
}

// briefPointer is the line pre-flight's text output ends with: where the executor's brief is.
func briefPointer(spec string) string {
	return "  brief: mastermind brief " + spec + "   (scope, verify commands, report template)\n"
}
