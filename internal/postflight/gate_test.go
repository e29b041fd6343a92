package postflight

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/store"
)

// liteSpec is a lite-mode spec declaring touches and expected_docs.
func liteSpec(title string, touches, docs []string) string {
	var b strings.Builder
	b.WriteString("---\nmode: lite\ntouches:\n")
	for _, f := range touches {
		b.WriteString("  - file: " + f + "\n")
	}
	if len(docs) > 0 {
		b.WriteString("expected_docs:\n")
		for _, f := range docs {
			b.WriteString("  - " + f + "\n")
		}
	}
	b.WriteString("---\n# " + title + "\n\n## Goals\n\nDo it.\n")
	return b.String()
}

// liteReport is a complete report for spec listing files.
func liteReport(specPath string, files []string) string {
	var b strings.Builder
	b.WriteString("<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: " + specPath +
		"\nstatus: complete\nphases: []\nfiles_modified:\n")
	for _, f := range files {
		b.WriteString("  - " + f + "\n")
	}
	b.WriteString("claims: []\ndefects: []\nverifications: []\n```\n<!-- mastermind:report-end -->\n")
	return b.String()
}

func specOf(name string) string { return ".mastermind/tasks/" + name + "/spec.md" }

// countingGit counts the changed-set computations reaching the repository: the live ones under
// their baseline, the snapshot views' under "since " + baseline (countViews).
type countingGit struct {
	*gitscope.Repo
	changedSets map[string]int
}

func (g *countingGit) ChangedSet(ctx context.Context, baseline string) (*gitscope.ChangedSet, error) {
	g.changedSets[baseline]++
	return g.Repo.ChangedSet(ctx, baseline)
}

// countedView is a snapshot view whose changed sets are counted.
type countedView struct {
	source
	baseline string
	counts   map[string]int
}

func (v countedView) ChangedSet(ctx context.Context) (*gitscope.ChangedSet, error) {
	v.counts["since "+v.baseline]++
	return v.source.ChangedSet(ctx)
}

// countViews counts every snapshot view's changed set in g.changedSets for the rest of the test.
func countViews(t *testing.T, g *countingGit) {
	orig := newSnapshotView
	t.Cleanup(func() { newSnapshotView = orig })
	newSnapshotView = func(ctx context.Context, git Git, baseline string, snap gitscope.SnapshotStore) (source, error) {
		src, err := orig(ctx, git, baseline, snap)
		if err != nil {
			return nil, err
		}
		return countedView{source: src, baseline: baseline, counts: g.changedSets}, nil
	}
}

// gateRepo builds a repository with seven tasks sharing one baseline B0 and one change (a.go):
// held, drift (expected doc unchanged), broken (report lists an unchanged file), learned,
// never started, corrupt state, and spec changed since approval.
func gateRepo(t *testing.T) (string, *countingGit, string) {
	t.Helper()
	gitEnv(t)
	root := t.TempDir()
	writeFile(t, root, "a.go", "package a\n")
	writeFile(t, root, "c.go", "package a\n")
	writeFile(t, root, "docs/x.md", "# X\n")
	tasks := map[string]string{
		"001-held":    liteSpec("Held", []string{"a.go"}, nil),
		"002-drift":   liteSpec("Drift", []string{"a.go"}, []string{"docs/x.md"}),
		"003-broken":  liteSpec("Broken", []string{"a.go"}, nil),
		"004-learned": liteSpec("Learned", []string{"a.go"}, nil),
		"005-new":     liteSpec("New", []string{"z.go"}, nil),
		"006-corrupt": liteSpec("Corrupt", []string{"a.go"}, nil),
		"007-changed": liteSpec("Changed", []string{"a.go"}, nil),
	}
	for name, text := range tasks {
		writeFile(t, root, specOf(name), text)
	}
	git(t, root, "init", "-q")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "baseline")
	b0 := git(t, root, "rev-parse", "HEAD")
	repo, err := gitscope.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	// Every task's records are in the work tree before the pre-flights that follow them: another
	// task's report, or a state.json its controller did not write, that appeared after a task's
	// pre-flight is a changed path of that task (trust-model.md I3, #26 item 4), which this
	// fixture is not about. For the same reason 007 is approved first and its spec changed at once
	// (a change to another task's spec is foreign_task_artifact_changed), and 004 is closed and
	// 006's state corrupted before the others are approved.
	for _, name := range []string{"001-held", "002-drift", "004-learned", "006-corrupt", "007-changed"} {
		writeFile(t, root, ".mastermind/tasks/"+name+"/executor-report.md", liteReport(specOf(name), []string{"a.go"}))
	}
	writeFile(t, root, ".mastermind/tasks/003-broken/executor-report.md", liteReport(specOf("003-broken"), []string{"a.go", "c.go"}))
	preflight := func(name string) {
		res := run(t, Options{Git: repo, SpecArg: specOf(name), MaxIterations: DefaultMaxIterations, Now: fixedNow}, ModePreOnly)
		if res.Outcome != OutcomePreReady {
			t.Fatalf("pre-flight %s: %s\n%s", name, res.Outcome, res.Message)
		}
	}
	preflight("007-changed")
	writeFile(t, root, specOf("007-changed"), liteSpec("Changed later", []string{"a.go"}, nil))
	preflight("004-learned")
	// 004: closed.
	stPath := filepath.Join(root, ".mastermind/tasks/004-learned/state.json")
	st, err := LoadState(stPath, "x", specOf("004-learned"))
	if err != nil {
		t.Fatal(err)
	}
	held := false
	st.Status, st.NextStep, st.Verdict, st.Findings, st.Degraded = StatusLearned, NextClose, VerdictHeld, &Counts{}, &held
	st.HistorySnapshotSHA256, st.LastArtifact = strings.Repeat("ab", 32), ArtifactHistoryReview
	data, err := MarshalState(st)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, ".mastermind/tasks/004-learned/state.json", string(data))
	writeFile(t, root, ".mastermind/tasks/004-learned/history-review.md", completeReview(st.HistorySnapshotSHA256))
	// 004 was closed on another machine: this machine's store has no record of it, so the gate
	// reads its state.json (a hand-written learned state over a record is tampering).
	forgetRecord(t, root, "004-learned")
	preflight("006-corrupt")
	writeFile(t, root, ".mastermind/tasks/006-corrupt/state.json", "{not json")
	for _, name := range []string{"001-held", "002-drift", "003-broken"} {
		preflight(name)
	}
	writeFile(t, root, "a.go", "package a\n\nfunc A() {}\n")
	g := &countingGit{Repo: repo, changedSets: map[string]int{}}
	countViews(t, g)
	return root, g, b0
}

// snapshotStates returns every state.json's bytes by task.
func snapshotStates(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	matches, _ := filepath.Glob(filepath.Join(root, ".mastermind/tasks/*/state.json"))
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(filepath.Dir(m))] = string(b)
	}
	return out
}

type gateRow struct {
	Task   string
	Status GateStatus
	Passed bool
	Reason string
}

func gateRows(r *GateResult) []gateRow {
	var rows []gateRow
	for _, t := range r.Tasks {
		reason := t.Reason
		if t.Err != nil {
			reason = "ERR"
		}
		rows = append(rows, gateRow{t.Task.Name, t.Status, t.Passed, reason})
	}
	return rows
}

const (
	notStarted005 = "no state.json: the task was never approved; run pre-flight (mastermind run-task .mastermind/tasks/005-new/spec.md --pre-only), or remove the task folder if the task is not wanted"
	changed007    = reasonSpecChanged + "; next: mastermind run-task .mastermind/tasks/007-changed/spec.md --pre-only"
)

func TestGateReadOnly(t *testing.T) {
	root, g, b0 := gateRepo(t)
	before := snapshotStates(t, root)
	auditsBefore, _ := filepath.Glob(filepath.Join(root, ".mastermind/tasks/*/audit.md"))
	res, err := Gate(context.Background(), GateOptions{Git: g})
	if err != nil {
		t.Fatal(err)
	}
	want := []gateRow{
		{"001-held", GateHeld, true, ""},
		{"002-drift", GateDrift, true, "missing_expected_file: declared in scope but unchanged since the baseline: docs/x.md"},
		{"003-broken", GateBroken, false, "executor_report_unexpected_file: listed in files_modified but unchanged since the baseline: c.go"},
		{"004-learned", GateLearned, true, ""},
		{"005-new", GateNotStarted, false, notStarted005},
		{"006-corrupt", GateError, false, "ERR"},
		{"007-changed", GateRefused, false, changed007},
	}
	if d := cmp.Diff(want, gateRows(res)); d != "" {
		t.Errorf("gate rows (-want +got):\n%s", d)
	}
	var cse *CorruptStateError
	if !errors.As(res.Tasks[5].Err, &cse) {
		t.Errorf("006 error = %v, want *CorruptStateError", res.Tasks[5].Err)
	}
	if res.Count(GateError) != 1 || res.Passed() {
		t.Errorf("a corrupt state did not fail closed: %+v", gateRows(res))
	}
	// Each audited task's changed set is its own, under its own pre-flight snapshots, as its
	// post-flight computes it (trust-model.md I1): three snapshot runs, no live one. 007's
	// changed spec refuses it before its changed set is needed.
	if d := cmp.Diff(map[string]int{"since " + b0: 3}, g.changedSets); d != "" {
		t.Errorf("changed-set computations (-want +got):\n%s", d)
	}
	wantStats := GateStats{Tasks: 7, Selected: 7, Audited: 3, Baselines: 1, ChangedSets: 3, SpecReads: 4, SpecParses: 4}
	if d := cmp.Diff(wantStats, res.Stats); d != "" {
		t.Errorf("stats (-want +got):\n%s", d)
	}
	// Nothing written: state bytes unchanged, no audit.md.
	if d := cmp.Diff(before, snapshotStates(t, root)); d != "" {
		t.Errorf("states changed without --record:\n%s", d)
	}
	auditsAfter, _ := filepath.Glob(filepath.Join(root, ".mastermind/tasks/*/audit.md"))
	if len(auditsAfter) != len(auditsBefore) {
		t.Errorf("audit.md files written: %v", auditsAfter)
	}
	// The findings equal those of a real post-flight (same checks).
	drift := res.Tasks[1]
	if drift.Verdict != VerdictDrift || drift.Counts == nil || *drift.Counts != (Counts{Warnings: 1}) {
		t.Errorf("drift verdict/counts = %s %+v", drift.Verdict, drift.Counts)
	}
	post := run(t, Options{Git: g.Repo, SpecArg: specOf("002-drift"), Now: fixedNow}, ModePostOnly)
	if d := cmp.Diff(post.Findings, drift.Findings); d != "" {
		t.Errorf("gate findings differ from post-flight findings:\n%s", d)
	}
}

func TestGateExitCodes(t *testing.T) {
	root, g, _ := gateRepo(t)
	// Without the corrupt task, broken and refused make exit 1.
	if err := os.Remove(filepath.Join(root, ".mastermind/tasks/006-corrupt/state.json")); err != nil {
		t.Fatal(err)
	}
	res, err := Gate(context.Background(), GateOptions{Git: g})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed() || res.Count(GateError) != 0 {
		t.Errorf("want a failing gate without errors: %+v", gateRows(res))
	}
	// Only held, drift, learned and never-started remain: pass, unless --fail-on drift.
	dropTasks(t, root, "003-broken", "006-corrupt", "007-changed")
	res, err = Gate(context.Background(), GateOptions{Git: g})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed() || res.Count(GateError) != 0 {
		t.Errorf("a task that was never started is open work and fails: %+v", gateRows(res))
	}
	// Once the unwanted task is removed, held, drift and learned pass.
	dropTasks(t, root, "005-new")
	res, err = Gate(context.Background(), GateOptions{Git: g})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Passed() {
		t.Errorf("want a passing gate: %+v", gateRows(res))
	}
	res, err = Gate(context.Background(), GateOptions{Git: g, FailOnDrift: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed() || res.Count(GateError) != 0 {
		t.Errorf("--fail-on drift: want a failing gate: %+v", gateRows(res))
	}
	for _, tk := range res.Tasks {
		wantPass := tk.Status == GateHeld || tk.Status == GateLearned
		if tk.Passed != wantPass {
			t.Errorf("--fail-on drift: %s %s passed=%v", tk.Task.Name, tk.Status, tk.Passed)
		}
	}
}

func TestGateSince(t *testing.T) {
	root, g, _ := gateRepo(t)
	if err := os.Remove(filepath.Join(root, ".mastermind/tasks/006-corrupt/state.json")); err != nil {
		t.Fatal(err)
	}
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "work")
	b1 := git(t, root, "rev-parse", "HEAD")
	// After b1: 003's folder changes, and z.go (declared by 005) is created.
	writeFile(t, root, ".mastermind/tasks/003-broken/notes.txt", "x\n")
	writeFile(t, root, "z.go", "package a\n")
	res, err := Gate(context.Background(), GateOptions{Git: g, Since: b1})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tk := range res.Tasks {
		names = append(names, tk.Task.Name)
	}
	if d := cmp.Diff([]string{"003-broken", "005-new"}, names); d != "" {
		t.Errorf("selected tasks (-want +got):\n%s", d)
	}
	if res.Stats.Selected != 2 || res.Stats.Tasks != 7 {
		t.Errorf("stats = %+v", res.Stats)
	}
	// A change to a.go since b1 selects every task declaring it.
	writeFile(t, root, "a.go", "package a\n\nfunc A() { _ = 1 }\n")
	res, err = Gate(context.Background(), GateOptions{Git: g, Since: b1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Selected != 7 {
		t.Errorf("selected %d tasks after changing a.go, want 7: %+v", res.Stats.Selected, gateRows(res))
	}
}

func TestGateRecord(t *testing.T) {
	root, g, b0 := gateRepo(t)
	before := snapshotStates(t, root)
	res, err := Gate(context.Background(), GateOptions{Git: g, Record: true, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	want := []gateRow{
		{"001-held", GateHeld, true, ""},
		{"002-drift", GateDrift, true, "missing_expected_file: declared in scope but unchanged since the baseline: docs/x.md"},
		{"003-broken", GateBroken, false, "executor_report_unexpected_file: listed in files_modified but unchanged since the baseline: c.go"},
		{"004-learned", GateLearned, true, ""},
		{"005-new", GateNotStarted, false, notStarted005},
		{"006-corrupt", GateError, false, "ERR"},
		{"007-changed", GateRefused, false, changed007},
	}
	if d := cmp.Diff(want, gateRows(res)); d != "" {
		t.Errorf("gate --record rows (-want +got):\n%s", d)
	}
	after := snapshotStates(t, root)
	for name, wantStatus := range map[string]string{"001-held": StatusHistoryReviewRequired, "002-drift": StatusDrift,
		"003-broken": StatusBroken, "007-changed": StatusBlocked} {
		if !strings.Contains(after[name], `"status": "`+wantStatus+`"`) {
			t.Errorf("%s state after --record:\n%s", name, after[name])
		}
		if !res.Tasks[taskIndex(res, name)].Recorded {
			t.Errorf("%s not marked recorded", name)
		}
	}
	for _, name := range []string{"004-learned", "006-corrupt"} {
		if after[name] != before[name] {
			t.Errorf("%s state changed by --record", name)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".mastermind/tasks/001-held/audit.md")); err != nil {
		t.Errorf("held audit.md not written: %v", err)
	}
	// --record runs each task's post-flight, which computes the changed set against the task's
	// own pre-flight snapshot: one snapshot run per recorded task, none shared.
	if g.changedSets[b0] != 0 || g.changedSets["since "+b0] != 3 {
		t.Errorf("changed sets with --record: %v, want 3 snapshot runs (001, 002, 003) for %s", g.changedSets, b0)
	}
}

func taskIndex(r *GateResult, name string) int {
	for i, t := range r.Tasks {
		if t.Task.Name == name {
			return i
		}
	}
	return -1
}

// TestChangedOnceCachesErrors: a failing changed set is computed once and every reader gets its
// error.
func TestChangedOnceCachesErrors(t *testing.T) {
	gitEnv(t)
	root := t.TempDir()
	writeFile(t, root, "a", "x\n")
	git(t, root, "init", "-q")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "c")
	repo, err := gitscope.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	head := git(t, root, "rev-parse", "HEAD")
	missing := strings.Repeat("1", 40)
	co := &changedOnce{src: (&headCommit{rg: repo, head: head}).source(missing)}
	var stats GateStats
	_, err1 := co.get(context.Background(), &stats)
	_, err2 := co.get(context.Background(), &stats)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Fatalf("errors: %v / %v", err1, err2)
	}
	if stats.ChangedSets != 1 {
		t.Errorf("computed %d, want 1", stats.ChangedSets)
	}
}

// dropTasks drops tasks as a planner does: their folders removed, then store gc, which forgets
// the records whose folder is gone.
func dropTasks(t *testing.T, root string, names ...string) {
	t.Helper()
	for _, name := range names {
		if err := os.RemoveAll(filepath.Join(root, ".mastermind/tasks", name)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := store.Open(os.Getenv(store.EnvStateDir))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.GC(false); err != nil {
		t.Fatal(err)
	}
}

// TestGateTaskFolderMissing: a task the store records open whose folder is gone fails the local
// gate with one gate.task_folder_missing, with or without --since (docs/hardening.md D19); a
// learned record and a dropped task (store gc) do not.
func TestGateTaskFolderMissing(t *testing.T) {
	root, g, _ := gateRepo(t)
	dropTasks(t, root, "003-broken", "005-new", "006-corrupt", "007-changed")
	res, err := Gate(context.Background(), GateOptions{Git: g})
	if err != nil || !res.Passed() {
		t.Fatalf("after the drops: %v %+v %v", err, gateRows(res), res.Findings)
	}
	tasks := filepath.Join(root, ".mastermind/tasks")
	if err := os.Rename(filepath.Join(tasks, "002-drift"), filepath.Join(t.TempDir(), "002-drift")); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []GateOptions{{Git: g}, {Git: g, Since: git(t, root, "rev-parse", "HEAD")}} {
		res, err = Gate(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Passed() || len(res.Findings) != 1 {
			t.Fatalf("since %q: want one finding and a failing gate: %+v %+v", opts.Since, gateRows(res), res.Findings)
		}
		f := res.Findings[0]
		if f.Rule != finding.KindGateTaskFolderMissing || f.FieldString("task") != "002-drift" || f.FieldString("status") != StatusApproved ||
			!strings.Contains(f.Text(), "restore .mastermind/tasks/002-drift/ or, to drop the task, run mastermind store gc") {
			t.Errorf("finding: %+v", f)
		}
	}
	// A learned record whose folder is gone hides nothing the gate would audit.
	editRecord(t, Options{Git: g.Repo, SpecArg: specOf("001-held")}, func(tf *taskFiles) {
		st, err := ParseState(tf.rec.State)
		if err != nil {
			t.Fatal(err)
		}
		held := false
		st.Status, st.NextStep, st.Verdict, st.Findings, st.Degraded = StatusLearned, NextClose, VerdictHeld, &Counts{}, &held
		st.HistorySnapshotSHA256, st.LastArtifact = strings.Repeat("ab", 32), ArtifactHistoryReview
		if tf.rec.State, err = MarshalState(st); err != nil {
			t.Fatal(err)
		}
	})
	if err := os.RemoveAll(filepath.Join(tasks, "001-held")); err != nil {
		t.Fatal(err)
	}
	res, err = Gate(context.Background(), GateOptions{Git: g})
	if err != nil || len(res.Findings) != 1 || res.Findings[0].FieldString("task") != "002-drift" {
		t.Fatalf("a learned record: %v %+v", err, res.Findings)
	}
	// Dropped: the gate passes again.
	dropTasks(t, root)
	res, err = Gate(context.Background(), GateOptions{Git: g})
	if err != nil || !res.Passed() || len(res.Findings) != 0 {
		t.Fatalf("after store gc: %v %+v %+v", err, gateRows(res), res.Findings)
	}
}

// forgetRecord removes a task's record from the test's controller store, as if the task had been
// pre-flighted on another machine.
func forgetRecord(t *testing.T, root, task string) {
	t.Helper()
	id, err := store.RepoID(filepath.Join(root, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(os.Getenv(store.EnvStateDir), "repos", id, "tasks", task)); err != nil {
		t.Fatal(err)
	}
}
