package fsx

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"sync"
)

// copyBufs holds the read buffers of HashFile. io.Copy from an *os.File allocates a fresh 32 KiB
// buffer per call (File.WriteTo falls back to a generic copy), which at 100,000 hashed files is
// 3 GB of garbage per hashing pass (gitscope.md §8.1 scenario B).
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// HashFile writes the remaining content of f (an *os.File or a reader over one) to h with a
// pooled buffer.
func HashFile(h io.Writer, f io.Reader) error {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	// The anonymous struct hides File.WriteTo, so that io.CopyBuffer uses the buffer.
	_, err := io.CopyBuffer(h, struct{ io.Reader }{f}, *bp)
	return err
}

// SHA256File returns the lowercase hex SHA-256 of the remaining content of f (HashFile).
func SHA256File(f io.Reader) (string, error) {
	h := sha256.New()
	if err := HashFile(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// SHA256Hex is the lowercase hex SHA-256 of data, the form of every content hash mastermind
// records.
func SHA256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
