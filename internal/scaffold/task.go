package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/spec"
)

// TasksDir is the repository-relative folder holding every task (spec-and-lifecycle.md §0).
const TasksDir = ".mastermind/tasks"

// maxNumberAttempts bounds the EEXIST retries of CreateTask.
const maxNumberAttempts = 1000

// Task is a created task folder. Paths are slash-separated and relative to the repository root.
type Task struct {
	Name string // folder base name, e.g. "004-add-retry-helper"
	Dir  string // ".mastermind/tasks/004-add-retry-helper"
	Spec string // ".mastermind/tasks/004-add-retry-helper/spec.md"
}

// CreateOptions are the inputs of CreateTask.
type CreateOptions struct {
	Title string // checked with CheckTitle
	Mode  string // one of Modes; "" means standard
}

// CreateTask creates the next numbered task folder under root/.mastermind/tasks with a spec.md
// skeleton and returns it, numbering as spec-and-lifecycle.md §0 says and never reusing a
// folder. It follows no symbolic link and writes no .mastermind/.gitignore, which would only hide
// files from the audit.
func CreateTask(root string, o CreateOptions) (Task, error) {
	mode := o.Mode
	if mode == "" {
		mode = spec.ModeStandard
	}
	if err := CheckMode(mode); err != nil {
		return Task{}, err
	}
	title, err := CheckTitle(o.Title)
	if err != nil {
		return Task{}, err
	}
	slug := Slug(title)
	if err := ensureDirs(root, TasksDir); err != nil {
		return Task{}, err
	}
	tasks := filepath.Join(root, filepath.FromSlash(TasksDir))
	n, err := NextNumber(tasks)
	if err != nil {
		return Task{}, err
	}
	// Every write goes through a handle of the tasks folder opened without following links
	// (trust-model.md I4).
	td, err := fsx.OpenDir(root, TasksDir)
	if err != nil {
		return Task{}, err
	}
	defer td.Close()
	for attempt := 0; attempt < maxNumberAttempts; attempt, n = attempt+1, n+1 {
		num := fmt.Sprintf("%03d", n)
		name := num + "-" + slug
		if err := td.Mkdir(name, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			return Task{}, err
		}
		t := Task{Name: name, Dir: path.Join(TasksDir, name), Spec: path.Join(TasksDir, name, "spec.md")}
		data := Skeleton(SpecOptions{ID: num, Title: title, Mode: mode})
		d, err := td.Sub(name)
		if err == nil {
			err = d.WriteFileAtomic("spec.md", data, 0o644)
			d.Close()
		}
		if err != nil {
			_ = td.Remove(name, true) // only succeeds while the folder we just made is still empty
			return Task{}, fmt.Errorf("write %s: %w", t.Spec, err)
		}
		return t, nil
	}
	return Task{}, fmt.Errorf("%s: no free task number after %d attempts", TasksDir, maxNumberAttempts)
}

// CheckMode returns an *InputError unless mode is one of Modes.
func CheckMode(mode string) error {
	if !slices.Contains(Modes, mode) {
		return &InputError{Field: "mode", Msg: fmt.Sprintf("--mode must be one of %s, got %q", strings.Join(Modes, ", "), mode)}
	}
	return nil
}

// NextNumber returns 1 + the highest task number in the directory tasks: the leading digits of
// every entry whose name is "<digits>-..." (folders and stray files alike, so a number is never
// reused). Numbers too large for an int are ignored. A missing directory gives 1.
func NextNumber(tasks string) (int, error) {
	entries, err := os.ReadDir(tasks)
	if errors.Is(err, fs.ErrNotExist) {
		return 1, nil
	}
	if err != nil {
		return 0, err
	}
	highest := 0
	for _, e := range entries {
		if n, ok := taskNumber(e.Name()); ok && n > highest {
			highest = n
		}
	}
	return highest + 1, nil
}

// taskNumber parses the leading "<digits>-" of a folder name.
func taskNumber(name string) (int, bool) {
	digits, _, found := strings.Cut(name, "-")
	if !found || digits == "" || strings.TrimLeft(digits, "0123456789") != "" || len(digits) > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

// ensureDirs creates each missing component of rel below root with os.Mkdir, refusing a
// component that is a symbolic link or not a directory (fsx.CheckNoSymlink semantics).
func ensureDirs(root, rel string) error {
	parts := strings.Split(rel, "/")
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		err := fsx.CheckNoSymlink(root, sub)
		if fsx.ReasonOf(err) == fsx.ReasonMissing {
			if merr := os.Mkdir(filepath.Join(root, filepath.FromSlash(sub)), 0o755); merr != nil && !errors.Is(merr, fs.ErrExist) {
				return merr
			}
			err = fsx.CheckNoSymlink(root, sub)
		}
		if err != nil {
			return err
		}
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(sub)))
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory; move it away so mastermind can keep tasks there", sub)
		}
	}
	return nil
}

// TaskSpecs returns the repository-relative paths of every task spec under root, sorted:
// .mastermind/tasks/<task>/spec.md for each folder whose name matches TaskNamePattern and that
// holds a regular spec.md, with no symbolic link on the way. It is meant for shell completion
// (run-task's ValidArgsFunction) and returns nil on any error.
func TaskSpecs(root string) []string {
	if fsx.CheckNoSymlink(root, TasksDir) != nil {
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(TasksDir)))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || !TaskNamePattern.MatchString(e.Name()) || strings.Contains(e.Name(), "..") {
			continue
		}
		rel := path.Join(TasksDir, e.Name(), "spec.md")
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out = append(out, rel)
	}
	slices.Sort(out)
	return out
}
