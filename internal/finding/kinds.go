package finding

// Audit finding kinds (spec-and-lifecycle.md §9.1), in table order.
const (
	KindInvalidFrontmatter               = "invalid_frontmatter"
	KindDeclaredFileUnavailable          = "declared_file_unavailable"
	KindSnapshotSymbolGone               = "snapshot_symbol_gone"
	KindSnapshotUnresolved               = "snapshot_unresolved"
	KindRemovedSymbolNotAcknowledged     = "removed_symbol_not_acknowledged"
	KindRemovalAcknowledgementUnresolved = "removal_acknowledgement_unresolved"
	KindClaimedSymbolMissing             = "claimed_symbol_missing"
	KindClaimedSymbolNotAdded            = "claimed_symbol_not_added"
	KindClaimedSignatureMismatch         = "claimed_signature_mismatch"
	KindHallucinatedSymbol               = "hallucinated_symbol"
	KindMissingCallEdge                  = "missing_call_edge"
	KindExecutorClaimUnresolved          = "executor_claim_unresolved"
	KindExecutorReportRejected           = "executor_report_rejected"
	KindForbiddenPathChanged             = "forbidden_path_changed"
	KindReportMissingChangedFile         = "executor_report_missing_changed_file"
	KindReportUnexpectedFile             = "executor_report_unexpected_file"
	KindVerificationRequirementUnmet     = "verification_requirement_unmet"
	KindAcceptanceCriterionUnmet         = "acceptance_criterion_unmet"
	KindObservedExitCodeNonZero          = "observed_exit_code_non_zero"
	KindObservedZeroTests                = "observed_zero_tests"
	KindVerificationPassContradicted     = "verification_pass_contradicted"
	KindVerificationFailed               = "verification_failed"
	KindVerificationClaimContradicted    = "verification_claim_contradicted"
	KindChangedPathUnrepresentable       = "changed_path_unrepresentable"
	KindSelfIgnoringDirectory            = "self_ignoring_directory"
	KindControllerRecordTampered         = "controller_record_tampered"
	KindForeignTaskArtifactChanged       = "foreign_task_artifact_changed"
	KindUnexpectedFile                   = "unexpected_file"
	KindMissingExpectedFile              = "missing_expected_file"
	KindSnapshotCallerDrift              = "snapshot_caller_drift"
	KindSnapshotSignatureDrift           = "snapshot_signature_drift"
	KindPlannedTestNotAdded              = "planned_test_not_added"
	KindVacuousTestClaim                 = "vacuous_test_claim"
	KindVerificationUnreported           = "verification_unreported"
	KindVerificationModifiedWorktree     = "verification_modified_worktree"
	KindVerificationIgnoredInput         = "verification_ignored_input"
	KindChangedSetDegraded               = "changed_set_degraded"
	// The inputs of the changed set that changed since pre-flight (trust-model.md I1, §4); the
	// ids equal gitscope's InputChange kinds.
	KindGitAttributesChanged = "git_attributes_changed"
	KindGitConfigChanged     = "git_config_changed"
	KindGitMetadataChanged   = "git_metadata_changed"
	// The git binary could be replaced by the executor (trust-model.md §6).
	KindGitBinaryUserWritable = "git_binary_user_writable"
	// As root: the git binary is outside the system's binary folders or not owned by root.
	KindGitBinaryNotSystem = "git_binary_not_system"
	// The gate against a protected base (trust-model.md §5).
	KindGateUnownedChange       = "gate.unowned_change"
	KindGateBaselineNotAncestor = "gate.baseline_not_ancestor"
	KindGateTaskRecordChanged   = "gate.task_record_changed"
	KindGateClosedTaskChanged   = "gate.closed_task_changed"
	// The local gates: a task the controller store records open has no folder.
	KindGateTaskFolderMissing = "gate.task_folder_missing"
	// A pre-flight warning about the spec (spec-and-lifecycle.md §3.2); never in an audit.
	KindPreflightCreatesGlob = "preflight.creates_glob"
)

// The harness transcript's witness checks (docs/design/transcripts.md §3–§4).
const (
	KindVerificationWitnessContradicted = "verification_witness_contradicted"
	KindVerificationNotWitnessed        = "verification_not_witnessed"
	KindToolEditOutsideRepository       = "tool_edit_outside_repository"
)

// Kind describes one audit finding kind: one row of spec-and-lifecycle.md §9.1 with what the
// lifecycle, the renderers and (later) the SARIF rules and the executor brief need to know about
// it. Every place that treats kinds differently reads this table instead of listing kinds.
type Kind struct {
	// ID is the stable rule id: the finding's Rule and the JSON "kind".
	ID string
	// Class is the class of every finding of this kind (§9.1).
	Class Class
	// Primary are the §9.3 sort-key fields of this kind in preference order: a finding sorts by
	// the bytes of the first it carries. A kind outside the table uses PrimaryFallback.
	Primary []string
	// Identity are the fields that, with the ID, identify a blocking condition for the
	// three-cycle rule (§6 fingerprint lines). Nil: the kind alone.
	Identity []string
	// ReportSide is true for kinds about the executor report's own content: without a file field
	// they are located on executor-report.md, every other kind on spec.md.
	ReportSide bool
	// Reserved kinds are never emitted by v1 (§9.1 "reserved").
	Reserved bool
	// Planner kinds are pre-flight findings about the spec: the executor's brief leaves them out.
	Planner bool
	// Help is one sentence on what the finding means and what fixes it (rule help text).
	Help string
}

// Kinds is the §9.1 table in table order. The order drives sorting (§9.3) and the lessons
// "Observed" text (§11).
var Kinds = []Kind{
	{ID: KindInvalidFrontmatter, Class: ClassError, Identity: []string{"reason"},
		Help: "The spec's YAML frontmatter is unterminated or invalid; fix the spec and rerun pre-flight."},
	{ID: KindDeclaredFileUnavailable, Class: ClassError, Primary: pFile, Identity: []string{"file", "reason"},
		Help: "A file the spec declares (touches, creates, expected_docs) is missing, not a regular file, or a declared creation does not hold; restore or create the file, list a file the task deletes under deletes, or revise the spec."},
	{ID: KindSnapshotSymbolGone, Class: ClassError, Primary: pSymbol, Reserved: true,
		Help: "A symbol the spec's snapshot names no longer exists (reserved)."},
	{ID: KindSnapshotUnresolved, Class: ClassError, Primary: pSymbol, Reserved: true,
		Help: "A symbol the spec's snapshot names could not be resolved (reserved)."},
	{ID: KindRemovedSymbolNotAcknowledged, Class: ClassError, Primary: pFileSymbol, Reserved: true,
		Help: "A symbol was removed without the spec acknowledging it (reserved)."},
	{ID: KindRemovalAcknowledgementUnresolved, Class: ClassError, Primary: pFileSymbol, Reserved: true,
		Help: "A removal the spec acknowledges could not be resolved (reserved)."},
	{ID: KindClaimedSymbolMissing, Class: ClassError, Primary: pFileSymbol, Identity: []string{"symbol", "file"}, ReportSide: true,
		Help: "The report claims a function that the source does not contain; add it or correct the claim."},
	{ID: KindClaimedSymbolNotAdded, Class: ClassError, Primary: pFileSymbol, Identity: []string{"symbol", "file"}, ReportSide: true,
		Help: "The report claims to have added a function that already existed at the baseline; correct the claim."},
	{ID: KindClaimedSignatureMismatch, Class: ClassError, Primary: pFileSymbol, Identity: []string{"symbol", "file"}, ReportSide: true,
		Help: "The claimed signature differs from the function in the source; report the real signature."},
	{ID: KindHallucinatedSymbol, Class: ClassError, Primary: pFrom, Identity: []string{"from_symbol", "to_symbol"}, ReportSide: true,
		Help: "An integration claim names a target that does not exist in the source; correct the claim."},
	{ID: KindMissingCallEdge, Class: ClassError, Primary: pFrom, Identity: []string{"from_symbol", "to_symbol"}, ReportSide: true,
		Help: "An integration claim says one function calls another, but no such call was found; add the call or correct the claim."},
	{ID: KindExecutorClaimUnresolved, Class: ClassError, Primary: pClaim, Identity: []string{"claim_index", "reason"}, ReportSide: true,
		Help: "A claim could not be checked deterministically (ambiguous, unsupported or unreadable); make the claim precise."},
	{ID: KindExecutorReportRejected, Class: ClassError, Identity: []string{"reason"}, ReportSide: true,
		Help: "The executor report is missing, invalid, not complete, or for another task; the audit stops at the report."},
	{ID: KindForbiddenPathChanged, Class: ClassError, Primary: pFile, Identity: []string{"file"},
		Help: "A changed path matches one of the spec's forbids patterns (for example tests/** or .github/**), whether the report lists it or the scope declares it; undo the change, or ask the planner to revise the spec."},
	{ID: KindReportMissingChangedFile, Class: ClassError, Primary: pFile, Identity: []string{"file"}, ReportSide: true,
		Help: "A file changed since the baseline is not listed in files_modified; list it, or undo the change."},
	{ID: KindReportUnexpectedFile, Class: ClassError, Primary: pFile, Identity: []string{"file"}, ReportSide: true,
		Help: "files_modified lists a file that is unchanged since the baseline; remove it from the report."},
	{ID: KindVerificationRequirementUnmet, Class: ClassError, Primary: pCmd, Identity: []string{"cmd", "reason"},
		Help: "A verify command the spec declares has no passing, observed result in the report; run it and report its result."},
	{ID: KindAcceptanceCriterionUnmet, Class: ClassError, Reserved: true,
		Help: "An acceptance criterion of the spec is not met (reserved)."},
	{ID: KindObservedExitCodeNonZero, Class: ClassError, Primary: pCmd, Identity: []string{"cmd"}, ReportSide: true,
		Help: "A verification reported as pass has a non-zero observed exit code; the command failed."},
	{ID: KindObservedZeroTests, Class: ClassError, Primary: pCmd, Identity: []string{"cmd"}, ReportSide: true,
		Help: "A test run reported as pass observed zero tests; make the command run the tests."},
	{ID: KindVerificationPassContradicted, Class: ClassError, Primary: pCmd, Identity: []string{"cmd"}, ReportSide: true,
		Help: "A verification reported as pass whose output_excerpt shows its test runner's failure summary (pytest `1 failed`, `FAILED path::test` or a traceback; go `--- FAIL`; jest/vitest `Tests: 1 failed`; cargo `test result: FAILED`). Report result: fail with a defect, or fix the failure and report the passing run's output."},
	{ID: KindVerificationFailed, Class: ClassError, Primary: pCmd, Identity: []string{"cmd"},
		Help: "A declared command that mastermind ran itself failed (non-zero exit, timed out or killed); fix the failure, the output's last lines are in the message and the receipt."},
	// The warning form, where the report differs from the receipt without a false pass,
	// carries its own class; the table holds the error form.
	{ID: KindVerificationClaimContradicted, Class: ClassError, Primary: pCmd, Identity: []string{"cmd", "index"}, ReportSide: true,
		Help: "The report's verification row disagrees with mastermind's own run of the command (an error when the report claims a pass that failed, a warning for other differences); report what the run shows."},
	{ID: KindVerificationWitnessContradicted, Class: ClassError, Primary: pCmd, Identity: []string{"cmd", "index"}, ReportSide: true,
		Help: "The report claims a pass for a command whose last run in the harness's own transcript (after pre-flight) failed; fix the failure and run the command again, or report result: fail."},
	{ID: KindChangedPathUnrepresentable, Class: ClassError, Primary: pFile, Identity: []string{"file"},
		Help: "A changed path cannot be named in files_modified (not UTF-8, or rewritten by normalisation) and cannot be audited; rename it."},
	{ID: KindSelfIgnoringDirectory, Class: ClassError, Primary: pFile, Identity: []string{"file"},
		Help: "A directory created since the baseline ignores itself (its own .gitignore ignores that .gitignore), so git status, diffs and reviews show none of its files, which code can still load; remove its .gitignore so its files are audited, or, for a tool's cache, add its name to .mastermind/tool-caches.yaml in a commit before pre-flight."},
	{ID: KindControllerRecordTampered, Class: ClassError, Primary: pFile, Identity: []string{"file"},
		Help: "A task-folder mirror (state.json, audit.md) holds content mastermind never wrote; it was rewritten from the controller store, and every decision uses the store's record. Find out who changed it."},
	{ID: KindForeignTaskArtifactChanged, Class: ClassError, Primary: pFile, Identity: []string{"file"},
		Help: "Another task's record (its spec.md, state.json, audit.md, history review or executor report) changed since this task's pre-flight; an executor may change only its own task's records. Restore the file as it was at this task's pre-flight (git checkout for a committed one), and make the executor leave other tasks alone."},
	{ID: KindUnexpectedFile, Class: ClassWarning, Primary: pFile, Identity: []string{"file"},
		Help: "A file changed outside the spec's declared scope; revert it or declare it in the spec."},
	{ID: KindMissingExpectedFile, Class: ClassWarning, Primary: pFile, Identity: []string{"file"},
		Help: "A file the spec declares in scope is unchanged since the baseline, or a deletes path is still present; change or delete it, or revise the spec."},
	{ID: KindSnapshotCallerDrift, Class: ClassWarning, Primary: pSymbol, Reserved: true,
		Help: "The callers of a snapshot symbol differ from the spec (reserved)."},
	{ID: KindSnapshotSignatureDrift, Class: ClassWarning, Primary: pSymbol, Reserved: true,
		Help: "The signature of a snapshot symbol differs from the spec (reserved)."},
	{ID: KindPlannedTestNotAdded, Class: ClassWarning, Reserved: true,
		Help: "A test the spec plans was not added (reserved)."},
	{ID: KindVacuousTestClaim, Class: ClassWarning, Primary: pCmd, Identity: []string{"cmd"}, ReportSide: true,
		Help: "A test command reported as pass selects no test in the repository; check the command's test selection."},
	{ID: KindVerificationUnreported, Class: ClassWarning, Primary: pCmd, Identity: []string{"cmd"}, ReportSide: true,
		Help: "A declared command that mastermind ran is missing from the report's verifications; mastermind's receipt is the evidence, report the command too."},
	{ID: KindVerificationModifiedWorktree, Class: ClassWarning,
		Help: "The verification runs changed files in the work tree (the audit used the changed set from before them); make the tests write outside the repository or into ignored paths."},
	{ID: KindVerificationIgnoredInput, Class: ClassWarning, Identity: []string{"files"},
		Help: "Ignored files written since pre-flight were in the work tree when mastermind ran the declared commands, which may have read them although the audit never did; remove them (or regenerate them before pre-flight) and run post-flight again."},
	{ID: KindVerificationNotWitnessed, Class: ClassWarning, Primary: pCmd, Identity: []string{"cmd", "index"}, ReportSide: true,
		Help: "The report claims a run of a command that the harness's own transcript never shows in the repository root after pre-flight (the closest command it shows is named); run the command itself and report that run."},
	{ID: KindToolEditOutsideRepository, Class: ClassWarning, Primary: pPath, Identity: []string{"path"},
		Help: "An edit tool wrote a file outside the repository, the harness's own folders and the temporary directory, where the audit cannot see the change; make the change inside the repository or explain it to the planner."},
	{ID: KindChangedSetDegraded, Class: ClassWarning, Identity: []string{"reason"},
		Help: "The changed-file set was computed without the git CLI; install a supported git to get git's own answer."},
	{ID: KindGitAttributesChanged, Class: ClassError, Identity: []string{"input"},
		Help: "An attribute source (.gitattributes, .git/info/attributes, core.attributesFile) differs from pre-flight, so git could hide changes; undo the change to the attribute rules (a planner changes them in the spec's own task)."},
	{ID: KindGitConfigChanged, Class: ClassError, Identity: []string{"input"},
		Help: "A security-relevant git configuration key (core., filter., diff., index., include, sparse., submodule., status., …) differs from pre-flight, so git could hide changes; restore the configuration."},
	{ID: KindGitMetadataChanged, Class: ClassError, Identity: []string{"input"},
		Help: "Git metadata that decides the changed set (info/grafts, objects/info/alternates, a submodule's repository) differs from pre-flight; restore it."},
	{ID: KindGitBinaryUserWritable, Class: ClassWarning, Primary: pFile, Identity: []string{"file"},
		Help: "The git binary or its directory is writable by the current user, so an executor could have replaced it; set MASTERMIND_GIT to a git the agent cannot write."},
	{ID: KindGitBinaryNotSystem, Class: ClassWarning, Primary: pFile, Identity: []string{"file"},
		Help: "mastermind runs as root and the git binary is outside the system's binary folders, or it or its folder is not owned by root or is writable by group or others, so another user could have planted it; set MASTERMIND_GIT to the system git."},
	{ID: KindGateUnownedChange, Class: ClassError, Primary: pFile, Identity: []string{"file"},
		Help: "A path changed between the merge base and the gated commit that no re-audited task owns (in its declared scope and listed in its report); add it to a task's scope and report, or move the change to its own task."},
	{ID: KindGateBaselineNotAncestor, Class: ClassError, Primary: pTask, Identity: []string{"task"},
		Help: "A task's recorded baseline is not an ancestor of the gated commit (the branch was rebased, or the state was forged), so its changes cannot be audited against it; rerun pre-flight on the branch and audit the task again."},
	{ID: KindGateTaskRecordChanged, Class: ClassError, Primary: pTask, Identity: []string{"task", "reason"},
		Help: "A task record the protected base holds was deleted, or a task closed at the base had its folder or release notes changed; restore the record from the base and put new work in a new task."},
	{ID: KindGateClosedTaskChanged, Class: ClassError, Primary: pFile, Identity: []string{"file"},
		Help: "A path in the declared scope of a task closed at the base (held, accepted, in history review or learned) changed in the range and no open task owns it; a closed task owns nothing new, so put the change in a new task with its own spec and report."},
	{ID: KindGateTaskFolderMissing, Class: ClassError, Primary: pTask, Identity: []string{"task"},
		Help: "The controller store records a task that is not closed, but its folder is missing from the work tree (moved, deleted, or .mastermind/ removed), so its audit cannot run; restore the task folder, or, to drop the task, remove its folder and run mastermind store gc."},
	{ID: KindPreflightCreatesGlob, Class: ClassWarning, Primary: pFile, Identity: []string{"file"}, Planner: true,
		Help: "A creates path holds a glob character (*, ? or [); declared paths are exact and never expanded, so the task can only end broken: list each file the task creates."},
}

// PrimaryFallback are the §9.3 primary fields in preference order for a kind outside Kinds.
var PrimaryFallback = []string{"file", "cmd", "symbol", "from_symbol", "claim_index"}

var (
	pFile       = []string{"file"}
	pFileSymbol = []string{"file", "symbol"}
	pCmd        = []string{"cmd"}
	pSymbol     = []string{"symbol"}
	pFrom       = []string{"from_symbol"}
	pClaim      = []string{"claim_index"}
	pTask       = []string{"task"}
	pPath       = []string{"path"}
)

var kindIndex = func() map[string]int {
	m := make(map[string]int, len(Kinds))
	for i, k := range Kinds {
		m[k.ID] = i
	}
	return m
}()

// KindOf returns the table row of the kind id and whether id is a §9.1 kind.
func KindOf(id string) (Kind, bool) {
	i, ok := kindIndex[id]
	if !ok {
		return Kind{}, false
	}
	return Kinds[i], true
}

// KindRank is the position of id in the §9.1 table; an unknown kind sorts after every known
// one (len(Kinds)).
func KindRank(id string) int {
	if i, ok := kindIndex[id]; ok {
		return i
	}
	return len(Kinds)
}

// KindClass is the class of kind id (§9.1); an unknown kind is an error (fail closed).
func KindClass(id string) Class {
	if k, ok := KindOf(id); ok {
		return k.Class
	}
	return ClassError
}
