package harness

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// ChangedEntry is one changed path as the inputs fingerprint sees it: the raw path bytes, the
// changed-set status, and a content id (for example the SHA-256 of a regular file's bytes, a
// symlink's target, or "" for a deleted path).
type ChangedEntry struct {
	Path    []byte
	Status  string
	Content string
}

// Inputs are what a post-flight audits (lifecycle-v2.md §5): the spec and report bytes and the
// changed set since the baseline. Nil Spec or Report means the file is absent.
type Inputs struct {
	Spec, Report []byte
	Baseline     string
	Changed      []ChangedEntry // in changed-set order
}

// InputsFingerprint is the lowercase hex SHA-256 of in: a version line, then each part
// length-prefixed (8-byte big-endian) so no two inputs share an encoding. Equal fingerprints mean
// the executor changed nothing the audit reads.
func InputsFingerprint(in Inputs) string {
	h := sha256.New()
	h.Write([]byte("mastermind-hook-inputs v1\n"))
	part := func(b []byte, present bool) {
		var n [9]byte
		if present {
			n[0] = 1
		}
		binary.BigEndian.PutUint64(n[1:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	part(in.Spec, in.Spec != nil)
	part(in.Report, in.Report != nil)
	part([]byte(in.Baseline), true)
	for _, e := range in.Changed {
		part(e.Path, true)
		part([]byte(e.Status), true)
		part([]byte(e.Content), true)
	}
	return hex.EncodeToString(h.Sum(nil))
}
