package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/scaffold"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// currentRel is the current-task pointer (integrations.md §2): the folder name of the task
// whose executor is at work, written by pre-flight and removed by completion. The executor can
// write it, so it only selects which task the stop hook audits; the gate and the planner's
// post-flight do not read it.
const currentRel = ".mastermind/current"

// maxCurrentBytes bounds the pointer read.
const maxCurrentBytes = 4 << 10

// isTaskName reports whether s is a task folder name (spec-and-lifecycle.md §0,
// scaffold.TaskNamePattern) without "..", so it can be joined under .mastermind/tasks.
func isTaskName(s string) bool {
	return scaffold.TaskNamePattern.MatchString(s) && !strings.Contains(s, "..")
}

// specForTask is the repository-relative spec path of a task folder name.
func specForTask(task string) string { return ".mastermind/tasks/" + task + "/spec.md" }

// readCurrentTask returns the task named by .mastermind/current under root, "" when there is no
// pointer. A pointer that is not a regular file, is a symlink, or does not hold one task folder
// name is an error naming the file and what it holds.
func readCurrentTask(root string) (string, error) {
	data, err := fsx.ReadInRoot(root, currentRel, maxCurrentBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || fsx.ReasonOf(err) == fsx.ReasonMissing {
			return "", nil
		}
		return "", fmt.Errorf("current-task pointer %s: %w", currentRel, err)
	}
	task := strings.TrimSuffix(string(data), "\n")
	if !isTaskName(task) {
		return "", fmt.Errorf("current-task pointer %s does not hold a task folder name (<NNN>-<slug>); got %q: remove it or run pre-flight again", currentRel, truncate(task, 80))
	}
	return task, nil
}

// currentSpec returns the absolute spec path of the task .mastermind/current under root names,
// for `--current`: a *UsageError when there is no pointer, readCurrentTask's error when it cannot
// be read.
func currentSpec(root string) (string, error) {
	task, err := readCurrentTask(root)
	if err != nil {
		return "", err
	}
	if task == "" {
		return "", usageErrorf("--current: no current task (%s does not exist; pre-flight writes it): give the spec path", currentRel)
	}
	return filepath.Join(root, filepath.FromSlash(specForTask(task))), nil
}

// specArgs is the positional-argument rule of a command run as `<spec> | --current`: at most
// one argument (RunE checks that exactly one of the two was given).
func specArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return usageErrorf("%s takes 1 argument(s), got %d", cmd.CommandPath(), len(args))
	}
	return nil
}

// writeCurrentTask points .mastermind/current at task (atomic write). It writes through a handle
// of .mastermind opened without following links (trust-model.md I4): the executor can turn
// .mastermind into a symbolic link after the task folder was opened, and a path-based write
// would then land outside the repository.
func writeCurrentTask(root, task string) error {
	d, err := fsx.OpenDir(root, path.Dir(currentRel))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.WriteFileAtomic(path.Base(currentRel), []byte(task+"\n"), 0o644)
}

// clearCurrentTask removes the pointer when it names task (another task's pointer is left
// alone). A missing pointer is not an error.
func clearCurrentTask(root, task string) error {
	cur, err := readCurrentTask(root)
	if err != nil || cur != task {
		return nil
	}
	d, err := fsx.OpenDir(root, path.Dir(currentRel))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Remove(path.Base(currentRel), false)
}

// updateCurrentTask keeps the pointer in step with the lifecycle: an approved pre-flight points
// it at the task, a completion removes it. A failure is a warning: the pointer only selects the
// stop hook's task, and the lifecycle result stands.
func updateCurrentTask(root string, res *postflight.Outcome, warn io.Writer) {
	var err error
	switch res.Outcome {
	case postflight.OutcomePreReady:
		err = writeCurrentTask(root, res.Task.Name)
	case postflight.OutcomeCompleted:
		err = clearCurrentTask(root, res.Task.Name)
	}
	if err != nil {
		fmt.Fprintf(warn, "mastermind: warning: current-task pointer %s not updated: %s\n", currentRel, textsafe.Escape(err.Error()))
	}
}

// briefPointer is the line pre-flight's text output ends with: where the executor's brief is.
func briefPointer(spec string) string {
	return "  brief: mastermind brief " + spec + "   (scope, verify commands, report template)\n"
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
