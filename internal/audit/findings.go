package audit

import (
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// Executor report rejection reasons (§9.1).
const (
	ReasonReportMissing            = "report_missing"
	ReasonReportInvalid            = "report_invalid"
	ReasonStatusPartial            = "status_partial"
	ReasonStatusFailed             = "status_failed"
	ReasonCompletionInconsistent   = "completion_inconsistent"
	ReasonTaskMismatch             = "task_mismatch"
	ReasonTaskPathInvalid          = "task_path_invalid"
	ReasonTaskSourceUnavailable    = "task_source_unavailable"
	ReasonSchemaVersionUnsupported = "schema_version_unsupported"
)

// Declared file reasons (§9.1).
const (
	ReasonTargetMissing               = "target_missing"
	ReasonTargetNotRegular            = "target_not_regular"
	ReasonTargetPathInvalid           = "target_path_invalid"
	ReasonTargetUnavailable           = "target_unavailable"
	ReasonCreationExistsInBaseline    = "creation_exists_in_baseline"
	ReasonCreationNotAdded            = "creation_not_added"
	ReasonCreationBaselineUnavailable = "creation_baseline_unavailable"
)

// newFinding builds an audit finding of kind with the §9.3 message and kind fields (key, value
// pairs in order).
func newFinding(kind, message string, kv ...any) finding.Finding {
	f := finding.Finding{Rule: kind, Class: finding.KindClass(kind), Message: message}
	for i := 0; i+1 < len(kv); i += 2 {
		f.Fields = append(f.Fields, finding.Field{Key: kv[i].(string), Value: kv[i+1]})
	}
	return f
}

// Constructors with the §9.3 message templates.

func findMissingExpectedFile(file string) finding.Finding {
	return newFinding(finding.KindMissingExpectedFile, "declared in scope but unchanged since the baseline: "+file, "file", file)
}

// findNotDeleted is missing_expected_file for a deletes path that is still present (or was
// never deleted): the §9.3 template speaks of an unchanged path, so the message names deletes.
func findNotDeleted(file string) finding.Finding {
	return newFinding(finding.KindMissingExpectedFile, "declared under deletes but not deleted: "+file, "file", file)
}

func findForbiddenPathChanged(file, pattern string) finding.Finding {
	return newFinding(finding.KindForbiddenPathChanged,
		fmt.Sprintf("changed a forbidden path: %s (forbids pattern %s); undo the change, or ask the planner to revise the spec", file, pattern),
		"file", file, "pattern", pattern)
}

func findReportUnexpectedFile(file string) finding.Finding {
	return newFinding(finding.KindReportUnexpectedFile, "listed in files_modified but unchanged since the baseline: "+file, "file", file)
}

func findReportRejected(reason, detail string) finding.Finding {
	return newFinding(finding.KindExecutorReportRejected, fmt.Sprintf("executor report rejected (%s): %s", reason, detail), "reason", reason)
}

func findDeclaredFileUnavailable(file, reason string) finding.Finding {
	return newFinding(finding.KindDeclaredFileUnavailable, fmt.Sprintf("declared file %s is unavailable (%s)", file, reason), "file", file, "reason", reason)
}

// findTouchDeleted is declared_file_unavailable{target_missing} for a touches path: the hint
// says how a task that deletes the file declares it (lifecycle-v2.md §1).
func findTouchDeleted(file string) finding.Finding {
	return newFinding(finding.KindDeclaredFileUnavailable,
		fmt.Sprintf("declared file %s is unavailable (%s); if the task deletes it, list it under deletes instead of touches", file, ReasonTargetMissing),
		"file", file, "reason", ReasonTargetMissing)
}

func findInvalidFrontmatter(reason string) finding.Finding {
	return newFinding(finding.KindInvalidFrontmatter, fmt.Sprintf("spec frontmatter is invalid (%s)", reason), "reason", reason)
}

func findChangedPathUnrepresentable(escaped string) finding.Finding {
	return newFinding(finding.KindChangedPathUnrepresentable, "a changed path is not valid UTF-8 and cannot be audited: "+escaped, "file", escaped)
}

// findSelfIgnoringDirectory is self_ignoring_directory for the directory entry dir of cs
// (gitscope.md §4.7): the one finding of a directory whose files git hides.
func findSelfIgnoringDirectory(cs *gitscope.ChangedSet, dir string) finding.Finding {
	n := 0
	for _, h := range cs.SelfIgnoring {
		if h.Dir == dir {
			n = h.Files
		}
	}
	file := dir + "/"
	return newFinding(finding.KindSelfIgnoringDirectory, fmt.Sprintf("%s was created since the baseline and ignores itself "+
		"(its .gitignore ignores that .gitignore), so git status and reviews show none of its %d files, though code can still load them; "+
		"remove %s.gitignore so its files are audited, or, if it is a tool's cache, add its name to %s in a commit before pre-flight",
		file, n, file, gitscope.ToolCachesConfig), "file", file, "files", n)
}

// findChangedPathInvalid is changed_path_unrepresentable for a valid UTF-8 path that no
// files_modified entry can name: it fails repopath hygiene (why) or normalises to another path.
// The §9.3 template speaks of UTF-8 only, so the message names the actual cause; the path is
// quoted so that leading or trailing white space stays visible.
func findChangedPathInvalid(escaped, why string) finding.Finding {
	return newFinding(finding.KindChangedPathUnrepresentable,
		fmt.Sprintf("a changed path cannot be listed in files_modified (%s) and cannot be audited: \"%s\"", why, escaped), "file", escaped)
}

// inputChangedWhat is the planner's name for each input kind.
var inputChangedWhat = map[string]string{
	finding.KindGitAttributesChanged: "the repository's attribute rules changed since pre-flight",
	finding.KindGitConfigChanged:     "the repository's git configuration changed since pre-flight",
	finding.KindGitMetadataChanged:   "the repository's git metadata changed since pre-flight",
}

// findInputChanged is the error finding of one changed-set input that changed since
// pre-flight (trust-model.md I1): the changed set can no longer be trusted to show every change.
func findInputChanged(ic gitscope.InputChange) finding.Finding {
	input, detail := textsafe.Escape(ic.Input), textsafe.Escape(ic.Detail)
	return newFinding(ic.Kind, fmt.Sprintf("%s: %s (%s); git may hide changes because of it", inputChangedWhat[ic.Kind], input, detail),
		"input", input, "detail", detail)
}

// FindGitBinaryUserWritable warns that the git binary (or its directory) is writable by the
// current user, so an executor could have replaced it (trust-model.md §6).
func FindGitBinaryUserWritable(path string) finding.Finding {
	p := textsafe.Escape(path)
	return newFinding(finding.KindGitBinaryUserWritable, fmt.Sprintf("the git binary %s, or its directory, is writable by the current user, so an executor could have replaced it; set MASTERMIND_GIT to a git the agent cannot write", p), "file", p)
}

// FindGitBinaryRisk is the warning for a git binary that may not be the system's own
// (trust-model.md §6): git_binary_user_writable for an ordinary user, git_binary_not_system for
// root.
func FindGitBinaryRisk(path string, risk gitscope.GitBinaryRisk) finding.Finding {
	if risk == gitscope.GitRiskUserWritable {
		return FindGitBinaryUserWritable(path)
	}
	p := textsafe.Escape(path)
	why := "is outside the system's binary folders (" + strings.Join(gitscope.SystemBinDirs, ", ") + ")"
	if risk == gitscope.GitRiskNotRootOwned {
		why = "or its folder is not owned by root or is writable by group or others"
	}
	return newFinding(finding.KindGitBinaryNotSystem, fmt.Sprintf("mastermind runs as root and the git binary %s %s, so another user could have planted it; set MASTERMIND_GIT to the system git", p, why), "file", p)
}

func findChangedSetDegraded(reason string) finding.Finding {
	return newFinding(finding.KindChangedSetDegraded, fmt.Sprintf("changed-file set computed without the git CLI (%s); results may differ from git", reason), "reason", reason)
}
