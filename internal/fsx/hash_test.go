package fsx

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// TestSHA256File hashes a file's remaining content, large enough to need several buffers.
func TestSHA256File(t *testing.T) {
	data := make([]byte, 100<<10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(10, 0); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data[10:])
	if got, err := SHA256File(f); err != nil || got != hex.EncodeToString(sum[:]) {
		t.Fatalf("SHA256File = %s, %v", got, err)
	}
}
