package forge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// File names inside a run directory (§1.7).
const (
	EventsFile = "events.jsonl"
	LockFile   = "events.jsonl.lock"
	WALFile    = "events.jsonl.wal"
)

// timestampLayout is UTC ISO-8601 with milliseconds (§1.8).
const timestampLayout = "2006-01-02T15:04:05.000Z"

// WALError is an interrupted append that recovery refuses to repair.
type WALError struct{ Reason string }

func (e *WALError) Error() string { return "write-ahead log " + WALFile + ": " + e.Reason }

// writeAll is the log write; tests replace it to inject failures.
var writeAll = func(f *os.File, p []byte) error {
	for len(p) > 0 {
		n, err := f.Write(p)
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

// AppendEvents appends events to runDir/events.jsonl as one locked, write-ahead-logged, fsynced
// append compatible with forge's events writer (§1.7), chaining them after the log's tail, and
// returns the written lines. A damaged log, a bad WAL or a lock failure writes nothing.
func AppendEvents(runDir, runID string, events []*Object) ([][]byte, error) {
	lock, err := acquireLock(filepath.Join(runDir, LockFile), LockTimeout())
	if err != nil {
		return nil, err
	}
	lines, err := appendLocked(runDir, runID, events, lock)
	if rerr := lock.release(); err == nil && rerr != nil {
		err = fmt.Errorf("release events lock: %w", rerr)
	}
	return lines, err
}

func appendLocked(runDir, runID string, events []*Object, lock *eventsLock) ([][]byte, error) {
	logPath := filepath.Join(runDir, EventsFile)
	walPath := filepath.Join(runDir, WALFile)
	if err := recoverWAL(logPath, walPath); err != nil {
		return nil, err
	}
	data, existed, err := readLog(logPath)
	if err != nil {
		return nil, err
	}
	tail, err := VerifyLog(data, runID)
	if err != nil {
		return nil, err
	}
	var payload []byte
	var lines [][]byte
	prev, seq := tail.PrevHash, tail.Seq
	for _, ev := range events {
		seq++
		ev.Set("prev_hash", prev)
		ev.Set("seq", seq)
		ev.Delete("entry_hash")
		h := EntryHash(ev, prev)
		ev.Set("entry_hash", h)
		line := Stringify(nil, ev)
		lines = append(lines, line)
		payload = append(append(payload, line...), '\n')
		prev = h
	}
	if err := lock.stillOurs(); err != nil {
		return nil, err
	}
	base := int64(len(data))
	if err := writeWAL(walPath, base, payload); err != nil {
		_ = os.Remove(walPath)
		return nil, err
	}
	if err := appendPayload(logPath, base, payload, !existed); err != nil {
		// Roll back so that nothing was written; if that fails the WAL stays for recovery.
		if rerr := truncateLog(logPath, base); rerr == nil || (base == 0 && errors.Is(rerr, fs.ErrNotExist)) {
			_ = os.Remove(walPath)
		}
		return nil, err
	}
	if err := os.Remove(walPath); err != nil {
		return nil, fmt.Errorf("remove %s: %w", WALFile, err)
	}
	_ = syncDir(runDir)
	return lines, nil
}

// readLog reads the log without following a symlink; a missing log is empty.
func readLog(path string) ([]byte, bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, false, fmt.Errorf("%s is a symbolic link; refusing to write through it", path)
		}
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(f)
	return data, true, err
}

func writeWAL(path string, base int64, payload []byte) error {
	sum := sha256.Sum256(payload)
	wal := Stringify(nil, []Field{
		{"base_bytes", float64(base)},
		{"payload_sha256", hex.EncodeToString(sum[:])},
		{"payload", string(payload)},
	})
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", WALFile, err)
	}
	if err := writeAll(f, wal); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", WALFile, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("fsync %s: %w", WALFile, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// appendPayload writes payload at the end of the log (O_APPEND|O_CREAT, 0644), looping on short
// writes, fsyncs it, and fsyncs the directory when the log was just created.
func appendPayload(path string, base int64, payload []byte, created bool) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", EventsFile, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() != base {
		return fmt.Errorf("%s changed size while locked", EventsFile)
	}
	if err := writeAll(f, payload); err != nil {
		return fmt.Errorf("append %s: %w", EventsFile, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", EventsFile, err)
	}
	if created {
		return syncDir(filepath.Dir(path))
	}
	return nil
}

func truncateLog(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if errors.Is(err, fs.ErrNotExist) && size == 0 {
		return nil // the interrupted first append was killed before it created the log
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return err
	}
	return f.Sync()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// recoverWAL completes or discards an interrupted append, as §1.7 says.
func recoverWAL(logPath, walPath string) error {
	raw, err := readWAL(walPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	base, payload, ok := parseWAL(raw)
	if !ok {
		return os.Remove(walPath) // torn WAL: the log was never touched
	}
	data, _, err := readLog(logPath)
	if err != nil {
		return err
	}
	size, want := int64(len(data)), base+int64(len(payload))
	switch {
	case size < base:
		return &WALError{fmt.Sprintf("the log has %d bytes, fewer than the WAL's base_bytes %d: truncated externally", size, base)}
	case size == want && bytes.Equal(data[base:], payload):
		if err := syncFile(logPath); err != nil {
			return err
		}
	case size == want:
		return &WALError{"the log's tail differs from the WAL payload: edited externally"}
	case size > want:
		return &WALError{"the log is longer than base_bytes + payload: a writer bypassed recovery"}
	default: // base <= size < want
		if err := truncateLog(logPath, base); err != nil {
			return err
		}
		if err := appendPayload(logPath, base, payload, false); err != nil {
			return err
		}
	}
	if err := os.Remove(walPath); err != nil {
		return err
	}
	return syncDir(filepath.Dir(walPath))
}

// maxWALBytes bounds the WAL read. A WAL holds one ingest's two events as a JSON string; an
// ingest reads at most 16 MiB, so a larger WAL was not written by an ingest.
const maxWALBytes = 256 << 20

// readWAL reads the WAL without following a symlink and without blocking on a FIFO
// (fsx.ReadFile): a FIFO, device, directory or symlink at the WAL path is a *WALError at once,
// so a planted FIFO or a link to /dev/zero can neither hang the ingest nor be read through. A
// missing WAL is fs.ErrNotExist.
func readWAL(path string) ([]byte, error) {
	raw, err := fsx.ReadFile(path, maxWALBytes)
	switch fsx.ReasonOf(err) {
	case "":
		return raw, err
	case fsx.ReasonMissing:
		return nil, fs.ErrNotExist
	case fsx.ReasonSymlink:
		return nil, &WALError{"is a symbolic link; mastermind never follows links"}
	case fsx.ReasonNotRegular:
		var pe *fsx.PathError
		errors.As(err, &pe)
		return nil, &WALError{"is not a regular file (found " + pe.Detail + ")"}
	case fsx.ReasonTooLarge:
		return nil, &WALError{fmt.Sprintf("is larger than %d bytes", maxWALBytes)}
	}
	return nil, &WALError{err.Error()}
}

func parseWAL(raw []byte) (int64, []byte, bool) {
	v, err := ParseJSON(raw)
	if err != nil {
		return 0, nil, false
	}
	o, ok := v.(*Object)
	if !ok {
		return 0, nil, false
	}
	base, ok1 := o.vals["base_bytes"].(float64)
	p, ok2 := o.vals["payload"].(string)
	h, ok3 := o.vals["payload_sha256"].(string)
	if !ok1 || !ok2 || !ok3 || base < 0 || base != float64(int64(base)) {
		return 0, nil, false
	}
	sum := sha256.Sum256([]byte(p))
	if hex.EncodeToString(sum[:]) != h {
		return 0, nil, false
	}
	return int64(base), []byte(p), true
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
