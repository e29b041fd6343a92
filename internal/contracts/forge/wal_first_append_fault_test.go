package forge

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRecoverFirstAppendKilledBeforeLogExists: an ingest killed after writing its WAL but before
// creating events.jsonl (the first append of a run) must be completed by the next recovery, not
// fail with "no such file" (found by the kill -9 loop in a clean clone).
func TestRecoverFirstAppendKilledBeforeLogExists(t *testing.T) {
	dir := t.TempDir()
	logPath, walPath := filepath.Join(dir, EventsFile), filepath.Join(dir, WALFile)
	payload := []byte("{\"a\":1}\n{\"b\":2}\n")
	if err := writeWAL(walPath, 0, payload); err != nil {
		t.Fatal(err)
	}
	if err := recoverWAL(logPath, walPath); err != nil {
		t.Fatalf("recoverWAL: %v", err)
	}
	got, err := os.ReadFile(logPath)
	if err != nil || string(got) != string(payload) {
		t.Fatalf("log = %q, %v; want the WAL payload", got, err)
	}
	if _, err := os.Lstat(walPath); !os.IsNotExist(err) {
		t.Fatalf("the WAL must be removed after recovery: %v", err)
	}
}
