package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
)

// RecordVersion is the record_version this package reads and writes.
const RecordVersion = 1

// MaxRecordBytes bounds a record file: the state (at most 1 MiB, spec-and-lifecycle.md §5.1)
// plus the store-only fields.
const MaxRecordBytes = 2 << 20

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Record is the authoritative controller record of one task (trust-model.md I2), the store's
// state.json:
//
//	{"record_version": 1, "task": "<task>", "task_dir": "<absolute task folder>",
//	 "state": {…the state.json object of spec-and-lifecycle.md §5.1…},
//	 "mirrors": {"audit.md": {"sha256": "…", "prev_sha256": "…"}, "state.json": {…}},
//	 "updated_at": <unix seconds>}
//
// State holds the §5.1 object, which the caller validates with the same rules as the mirror; the
// store only checks that it is a JSON object. Mirrors records, per task-folder file name, the
// SHA-256 of what the controller last wrote there and of the version before it, so a mirror that
// differs from both was written by someone else (Record.CheckMirror).
type Record struct {
	RecordVersion int               `json:"record_version"`
	Task          string            `json:"task"`
	TaskDir       string            `json:"task_dir"`
	State         json.RawMessage   `json:"state"`
	Mirrors       map[string]Mirror `json:"mirrors"`
	UpdatedAt     int64             `json:"updated_at"`
}

// Mirror is what the controller last wrote to one task-folder file. SHA256 is "" when the
// controller last removed the file (or never wrote it); PrevSHA256 is the version before, kept so
// that a run killed between the store write and the mirror write is not taken for tampering.
type Mirror struct {
	SHA256     string `json:"sha256"`
	PrevSHA256 string `json:"prev_sha256,omitempty"`
}

// MirrorStatus is the outcome of Record.CheckMirror.
type MirrorStatus int

// Mirror statuses.
const (
	MirrorUnknown  MirrorStatus = iota // the record has no entry for this file
	MirrorMatches                      // the file is what the controller last wrote
	MirrorStale                        // the file is the version before: a write was interrupted
	MirrorTampered                     // the file differs from both (or is missing, or should not exist)
)

// SHA256Hex is the lowercase hex SHA-256 of data.
func SHA256Hex(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// SetMirror records that the controller is about to write data to the task-folder file name (nil
// data: the controller removes it). The previous hash is kept as PrevSHA256.
func (r *Record) SetMirror(name string, data []byte) {
	if r.Mirrors == nil {
		r.Mirrors = map[string]Mirror{}
	}
	m, ok := r.Mirrors[name]
	h := ""
	if data != nil {
		h = SHA256Hex(data)
	}
	if ok && m.SHA256 == h {
		return
	}
	r.Mirrors[name] = Mirror{SHA256: h, PrevSHA256: m.SHA256}
}

// CheckMirror compares the task-folder file name, as read now (present false: it does not exist),
// with what the controller last wrote there.
func (r *Record) CheckMirror(name string, data []byte, present bool) MirrorStatus {
	m, ok := r.Mirrors[name]
	if !ok {
		return MirrorUnknown
	}
	h := ""
	if present {
		h = SHA256Hex(data)
	}
	switch {
	case h == m.SHA256:
		return MirrorMatches
	case m.PrevSHA256 != "" && h == m.PrevSHA256:
		return MirrorStale
	}
	return MirrorTampered
}

// MirrorNames returns the file names the record has mirror entries for, sorted.
func (r *Record) MirrorNames() []string {
	names := make([]string, 0, len(r.Mirrors))
	for n := range r.Mirrors {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// validate checks the store-only rules of a record for task.
func (r *Record) validate(task string) error {
	if r.RecordVersion != RecordVersion {
		if r.RecordVersion > RecordVersion {
			return fmt.Errorf("record_version %d was written by a newer mastermind; this one reads %d", r.RecordVersion, RecordVersion)
		}
		return fmt.Errorf("record_version %d is not supported; expected %d", r.RecordVersion, RecordVersion)
	}
	if r.Task != task {
		return fmt.Errorf("task %q does not match the folder %q", r.Task, task)
	}
	if t := bytes.TrimSpace(r.State); len(t) == 0 || t[0] != '{' {
		return errors.New("state is not a JSON object")
	}
	for n, m := range r.Mirrors {
		if n == "" || !validEntryName(n) {
			return fmt.Errorf("mirror name %q is not a file name", n)
		}
		for _, h := range []string{m.SHA256, m.PrevSHA256} {
			if h != "" && !hex64.MatchString(h) {
				return fmt.Errorf("mirror %s: %q is not 64 lowercase hex digits", n, h)
			}
		}
	}
	return nil
}

// parseRecord decodes a record strictly: one JSON object, no unknown fields, no trailing data.
func parseRecord(data []byte, task string) (*Record, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a record: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the record")
	}
	if err := r.validate(task); err != nil {
		return nil, err
	}
	return &r, nil
}

// marshalRecord renders r with 2-space indentation and a trailing newline.
func marshalRecord(r *Record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	if b.Len() > MaxRecordBytes {
		return nil, fmt.Errorf("the record would be %d bytes; the limit is %d", b.Len(), MaxRecordBytes)
	}
	return b.Bytes(), nil
}
