package postflight

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// A snapshot recorded before submodules named their HEAD commit still matches its inputs, and
// only while everything but the submodule's id is the same.
func TestHistorySnapshotKeepsLegacySubmoduleSnapshot(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, sub, "init", "-q")
	git(t, sub, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "one")
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := SnapshotInput{Baseline: "b", Iteration: 1, Spec: []byte("s"), Report: []byte("r"), AuditSHA256: "x", Release: []byte("n"),
		Changed: []gitscope.Entry{{Path: []byte("a.txt")}, {Path: []byte("sub")}}}
	// The canonical text of §8.2 as the version before repo:<commit> ids wrote it.
	legacy := fsx.SHA256Hex([]byte("mastermind-history-snapshot v1\nbaseline b\niteration 1\nspec " + fsx.SHA256Hex([]byte("s")) +
		"\nreport " + fsx.SHA256Hex([]byte("r")) + "\naudit x\nrelease " + fsx.SHA256Hex([]byte("n")) +
		"\nfile " + fsx.SHA256Hex([]byte("a\n")) + " a.txt\nfile dir sub\n"))
	snap := func(recorded string) string {
		t.Helper()
		in.Recorded = recorded
		s, err := HistorySnapshot(root, in)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	current := snap("")
	if current == legacy {
		t.Fatal("the submodule's id did not change the snapshot")
	}
	if got := snap(legacy); got != legacy {
		t.Errorf("recorded legacy snapshot: got %s, want it kept", got)
	}
	// A v1 record over files only (no directory) matches too: every record before v2 was v1.
	filesOnly := fsx.SHA256Hex([]byte("mastermind-history-snapshot v1\nbaseline b\niteration 1\nspec " + fsx.SHA256Hex([]byte("s")) +
		"\nreport " + fsx.SHA256Hex([]byte("r")) + "\naudit x\nrelease " + fsx.SHA256Hex([]byte("n")) +
		"\nfile " + fsx.SHA256Hex([]byte("a\n")) + " a.txt\n"))
	inFiles := in
	inFiles.Changed, inFiles.Recorded = in.Changed[:1], filesOnly
	if got, err := HistorySnapshot(root, inFiles); err != nil || got != filesOnly {
		t.Errorf("recorded v1 snapshot over files: got %s, %v, want it kept", got, err)
	}
	if got := snap("0000000000000000000000000000000000000000000000000000000000000000"); got != current {
		t.Errorf("another recorded snapshot: got %s, want the current %s", got, current)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := snap(legacy); got == legacy {
		t.Error("a changed file still matched the legacy snapshot")
	}
}

// A snapshot recorded now over a directory without a .git entry (its digest "dir") must not
// match through the legacy path once a repository appears there: the executor would move the
// submodule's .git away for the held audit or the acceptance, then restore it on another
// commit (docs/hardening.md A-C16).
func TestHistorySnapshotLegacyPathRefusesNewRecord(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	in := SnapshotInput{Baseline: "b", Iteration: 1, Spec: []byte("s"), Report: []byte("r"), AuditSHA256: "x", Release: []byte("n"),
		Changed: []gitscope.Entry{{Path: []byte("sub")}}}
	recorded, err := HistorySnapshot(root, in)
	if err != nil {
		t.Fatal(err)
	}
	git(t, sub, "init", "-q")
	git(t, sub, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "other")
	in.Recorded = recorded
	got, err := HistorySnapshot(root, in)
	if err != nil {
		t.Fatal(err)
	}
	if got == recorded {
		t.Error("a repository put where a plain directory was recorded matched the new record through the legacy path")
	}
}
