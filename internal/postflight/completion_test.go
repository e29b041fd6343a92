package postflight

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/golden"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/schemas"
)

const (
	reviewRel  = ".mastermind/tasks/020-cache/history-review.md"
	stateRel   = ".mastermind/tasks/020-cache/state.json"
	releaseRel = ".mastermind/releases/020-cache.md"
)

// heldWork implements the cache task and writes a matching report, as in the held golden case.
func heldWork(t *testing.T, root string) {
	t.Helper()
	writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = newLRU()\n")
	writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 0 }\n")
	writeFile(t, root, "docs/cache.md", "# Cache\n\nLRU.\n")
	git(t, root, "add", "internal/cache/cache.go")
	git(t, root, "commit", "-q", "-m", "work")
	writeFile(t, root, reportRel, reportText([]string{"internal/cache/cache.go", "internal/cache/lru.go", "docs/cache.md"}, ""))
}

func readFile(t *testing.T, root, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// completeTheReview fills in the pending review the way a planner would, keeping its snapshot.
func completeTheReview(t *testing.T, root string) {
	t.Helper()
	s := string(readFile(t, root, reviewRel))
	s = strings.Replace(s, "- **Context:** pending", "- **Context:** not applicable", 1)
	s = strings.Replace(s, "- **Lesson:** pending", "- **Lesson:** Updated", 1)
	s = strings.Replace(s, "- **Reason:** semantic review required", "- **Reason:** No context docs exist; the LRU lesson was recorded.", 1)
	writeFile(t, root, reviewRel, s)
	// Lesson "updated": the task's candidate lessons, when an earlier audit wrote any, are
	// written too (§8.2).
	const lessons = ".mastermind/tasks/_lessons.md"
	if l, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(lessons))); err == nil {
		writeFile(t, root, lessons, strings.ReplaceAll(string(l), "- **Reusable lesson:** pending semantic review", "- **Reusable lesson:** Keep the LRU bounded."))
	}
}

func wantOutcome(t *testing.T, res *Outcome, outcome OutcomeKind, status, next string) {
	t.Helper()
	if res.Outcome != outcome {
		t.Fatalf("outcome %s, want %s: %s", res.Outcome, outcome, res.Message)
	}
	if status != "" && (res.State == nil || res.State.Status != status || res.State.NextStep != next) {
		t.Fatalf("state %+v, want %s/%s", res.State, status, next)
	}
}

// TestHeldArtifactsGolden compares the release notes and the pending history review of the held
// golden case with testdata/golden (go test -update rewrites them), byte for byte (§8.1, §8.2).
func TestHeldArtifactsGolden(t *testing.T) {
	root, opts := newTaskRepo(t)
	heldWork(t, root)
	res := run(t, opts, ModePostOnly)
	wantOutcome(t, res, OutcomePostHeld, StatusHistoryReviewRequired, NextReviewHistory)
	for _, art := range []struct{ rel, golden string }{
		{releaseRel, "held.release-notes.md"},
		{reviewRel, "held.history-review.md"},
	} {
		got := readFile(t, root, art.rel)
		golden.Check(t, filepath.Join(origWD, "testdata", "golden", art.golden), got)
	}
	if !bytes.Contains(readFile(t, root, reviewRel), []byte("- **Audit snapshot:** "+res.State.HistorySnapshotSHA256+"\n")) {
		t.Error("the review does not carry the state's snapshot")
	}
}

// TestCompletionLifecycle: held → pending review (state unchanged) → complete → learned; learned is
// stable under unrelated commits; --post-only re-audits and clears the completion.
func TestCompletionLifecycle(t *testing.T) {
	root, opts := newTaskRepo(t)
	heldWork(t, root)
	wantOutcome(t, run(t, opts, ModePostOnly), OutcomePostHeld, StatusHistoryReviewRequired, NextReviewHistory)
	before := readFile(t, root, stateRel)

	res := run(t, opts, ModeAuto)
	wantOutcome(t, res, OutcomeHistoryPending, "", "")
	if res.Phase != PhaseCompletion || !bytes.Equal(before, readFile(t, root, stateRel)) {
		t.Fatalf("phase %s; state changed by a pending completion", res.Phase)
	}
	if len(res.Review) == 0 || !strings.HasPrefix(res.Review[0], reviewRel+":9: field \"Context\" is \"pending\"") || len(res.Findings) != 3 ||
		res.Findings[0].Rule != RuleReviewIncomplete || res.Findings[0].Line != 9 {
		t.Fatalf("pending review/findings:\n%q\n%+v", res.Review, res.Findings)
	}
	if res.Next != (Next{Step: NextReviewHistory, Edit: reviewRel, Run: "mastermind run-task " + taskSpec}) {
		t.Fatalf("next %+v", res.Next)
	}

	completeTheReview(t, root)
	res = run(t, opts, ModeAuto)
	wantOutcome(t, res, OutcomeCompleted, StatusLearned, NextClose)
	if res.State.LastArtifact != ArtifactHistoryReview || res.State.Verdict != VerdictHeld || res.State.HistorySnapshotSHA256 == "" {
		t.Fatalf("learned state %+v", res.State)
	}
	schemaValid(t, root)
	learned := readFile(t, root, stateRel)

	// Later unrelated commits leave it learned; nothing is written.
	writeFile(t, root, "other/unrelated.txt", "x\n")
	git(t, root, "add", "other")
	git(t, root, "commit", "-q", "-m", "unrelated")
	res = run(t, opts, ModeAuto)
	wantOutcome(t, res, OutcomeCompleted, "", "")
	if !bytes.Equal(learned, readFile(t, root, stateRel)) || !strings.Contains(res.Message, "is learned") ||
		res.Next.Run != "mastermind run-task "+taskSpec+" --pre-only" {
		t.Fatalf("learned task changed or wrong outcome: %+v", res)
	}

	// --post-only on a closed task is a read (lifecycle-v2.md §5): the record's outcome, with a
	// note that the work changed since it closed, and nothing written.
	res = run(t, opts, ModePostOnly)
	wantOutcome(t, res, OutcomeCompleted, StatusLearned, NextClose)
	if !bytes.Equal(learned, readFile(t, root, stateRel)) || !res.Repeated ||
		!strings.Contains(res.Message, "the spec, the executor report or the work changed since it closed: put new work in a new task") {
		t.Fatalf("the post-flight of a learned task was not a read: %+v", res)
	}

	// Reopened on purpose (a re-pre-flight), it is audited again: the unrelated file is outside
	// the scope and unlisted.
	wantOutcome(t, run(t, opts, ModePreOnly), OutcomePreReady, StatusApproved, NextRunExecutor)
	res = run(t, opts, ModePostOnly)
	wantOutcome(t, res, OutcomePostBroken, StatusBroken, NextPlannerReview)
	if res.State.HistorySnapshotSHA256 != "" {
		t.Fatal("completion not cleared")
	}
}

// TestHeldWithCompleteReviewGoesStraightToLearned: the post-flight of a learned task whose inputs
// did not change is a read of the record that closed it: held, learned, the review untouched.
func TestHeldWithCompleteReviewGoesStraightToLearned(t *testing.T) {
	root, opts := newTaskRepo(t)
	heldWork(t, root)
	run(t, opts, ModePostOnly)
	completeTheReview(t, root)
	wantOutcome(t, run(t, opts, ModeAuto), OutcomeCompleted, StatusLearned, NextClose)
	review := readFile(t, root, reviewRel)
	res := run(t, opts, ModePostOnly)
	wantOutcome(t, res, OutcomeCompleted, StatusLearned, NextClose)
	if res.Phase != PhasePostflight || !strings.HasPrefix(res.AuditSummary, "✅ Held") || !strings.Contains(res.Message, "is learned") ||
		res.Verdict != VerdictHeld {
		t.Fatalf("outcome %+v", res)
	}
	if !bytes.Equal(review, readFile(t, root, reviewRel)) {
		t.Fatal("the complete review was rewritten")
	}
	if m, _ := filepath.Glob(filepath.Join(root, ".mastermind/tasks/020-cache/history-review.*.md")); len(m) != 0 {
		t.Fatalf("archived %v", m)
	}
}

// TestCompletionInputsChanged: editing an audited file after the held audit sends the task back
// to audit_required with the exact §8.3 reason (exit 1). (A deleted audit.md is restored from the
// controller store: TestMirrorsRestoredFromStore.)
func TestCompletionInputsChanged(t *testing.T) {
	for _, tamper := range []struct {
		name string
		do   func(t *testing.T, root string)
	}{
		{"implementation edited", func(t *testing.T, root string) {
			writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 1 }\n")
		}},
		{"committed edit", func(t *testing.T, root string) {
			writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = newLRU() + 0\n")
			git(t, root, "commit", "-q", "-am", "tweak")
		}},
		{"release notes replaced by a symlink", func(t *testing.T, root string) {
			p := filepath.Join(root, releaseRel)
			data, _ := os.ReadFile(p)
			os.WriteFile(filepath.Join(root, "notes.md"), data, 0o644)
			os.Remove(p)
			if err := os.Symlink(filepath.Join(root, "notes.md"), p); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tamper.name, func(t *testing.T) {
			root, opts := newTaskRepo(t)
			heldWork(t, root)
			run(t, opts, ModePostOnly)
			completeTheReview(t, root)
			tamper.do(t, root)
			res := run(t, opts, ModeAuto)
			wantOutcome(t, res, OutcomePostRefused, StatusAuditRequired, NextRunAudit)
			if res.State.BlockingReason != "audited inputs changed since the held audit; rerun post-flight" ||
				res.Message != res.State.BlockingReason || res.State.HistorySnapshotSHA256 != "" || res.State.Verdict != "" {
				t.Fatalf("state %+v", res.State)
			}
			schemaValid(t, root)
			// The next plain run is a post-flight again.
			res = run(t, opts, ModeAuto)
			if res.Phase != PhasePostflight {
				t.Fatalf("phase %s", res.Phase)
			}
		})
	}
}

// TestStaleReviewArchived: a new held audit with another snapshot archives the old review byte for
// byte as history-review.<old snapshot>.md and writes a fresh pending review.
func TestStaleReviewArchived(t *testing.T) {
	root, opts := newTaskRepo(t)
	heldWork(t, root)
	first := run(t, opts, ModePostOnly).State.HistorySnapshotSHA256
	completeTheReview(t, root)
	old := readFile(t, root, reviewRel)
	writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 2 }\n")
	res := run(t, opts, ModePostOnly)
	wantOutcome(t, res, OutcomePostHeld, StatusHistoryReviewRequired, NextReviewHistory)
	if res.State.HistorySnapshotSHA256 == first {
		t.Fatal("snapshot did not change")
	}
	archived := readFile(t, root, ".mastermind/tasks/020-cache/history-review."+first+".md")
	if !bytes.Equal(archived, old) {
		t.Fatal("archive differs from the old review")
	}
	fresh := string(readFile(t, root, reviewRel))
	if !strings.Contains(fresh, "- **Context:** pending") || !strings.Contains(fresh, res.State.HistorySnapshotSHA256) {
		t.Fatalf("fresh review:\n%s", fresh)
	}
	// A review without a usable snapshot field is no review the controller issued: a changed
	// path (hardening.md A-N3), and nothing is archived under the SHA-256 of its bytes.
	writeFile(t, root, reviewRel, "scribbles\n")
	writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 3 }\n")
	res = run(t, opts, ModePostOnly)
	if res.Verdict != VerdictBroken {
		t.Fatalf("verdict %s, want broken", res.Verdict)
	}
	if _, err := os.Lstat(filepath.Join(root, ".mastermind/tasks/020-cache/history-review."+fsx.SHA256Hex([]byte("scribbles\n"))+".md")); err == nil {
		t.Fatal("the scribbles were archived")
	}
}

// TestHostileReview: a symlinked or oversized review is never complete; a held audit refuses to
// replace a symlinked review (exit 3) and leaves its target untouched.
func TestHostileReview(t *testing.T) {
	root, opts := newTaskRepo(t)
	heldWork(t, root)
	run(t, opts, ModePostOnly)
	completeTheReview(t, root)
	p := filepath.Join(root, reviewRel)
	outside := filepath.Join(t.TempDir(), "review.md")
	if err := os.Rename(p, outside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, p); err != nil {
		t.Fatal(err)
	}
	res := run(t, opts, ModeAuto)
	wantOutcome(t, res, OutcomeHistoryPending, StatusHistoryReviewRequired, NextReviewHistory)
	if !strings.Contains(strings.Join(res.Review, "\n"), "symbolic link") {
		t.Fatalf("review problems: %q", res.Review)
	}
	target := readFile(t, "/", outside)
	opts.Mode = ModePostOnly
	// Changed work, so that the post-flight audits again (unchanged inputs are a read).
	writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 4 }\n")
	if _, err := Run(t.Context(), opts); err == nil || !strings.Contains(err.Error(), "history-review.md is refused") {
		t.Fatalf("err %v", err)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 || !bytes.Equal(target, readFile(t, "/", outside)) {
		t.Fatal("the symlink or its target was touched")
	}

	// Over 1 MiB: refused as incomplete, with the limit in the message.
	root2, opts2 := newTaskRepo(t)
	heldWork(t, root2)
	run(t, opts2, ModePostOnly)
	writeFile(t, root2, reviewRel, completeReview(readState(t, root2).HistorySnapshotSHA256)+strings.Repeat("padding\n", MaxReviewBytes/8+1))
	res = run(t, opts2, ModeAuto)
	wantOutcome(t, res, OutcomeHistoryPending, "", "")
	if !strings.Contains(strings.Join(res.Review, "\n"), "larger than 1048576 bytes (1 MiB)") {
		t.Fatalf("review problems: %q", res.Review)
	}
}

func readState(t *testing.T, root string) *State {
	t.Helper()
	s, err := ParseState(readFile(t, root, stateRel))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// schemaValid checks the written state.json against the published state-v1 schema.
func schemaValid(t *testing.T, root string) {
	t.Helper()
	sch, err := schemas.Compile("state-v1")
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(readFile(t, root, stateRel), &v); err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("state.json does not match state-v1: %v", err)
	}
}

// TestReleaseNotesTitleAndMissingSections: the title falls back from the first level-1 heading to
// the frontmatter title to the task name (escaped), and absent sections get the §8.1 placeholders.
func TestReleaseNotesTitleAndMissingSections(t *testing.T) {
	root, opts := newTaskRepo(t)
	view := taskSource(t, opts, "020-cache")
	c := &controller{opts: opts, clock: opts.Now, git: opts.Git, task: Task{Root: root, Name: "020-cache", Dir: ".mastermind/tasks/020-cache", Spec: taskSpec}, res: &Outcome{}, src: view}
	cs, err := opts.Git.ChangedSet(t.Context(), readState(t, root).BaselineRef)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ src, first string }{
		{"---\nmode: lite\ntitle: From \u202e frontmatter\n---\n## Goals\n\nG.\n", "# From \\u202E frontmatter\n\n## Summary\n\nG.\n\n## Tests\n\n_The spec has no Tests Plan section._\n\n## Diff\n\n```text\n```\n"},
		{"---\nmode: lite\n---\nintro\n\n## Goals\n\nG.\n\n# Late title\n", "# 020-cache\n\n## Summary\n\nG.\n\n## Tests\n\n_The spec has no Tests Plan section._\n"},
		{"# Body title\n\n## Tests Plan\n\nT.\n", "# Body title\n\n## Summary\n\n_The spec has no Goals section._\n\n## Tests\n\nT.\n"},
	} {
		sp, _ := spec.Parse([]byte(tc.src), taskSpec)
		notes, err := c.releaseNotes(sp, nil, c.startDiffStat(t.Context(), cs), "Audit: ✅ Held")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(notes), tc.first) || !strings.HasSuffix(string(notes), "```\n\n---\nAudit: ✅ Held\n") {
			t.Errorf("notes for %q:\n%s", tc.src, notes)
		}
	}
}
