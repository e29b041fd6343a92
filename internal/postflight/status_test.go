package postflight

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestScanTasksAndStatusEntries(t *testing.T) {
	root, _, b0 := gateRepo(t)
	tasks := filepath.Join(root, ".mastermind/tasks")
	// Files that are not task folders are ignored; a misnamed directory is listed as not_a_task;
	// a symlinked task folder is an error row.
	writeFile(t, root, ".mastermind/tasks/_lessons.md", "# Lessons\n")
	if err := os.MkdirAll(filepath.Join(tasks, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tasks, "001-held"), filepath.Join(tasks, "008-link")); err != nil {
		t.Fatal(err)
	}
	mtime := time.Unix(1796040000, 0)
	for _, name := range []string{"001-held", "002-drift"} {
		if err := os.Chtimes(filepath.Join(tasks, name, "state.json"), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	infos, err := ScanTasks(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range infos {
		names = append(names, in.Task.Name)
	}
	wantNames := []string{"001-held", "002-drift", "003-broken", "004-learned", "005-new", "006-corrupt", "007-changed", "008-link", "notes"}
	if d := cmp.Diff(wantNames, names); d != "" {
		t.Fatalf("tasks (-want +got):\n%s", d)
	}
	var spe *SpecPathError
	if !errors.As(infos[7].Err, &spe) {
		t.Errorf("symlinked folder: err = %v, want *SpecPathError", infos[7].Err)
	}
	now := mtime.Add(3*time.Hour + 5*time.Second)
	rows := StatusEntries(infos, now)
	if len(rows) != len(wantNames) {
		t.Fatalf("%d rows", len(rows))
	}
	short := b0[:12]
	one := 1
	zero := 0
	age := int64(3*3600 + 5)
	want0 := StatusEntry{Task: "001-held", Spec: specOf("001-held"), Status: StatusApproved, NextStep: strPtr(NextRunExecutor),
		Risk: strPtr(RiskLow), Iteration: &one, Baseline: &short, BaselineRef: &b0, LastArtifact: strPtr(ArtifactSpec),
		BlockingStreak: &zero, StartedAt: strPtr("2026-11-30T12:00:00Z"), UpdatedAt: strPtr("2026-11-30T12:00:00Z"), AgeSeconds: &age,
		Source: strPtr("mirror")}
	if d := cmp.Diff(want0, rows[0]); d != "" {
		t.Errorf("row 0 (-want +got):\n%s", d)
	}
	// With the controller store: the tasks pre-flighted here come from their records, 004 (closed
	// elsewhere) from its state.json.
	view, err := OpenStoreView("", filepath.Join(root, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	defer view.Close()
	withStore, err := ScanTasksWith(root, view)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int]string{0: "store", 1: "store", 3: "mirror"} {
		if r := StatusEntries(withStore, now)[i]; r.Source == nil || *r.Source != want {
			t.Errorf("row %d source = %v, want %s", i, r.Source, want)
		}
	}
	var ntf *NotTaskFolderError
	if !errors.As(infos[8].Err, &ntf) {
		t.Errorf("misnamed folder: err = %v, want *NotTaskFolderError", infos[8].Err)
	}
	if rows[8].Error == nil || *rows[8].Error != "not a task folder: .mastermind/tasks/notes; rename it to NNN-slug or move it out of .mastermind/tasks" {
		t.Errorf("not-a-task row = %+v", rows[8])
	}
	for i, want := range []string{StatusApproved, StatusApproved, StatusApproved, StatusLearned, StatusNotStarted, StatusCorrupt, StatusApproved, StatusCorrupt, StatusNotATask} {
		if rows[i].Status != want {
			t.Errorf("row %d status = %s, want %s", i, rows[i].Status, want)
		}
	}
	if rows[3].Verdict == nil || *rows[3].Verdict != string(VerdictHeld) {
		t.Errorf("learned verdict = %v", rows[3].Verdict)
	}
	if rows[4].NextStep != nil || rows[4].AgeSeconds != nil || rows[4].Error != nil {
		t.Errorf("not-started row has values: %+v", rows[4])
	}
	if rows[5].Error == nil || rows[5].Iteration != nil {
		t.Errorf("corrupt row = %+v", rows[5])
	}
	// A future modification time clamps the age at 0.
	if rows := StatusEntries(infos[:1], mtime.Add(-time.Hour)); *rows[0].AgeSeconds != 0 {
		t.Errorf("age = %d, want 0", *rows[0].AgeSeconds)
	}
}

func TestScanTasksMissingAndSymlinkedDir(t *testing.T) {
	root := t.TempDir()
	infos, err := ScanTasks(root)
	if err != nil || infos != nil {
		t.Fatalf("missing tasks dir: %v, %v", infos, err)
	}
	other := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".mastermind"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(root, ".mastermind/tasks")); err != nil {
		t.Fatal(err)
	}
	if _, err := ScanTasks(root); err == nil {
		t.Fatal("a symlinked .mastermind/tasks was listed")
	}
}

func TestFormatAge(t *testing.T) {
	for sec, want := range map[int64]string{0: "0s", 59: "59s", 60: "1m", 3599: "59m", 3600: "1h", 47*3600 + 59: "47h", 48 * 3600: "2d", 10 * 86400: "10d"} {
		if got := FormatAge(sec); got != want {
			t.Errorf("FormatAge(%d) = %q, want %q", sec, got, want)
		}
	}
	if ShortOID("0123456789abcdef") != "0123456789ab" || ShortOID("abc") != "abc" {
		t.Error("ShortOID")
	}
}
