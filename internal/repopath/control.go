package repopath

import (
	"regexp"
	"strings"
	"sync"
)

// ControlDir is the folder mastermind keeps its task records and contract files in.
const ControlDir = ".mastermind"

// TaskNamePattern is the canonical task folder name "<NNN>-<slug>" (spec-and-lifecycle.md §0),
// the one definition every package that recognises a task folder uses.
var TaskNamePattern = regexp.MustCompile(`^[0-9]{3,}-[A-Za-z0-9][A-Za-z0-9._-]*$`)

// dispatchIDRe is a dispatch counter's id (agent-contracts.md §2.9, contracts/filter), compiled on
// first use: its bounded repeat costs a million instructions to compile (gitscope.md §8.5).
var dispatchIDRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`) })

// IsControlPath reports whether p (a clean, repository-relative slash path) lies under the
// .mastermind/ folder at all. It is not the changed-set exclusion: see LeftOut.
func IsControlPath(p string) bool {
	return p == ControlDir || strings.HasPrefix(p, ControlDir+"/")
}

// ControlKind is what a path below .mastermind/ is to the changed set (trust-model.md I3).
type ControlKind int

// Control kinds. ControlContract, ControlReport and ControlWritten paths are left out of the
// changed set only when a ControlRule finds their bytes are the planner's contract or the
// controller's, and every other path below .mastermind/ is a changed path like any other.
const (
	// NotControl: the path is not below .mastermind/.
	NotControl ControlKind = iota
	// ControlOther: any other path below .mastermind/ (a lock, a temporary file, a helper.go,
	// a misnamed folder's files, .mastermind/lib/x.go).
	ControlOther
	// ControlContract: a planner contract file of a canonical task folder, spec.md or
	// history-review.md, checked by its own rules (the spec hash, the history review).
	ControlContract
	// ControlReport: executor-report.md of a canonical task folder, a contract file of its own
	// task (the audit reads it) and, for any other task, a record whose bytes are checked.
	ControlReport
	// ControlWritten: a file the controller writes whose hashes the store keeps: a task's
	// state.json and audit.md mirrors and archived history-review.<64 hex>.md,
	// releases/<task>.md, tasks/_lessons.md, dispatch/<id>.json and current.
	ControlWritten
)

// ControlName is the classification of one repository-relative path (ClassifyControl).
type ControlName struct {
	Kind ControlKind
	// Task is the canonical task folder name for a file of a task folder and for
	// releases/<task>.md; "" otherwise.
	Task string
	// Name is the file's name in its folder.
	Name string
}

// ClassifyControl classifies p, a clean repository-relative slash path (trust-model.md I3). The
// names are exact: <task> is a canonical task folder name ("<NNN>-<slug>"), <id> a dispatch
// id, and nothing else below .mastermind/ is a controller name.
func ClassifyControl(p string) ControlName {
	rest, ok := strings.CutPrefix(p, ControlDir+"/")
	if !ok {
		return ControlName{Kind: NotControl}
	}
	dir, base := "", rest
	if i := strings.LastIndexByte(rest, '/'); i >= 0 {
		dir, base = rest[:i], rest[i+1:]
	}
	other := ControlName{Kind: ControlOther, Name: base}
	switch {
	case dir == "":
		if base == "current" {
			return ControlName{Kind: ControlWritten, Name: base}
		}
		return other
	case dir == "tasks":
		if base == "_lessons.md" {
			return ControlName{Kind: ControlWritten, Name: base}
		}
		return other
	case dir == "releases":
		if name, ok := strings.CutSuffix(base, ".md"); ok && TaskNamePattern.MatchString(name) {
			return ControlName{Kind: ControlWritten, Task: name, Name: base}
		}
		return other
	case dir == "dispatch":
		if id, ok := strings.CutSuffix(base, ".json"); ok && dispatchIDRe().MatchString(id) {
			return ControlName{Kind: ControlWritten, Name: base}
		}
		return other
	}
	task, ok := strings.CutPrefix(dir, "tasks/")
	if !ok || !TaskNamePattern.MatchString(task) {
		return other
	}
	switch {
	case base == "spec.md" || base == "history-review.md":
		return ControlName{Kind: ControlContract, Task: task, Name: base}
	case base == "executor-report.md":
		return ControlName{Kind: ControlReport, Task: task, Name: base}
	case base == "state.json" || base == "audit.md" || IsArchivedReview(base):
		return ControlName{Kind: ControlWritten, Task: task, Name: base}
	}
	return ControlName{Kind: ControlOther, Task: task, Name: base}
}

// ControlRule decides whether the bytes of a changed contract, report or written controller name
// below .mastermind/ are the controller's, so that it is left out of the changed set
// (trust-model.md I3). Controller answers for the path as it is now, deleted or not.
type ControlRule interface {
	Controller(p string, c ControlName) bool
}

// ContractsOnly is the ControlRule that finds no bytes the controller's: only the contract
// files of every task (spec.md, history-review.md, executor-report.md) are left out.
type ContractsOnly struct{}

// Controller reports whether c is a task's contract file or executor-report.md.
func (ContractsOnly) Controller(_ string, c ControlName) bool {
	return c.Kind == ControlReport || c.Kind == ControlContract
}

// LeftOut reports whether the changed path p is left out of the changed set under rule (nil:
// ContractsOnly): a contract file or a controller name whose bytes rule finds the planner's or
// the controller's. A path outside .mastermind/ never is.
func LeftOut(p string, rule ControlRule) bool {
	if !IsControlPath(p) {
		return false
	}
	c := ClassifyControl(p)
	switch c.Kind {
	case ControlContract, ControlReport, ControlWritten:
		if rule == nil {
			rule = ContractsOnly{}
		}
		return rule.Controller(p, c)
	}
	return false
}

// IsArchivedReview reports whether base is an archived history review,
// history-review.<64 lowercase hex>.md (spec-and-lifecycle.md §8).
func IsArchivedReview(base string) bool {
	snap, ok := strings.CutPrefix(base, "history-review.")
	snap, ok2 := strings.CutSuffix(snap, ".md")
	return ok && ok2 && len(snap) == 64 && strings.Trim(snap, "0123456789abcdef") == ""
}

// IsTaskArtifactName reports whether base is one of a task's records: spec.md,
// executor-report.md, history-review.md or an archived history-review.<64 hex>.md,
// state.json or audit.md. These are the files whose change by another task's executor is a
// foreign_task_artifact_changed finding.
func IsTaskArtifactName(base string) bool {
	switch base {
	case "spec.md", "executor-report.md", "state.json", "audit.md":
		return true
	}
	return base == "history-review.md" || IsArchivedReview(base)
}

// TaskArtifact splits p into its task folder name and artifact name when p is one of a task's
// records (IsTaskArtifactName) in a canonical task folder .mastermind/tasks/<task>/.
func TaskArtifact(p string) (task, name string, ok bool) {
	rest, ok := strings.CutPrefix(p, ControlDir+"/tasks/")
	if !ok {
		return "", "", false
	}
	task, name, ok = strings.Cut(rest, "/")
	if !ok || !TaskNamePattern.MatchString(task) || !IsTaskArtifactName(name) {
		return "", "", false
	}
	return task, name, true
}
