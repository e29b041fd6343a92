package postflight

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// TasksDir is the repository-relative folder that holds the task folders (spec-and-lifecycle.md §0).
const TasksDir = ".mastermind/tasks"

// TaskInfo is one task folder under TasksDir with its state.json, read under §5.3 without being
// changed.
type TaskInfo struct {
	Task Task
	// State is nil when the task has no state.json (never pre-flighted) or when Err is set.
	State *State
	// Err is a *CorruptStateError for an unusable state.json (§5.3), or a *SpecPathError for a
	// task folder outside the canonical layout (for example a symbolic link).
	Err error
	// UpdatedAt is state.json's modification time; zero without a readable state.
	UpdatedAt time.Time
	// Recorded: State is the controller store's record (trust-model.md I2), not the mirror.
	Recorded bool
	// Tampered explains a state.json mirror that holds content the controller never wrote.
	Tampered string
}

// ScanTasks lists every task folder of root under TasksDir sorted by name, loading each state.json
// strictly, with the other directories there as a *NotTaskFolderError (§0). A problem with one
// task is in its TaskInfo.Err; the returned error is operational, such as a TasksDir that is a
// symbolic link.
func ScanTasks(root string) ([]TaskInfo, error) { return ScanTasksWith(root, nil) }

// ScanTasksWith is ScanTasks with each task's state taken from the controller store's record
// when v has one (TaskInfo.Recorded), the mirror otherwise. v may be nil.
func ScanTasksWith(root string, v *StoreView) ([]TaskInfo, error) {
	if err := fsx.CheckNoSymlink(root, TasksDir); err != nil {
		if fsx.ReasonOf(err) == fsx.ReasonMissing {
			return nil, nil
		}
		return nil, fmt.Errorf("task folder %s: %w", TasksDir, err)
	}
	dir := filepath.Join(root, filepath.FromSlash(TasksDir))
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("task folder %s: %w", TasksDir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("task folder %s is not a directory", TasksDir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", TasksDir, err)
	}
	var out []TaskInfo
	for _, e := range entries {
		name := e.Name()
		if !repopath.TaskNamePattern.MatchString(name) {
			if isDirEntry(dir, e) {
				out = append(out, notTaskFolder(root, name))
			}
			continue
		}
		in := scanTask(root, name)
		v.overlay(&in)
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b TaskInfo) int { return strings.Compare(a.Task.Name, b.Task.Name) })
	return out, nil
}

// NotTaskFolderError is a directory under TasksDir whose name is not a task folder name (§0).
// Name is the escaped directory name.
type NotTaskFolderError struct{ Name string }

func (e *NotTaskFolderError) Error() string {
	return fmt.Sprintf("not a task folder: %s/%s; rename it to NNN-slug or move it out of %s", TasksDir, e.Name, TasksDir)
}

// isDirEntry reports whether a TasksDir entry is a directory, or a symbolic link to one.
func isDirEntry(dir string, e os.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&os.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, e.Name()))
	return err == nil && fi.IsDir()
}

// notTaskFolder is the TaskInfo of a misnamed directory under TasksDir. The name is escaped,
// because it is printed and was never checked against the task-name pattern.
func notTaskFolder(root, name string) TaskInfo {
	esc := textsafe.Escape(name)
	dirRel := TasksDir + "/" + esc
	return TaskInfo{Task: Task{Root: root, Name: esc, Dir: dirRel}, Err: &NotTaskFolderError{Name: esc}}
}

// scanTask resolves one task folder and loads its state.
func scanTask(root, name string) TaskInfo {
	fallback := taskFolder(root, name)
	task, err := ResolveTask(root, filepath.Join(root, filepath.FromSlash(fallback.Spec)))
	if err != nil {
		var spe *SpecPathError
		if !errors.As(err, &spe) {
			err = fmt.Errorf("task folder %s: %w", fallback.Dir, err)
		}
		return TaskInfo{Task: fallback, Err: err}
	}
	if fi, err := os.Lstat(task.Abs(task.Dir)); err != nil || !fi.IsDir() {
		return TaskInfo{Task: task, Err: &SpecPathError{Detail: fallback.Dir + " is not a directory"}}
	}
	st, err := LoadState(task.Abs(task.StateRel()), task.StateRel(), task.Spec)
	if err != nil {
		return TaskInfo{Task: task, Err: err}
	}
	info := TaskInfo{Task: task, State: st}
	if st != nil {
		if fi, err := os.Lstat(task.Abs(task.StateRel())); err == nil {
			info.UpdatedAt = fi.ModTime()
		}
	}
	return info
}

// Task statuses of `mastermind status` beyond the state.json statuses of §5.2.
const (
	// StatusNotStarted: the task folder has no state.json (pre-flight never ran).
	StatusNotStarted = "not_started"
	// StatusCorrupt: state.json is unusable (§5.3) or the task folder is outside the layout.
	StatusCorrupt = "corrupt"
	// StatusNotATask: a directory under TasksDir whose name is not a task name (§0); it is listed
	// so that it is noticed, but it is not a task and its state is never read.
	StatusNotATask = "not_a_task"
)

// StatusEntry is one task of `mastermind status --json` (command "status", schema_version 1).
// Keys are in this order; absent values are JSON null.
type StatusEntry struct {
	Task string `json:"task"`
	Spec string `json:"spec"`
	// Status is a §5.2 status, StatusNotStarted, StatusCorrupt or StatusNotATask.
	Status         string  `json:"status"`
	NextStep       *string `json:"next_step"`
	Verdict        *string `json:"verdict"`
	Findings       *Counts `json:"findings"`
	Risk           *string `json:"risk"`
	OutcomeRisk    *string `json:"outcome_risk"`
	Iteration      *int    `json:"iteration"`
	Baseline       *string `json:"baseline"` // the first 12 hex digits of baseline_ref
	BaselineRef    *string `json:"baseline_ref"`
	LastArtifact   *string `json:"last_artifact"`
	BlockingReason *string `json:"blocking_reason"`
	BlockingStreak *int    `json:"blocking_streak"`
	// StartedAt is started_at as RFC 3339 (UTC).
	StartedAt *string `json:"started_at"`
	// UpdatedAt is state.json's modification time as RFC 3339 (UTC, whole seconds).
	UpdatedAt *string `json:"updated_at"`
	// AgeSeconds is now minus UpdatedAt, or minus started_at when the modification time is
	// unknown, in whole seconds, never negative.
	AgeSeconds *int64 `json:"age_seconds"`
	// Error is the reason a corrupt task could not be read, or why its state.json mirror is not
	// what mastermind last wrote.
	Error *string `json:"error"`
	// Source is where the state shown comes from: "store", "mirror" for a task this machine's
	// store has no record of, or null.
	Source *string `json:"source"`
}

// StatusEntries converts scanned tasks to status rows, in the order given, with ages relative
// to now.
func StatusEntries(infos []TaskInfo, now time.Time) []StatusEntry {
	out := make([]StatusEntry, 0, len(infos))
	for _, in := range infos {
		e := StatusEntry{Task: in.Task.Name, Spec: in.Task.Spec}
		var ntf *NotTaskFolderError
		switch {
		case errors.As(in.Err, &ntf):
			e.Status = StatusNotATask
			msg := in.Err.Error()
			e.Error = &msg
		case in.Err != nil:
			e.Status = StatusCorrupt
			msg := in.Err.Error()
			e.Error = &msg
		case in.State == nil:
			e.Status = StatusNotStarted
		default:
			st := in.State
			src := "mirror"
			if in.Recorded {
				src = "store"
			}
			e.Source = &src
			if in.Tampered != "" {
				msg := in.Tampered
				e.Error = &msg
			}
			e.Status = st.Status
			e.NextStep = strPtr(st.NextStep)
			e.Verdict = strOrNil(string(st.Verdict))
			if st.Findings != nil {
				c := *st.Findings
				e.Findings = &c
			}
			e.Risk = strPtr(st.Risk)
			e.OutcomeRisk = strOrNil(st.OutcomeRisk)
			e.Iteration = intPtr(st.Iteration)
			e.Baseline = strPtr(ShortOID(st.BaselineRef))
			e.BaselineRef = strPtr(st.BaselineRef)
			e.LastArtifact = strPtr(st.LastArtifact)
			e.BlockingReason = strOrNil(st.BlockingReason)
			e.BlockingStreak = intPtr(st.BlockingStreak)
			started := time.Unix(st.StartedAt, 0).UTC()
			e.StartedAt = strPtr(started.Format(time.RFC3339))
			ref := started
			if !in.UpdatedAt.IsZero() {
				ref = in.UpdatedAt.UTC().Truncate(time.Second)
				e.UpdatedAt = strPtr(ref.Format(time.RFC3339))
			}
			age := int64(now.Sub(ref) / time.Second)
			if age < 0 {
				age = 0
			}
			e.AgeSeconds = &age
		}
		out = append(out, e)
	}
	return out
}

// ShortOID is the first 12 characters of an object id (the whole id when shorter).
func ShortOID(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	return oid
}

// FormatAge renders a duration in seconds compactly: "45s", "12m", "5h", "3d" (hours below
// 48 hours, days from then on).
func FormatAge(sec int64) string {
	switch {
	case sec < 60:
		return fmt.Sprintf("%ds", sec)
	case sec < 3600:
		return fmt.Sprintf("%dm", sec/60)
	case sec < 48*3600:
		return fmt.Sprintf("%dh", sec/3600)
	}
	return fmt.Sprintf("%dd", sec/86400)
}

func strPtr(s string) *string { return &s }
func intPtr(n int) *int       { return &n }

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
