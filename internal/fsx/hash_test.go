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

// SHA256Hex gives the lowercase hex digests sha256sum prints.
func TestSHA256Hex(t *testing.T) {
	for data, want := range map[string]string{
		"":        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"hello\n": "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
	} {
		if got := SHA256Hex([]byte(data)); got != want {
			t.Errorf("SHA256Hex(%q) = %s, want %s", data, got, want)
		}
	}
}
