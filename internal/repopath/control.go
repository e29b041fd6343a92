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
// .mastermind/ folder at all. It is not the changed-set exclusion: see IsControllerArtifact.
func IsControlPath(p string) bool {
	return p == ControlDir || strings.HasPrefix(p, ControlDir+"/")
}

// IsControllerArtifact reports whether p is one of the names mastermind itself writes (or reads
// as a contract file) below .mastermind/, which are left out of the audited changed set
// (trust-model.md I3, gitscope.md §1). Exactly these:
//
//   - .mastermind/.gitignore (new-spec) and .mastermind/current (the current-task pointer);
//   - .mastermind/tasks/_lessons.md and its lock _lessons.md.lock;
//   - .mastermind/releases/<task>.md;
//   - .mastermind/dispatch/<id>.json and <id>.json.lock (the contract filter's dispatch counters);
//   - in a task folder .mastermind/tasks/<task>/: spec.md, executor-report.md,
//     history-review*.md, state.json, audit.md, hook-block.json and any *.lock;
//   - the temporary file ".<name><digits>" an atomic write of one of those names leaves beside
//     it when it is killed (fsx.Dir.WriteFileAtomic).
//
// <task> is a canonical task folder name ("<NNN>-<slug>"). Every other path below .mastermind/
// (a misnamed folder, a helper.go in a task folder, .mastermind/lib/x.go) is a changed path like
// any other, so code cannot hide there.
func IsControllerArtifact(p string) bool {
	rest, ok := strings.CutPrefix(p, ControlDir+"/")
	if !ok {
		return false
	}
	dir, base := "", rest
	if i := strings.LastIndexByte(rest, '/'); i >= 0 {
		dir, base = rest[:i], rest[i+1:]
	}
	if artifactIn(dir, base) {
		return true
	}
	if name, ok := tempTarget(base); ok {
		return artifactIn(dir, name)
	}
	return false
}

// artifactIn reports whether base is a controller artifact name in dir (relative to
// .mastermind/).
func artifactIn(dir, base string) bool {
	switch {
	case dir == "":
		return base == ".gitignore" || base == "current"
	case dir == "tasks":
		return base == "_lessons.md" || base == "_lessons.md.lock"
	case dir == "releases":
		name, ok := strings.CutSuffix(base, ".md")
		return ok && TaskNamePattern.MatchString(name)
	case dir == "dispatch":
		id, ok := strings.CutSuffix(strings.TrimSuffix(base, ".lock"), ".json")
		return ok && dispatchIDRe().MatchString(id)
	}
	task, ok := strings.CutPrefix(dir, "tasks/")
	if !ok || !TaskNamePattern.MatchString(task) {
		return false
	}
	return IsTaskArtifactName(base) || base == "hook-block.json" ||
		(strings.HasSuffix(base, ".lock") && len(base) > len(".lock"))
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
	if base == "history-review.md" {
		return true
	}
	// An archived review: history-review.<64 hex>.md (spec-and-lifecycle.md §8).
	snap, ok := strings.CutPrefix(base, "history-review.")
	snap, ok2 := strings.CutSuffix(snap, ".md")
	return ok && ok2 && len(snap) == 64 && strings.Trim(snap, "0123456789abcdef") == ""
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

// tempTarget returns the name an atomic-write temporary ".<name><digits>" stands for.
func tempTarget(base string) (string, bool) {
	if len(base) < 3 || base[0] != '.' {
		return "", false
	}
	end := len(base)
	for end > 1 && base[end-1] >= '0' && base[end-1] <= '9' {
		end--
	}
	if end == len(base) || end <= 1 {
		return "", false
	}
	return base[1:end], true
}
