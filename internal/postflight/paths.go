package postflight

import (
	"errors"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// ErrSpecPath is the usage error of §0 for a task argument outside the canonical layout (exit 2).
var ErrSpecPath = errors.New("the task must be its spec .mastermind/tasks/<NNN>-<slug>/spec.md, its task folder or its folder name <NNN>-<slug>, inside the repository")

// SpecPathError wraps ErrSpecPath with the detail of what was wrong.
type SpecPathError struct {
	Arg    string
	Detail string
}

func (e *SpecPathError) Error() string {
	if e.Detail == "" {
		return ErrSpecPath.Error()
	}
	return ErrSpecPath.Error() + " (" + e.Detail + ")"
}

// Unwrap returns ErrSpecPath.
func (e *SpecPathError) Unwrap() error { return ErrSpecPath }

// Task names every artifact path of one task (§0). Rel paths are repository-relative with "/";
// Abs paths are absolute file-system paths.
type Task struct {
	Root string // absolute repository root
	Name string // "<NNN>-<slug>"
	Dir  string // ".mastermind/tasks/<task>"
	Spec string // ".mastermind/tasks/<task>/spec.md"
}

// taskFolder is the Task of the folder name below root's .mastermind/tasks, unresolved.
func taskFolder(root, name string) Task {
	dir := TasksDir + "/" + name
	return Task{Root: root, Name: name, Dir: dir, Spec: dir + "/spec.md"}
}

// Rel paths of the task artifacts.
func (t Task) StateRel() string         { return t.Dir + "/state.json" }
func (t Task) AuditRel() string         { return t.Dir + "/audit.md" }
func (t Task) ReportRel() string        { return t.Dir + "/executor-report.md" }
func (t Task) HistoryReviewRel() string { return t.Dir + "/history-review.md" }
func (t Task) ReleaseNotesRel() string  { return ".mastermind/releases/" + t.Name + ".md" }
func (t Task) LessonsRel() string       { return ".mastermind/tasks/_lessons.md" }

// Abs converts a task-relative artifact path to an absolute path.
func (t Task) Abs(rel string) string { return filepath.Join(t.Root, filepath.FromSlash(rel)) }

// ResolveTask applies the task argument rules of §0 to arg inside root; every command that takes
// a task resolves it here. A violation is a *SpecPathError, and a missing spec file is left for
// pre-flight to report.
func ResolveTask(root, arg string) (Task, error) {
	if !utf8.ValidString(arg) {
		return Task{}, &SpecPathError{Arg: arg, Detail: "the path is not valid UTF-8"}
	}
	if strings.Contains(arg, `\`) {
		return Task{}, &SpecPathError{Arg: arg, Detail: "the path contains a backslash"}
	}
	var rel string
	if repopath.TaskNamePattern.MatchString(arg) && !strings.Contains(arg, "..") {
		// A folder name: the pattern allows no "/", so it is never a path from the current
		// directory.
		rel = TasksDir + "/" + arg + "/spec.md"
	} else {
		// The working directory may be reached through a symlink (for example /tmp on macOS):
		// RelReal compares real paths of the root and of the argument's directory then.
		r, err := fsx.RelReal(root, arg)
		if err != nil {
			return Task{}, &SpecPathError{Arg: arg, Detail: "it is outside the repository " + root}
		}
		rel = r
		if p := strings.Split(rel, "/"); len(p) == 3 && p[0] == ".mastermind" && p[1] == "tasks" {
			rel += "/spec.md" // the task folder
		}
	}
	parts := strings.Split(rel, "/")
	if len(parts) != 4 || parts[0] != ".mastermind" || parts[1] != "tasks" || parts[3] != "spec.md" ||
		!repopath.TaskNamePattern.MatchString(parts[2]) || strings.Contains(parts[2], "..") {
		return Task{}, &SpecPathError{Arg: arg, Detail: "got " + rel}
	}
	if err := fsx.CheckNoSymlink(root, rel); err != nil {
		switch fsx.ReasonOf(err) {
		case fsx.ReasonMissing:
			// The task folder must exist; the spec itself may be missing (spec.unreadable).
			if err := fsx.CheckNoSymlink(root, path.Dir(rel)); err != nil {
				return Task{}, &SpecPathError{Arg: arg, Detail: "the task folder " + path.Dir(rel) + " does not exist"}
			}
		case fsx.ReasonSymlink, fsx.ReasonSymlinkedAncestor:
			return Task{}, &SpecPathError{Arg: arg, Detail: "a path component is a symbolic link"}
		case fsx.ReasonNotRegular:
			return Task{}, &SpecPathError{Arg: arg, Detail: err.Error()}
		default:
			return Task{}, err
		}
	}
	return Task{Root: root, Name: parts[2], Dir: path.Dir(rel), Spec: rel}, nil
}
