package verifyrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// Store keeps one task's receipts and their full outputs, one complete set at a time keyed by its
// fingerprint (verification-receipts.md §3). DirStore implements it on any directory.
type Store interface {
	// Load returns the saved set when its fingerprint is fp, in run order; ok is false when no
	// complete set for fp is saved. A damaged set reads as absent, so the runs happen again; an
	// error is an I/O failure.
	Load(fp string) (rs []*Receipt, ok bool, err error)
	// Output returns the writer for the full output of the 1-based run n of the set being
	// recorded. It becomes the saved output only when Save records the set.
	Output(n int) (io.WriteCloser, error)
	// Save records rs as the task's set for fp, run n being rs[n-1], replacing the earlier one.
	Save(fp string, rs []*Receipt) error
}

// maxReceiptBytes bounds a stored receipt read back; a 64 KiB tail escapes to at most ~400 KiB.
const maxReceiptBytes = 1 << 20

// DirStore is a Store on the directory Dir, created with mode 0700 when missing: <n>.json holds
// run n's receipt and <n>.log its full output. Files are written atomically.
type DirStore struct{ Dir string }

func (s DirStore) receiptPath(n int) string { return filepath.Join(s.Dir, strconv.Itoa(n)+".json") }
func (s DirStore) logPath(n int) string     { return filepath.Join(s.Dir, strconv.Itoa(n)+".log") }
func (s DirStore) partialPath(n int) string {
	return filepath.Join(s.Dir, strconv.Itoa(n)+".log.partial")
}

// Load reads 1.json, 2.json, … up to the first missing one. The set is fp's when every receipt
// has inputs_fingerprint fp and decodes strictly.
func (s DirStore) Load(fp string) ([]*Receipt, bool, error) {
	var rs []*Receipt
	for n := 1; ; n++ {
		data, err := fsx.ReadFile(s.receiptPath(n), maxReceiptBytes)
		switch {
		case err == nil:
		case fsx.ReasonOf(err) == fsx.ReasonMissing:
			return rs, len(rs) > 0, nil
		case fsx.ReasonOf(err) != "":
			return nil, false, nil // a symlink, FIFO or oversized file is not a receipt
		default:
			return nil, false, err
		}
		var r Receipt
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if dec.Decode(&r) != nil || r.SchemaVersion != SchemaVersion || r.InputsFingerprint != fp || r.Cmd == "" {
			return nil, false, nil
		}
		rs = append(rs, &r)
	}
}

// Output creates <n>.log.partial.
func (s DirStore) Output(n int) (io.WriteCloser, error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, err
	}
	p := s.partialPath(n)
	if err := fsx.CheckWritable(p); err != nil {
		return nil, err
	}
	return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
}

// Save writes <n>.json for every receipt, moves each <n>.log.partial to <n>.log, and removes
// the receipts of a longer earlier set. The earlier set's receipts are removed first, so an
// interrupted Save leaves no set that Load would take for fp's.
func (s DirStore) Save(fp string, rs []*Receipt) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	for n := 1; ; n++ {
		err := os.Remove(s.receiptPath(n))
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return err
		}
	}
	for i, r := range rs {
		n := i + 1
		if r.InputsFingerprint != fp {
			return fmt.Errorf("receipt %d belongs to fingerprint %q, not %q", n, r.InputsFingerprint, fp)
		}
		if err := os.Rename(s.partialPath(n), s.logPath(n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	for i, r := range rs {
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		if err := fsx.WriteFileAtomic(s.receiptPath(i+1), append(data, '\n'), 0o600); err != nil {
			return err
		}
	}
	for n := len(rs) + 1; ; n++ {
		err := os.Remove(s.logPath(n))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
