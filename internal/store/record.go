package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// RecordVersion is the record_version this package reads and writes.
const RecordVersion = 1

// MaxRecordBytes bounds a record file: the state of at most 1 MiB (spec-and-lifecycle.md §5.1)
// plus the store-only fields.
const MaxRecordBytes = 2 << 20

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Record is the authoritative controller record of one task (trust-model.md I2), the store's
// state.json:
//
//	{"record_version": 1, "task": "<task>", "task_dir": "<absolute task folder>",
//	 "state": {…the state.json object of spec-and-lifecycle.md §5.1…},
//	 "mirrors": {"audit.md": {"sha256": "…", "earlier": ["…", …]}, "state.json": {…}},
//	 "result": {"sha256": "…", "audit_sha256": "…"},
//	 "tampered": [{"file": "state.json", "expected": "…", "found": "…", "at": <unix seconds>}],
//	 "updated_at": <unix seconds>, "preflight_at_ms": <unix milliseconds>}
//
// State holds the §5.1 object, which the caller validates with the same rules as the mirror; the
// store only checks that it is a JSON object. Mirrors records, per task-folder file name, the
// SHA-256 of what the controller last wrote there and of the versions before it, so a mirror that
// the controller never wrote there was written by someone else (Record.CheckMirror).
type Record struct {
	RecordVersion int               `json:"record_version"`
	Task          string            `json:"task"`
	TaskDir       string            `json:"task_dir"`
	State         json.RawMessage   `json:"state"`
	Mirrors       map[string]Mirror `json:"mirrors"`
	// Tampered lists mirrors found changed by someone else and not yet reported by an audit;
	// the controller reports them as findings and clears the list.
	Tampered  []Tampering `json:"tampered,omitempty"`
	UpdatedAt int64       `json:"updated_at"`
	// Foreign is what the other tasks' records in the work tree held at this baseline's first
	// pre-flight (trust-model.md I3); nil in a record from before I3.
	Foreign *ForeignSnapshot `json:"foreign,omitempty"`
	// Result names the audit result the controller stored beside the audit.md it last wrote;
	// nil in a record from before it was kept.
	Result *Result `json:"result,omitempty"`
	// PreflightAtMs is the time of the task's last approving pre-flight in Unix milliseconds, 0
	// in an older record. A harness transcript's entries count only strictly after it
	// (docs/design/transcripts.md §2).
	PreflightAtMs int64 `json:"preflight_at_ms,omitempty"`
}

// ForeignSnapshot holds, for one baseline, the SHA-256 of every record of another task present in
// the work tree at pre-flight, keyed by repository-relative path. Files holds the same for the
// controller names outside the task folders, so that a planner's edit before pre-flight is not
// taken for the executor's.
type ForeignSnapshot struct {
	Baseline string            `json:"baseline"`
	Records  map[string]string `json:"records"`
	Files    map[string]string `json:"files"`
}

// Result names the data of one audit (docs/design/lifecycle-v2.md §5): the mirror copy that
// holds it (written with NewCopy, read with OpenCopy) and the SHA-256 of the audit.md written
// from the same audit.
type Result struct {
	SHA256      string `json:"sha256"`
	AuditSHA256 string `json:"audit_sha256"`
}

// Tampering is one mirror found different from what the controller last wrote.
type Tampering struct {
	File     string `json:"file"`     // the task-folder file name
	Expected string `json:"expected"` // the SHA-256 the controller last wrote, "" for absent
	Found    string `json:"found"`    // the SHA-256 found, or "missing"
	At       int64  `json:"at"`       // Unix seconds of the detection
}

// Mirror is what the controller wrote to one task-folder file: SHA256 the last version, "" when
// it removed the file or never wrote it, and Earlier up to MaxEarlier versions before it, newest
// first. A file equal to an earlier version is an old mirror, not a forgery.
type Mirror struct {
	SHA256  string   `json:"sha256"`
	Earlier []string `json:"earlier,omitempty"`
}

// MaxEarlier bounds Mirror.Earlier.
const MaxEarlier = 32

// MirrorStatus is the outcome of Record.CheckMirror.
type MirrorStatus int

// Mirror statuses.
const (
	MirrorUnknown  MirrorStatus = iota // the record has no entry for this file
	MirrorMatches                      // the file is what the controller last wrote
	MirrorStale                        // the file is an earlier version the controller wrote
	MirrorMissing                      // the file is missing although the controller wrote it
	MirrorTampered                     // the file holds content the controller never wrote there
)

// SetMirror records that the controller is about to write data to the task-folder file name, or
// remove it when data is nil. The version it replaces moves to Earlier.
func (r *Record) SetMirror(name string, data []byte) {
	h := ""
	if data != nil {
		h = fsx.SHA256Hex(data)
	}
	r.SetMirrorHash(name, h)
}

// SetMirrorHash is SetMirror with the content given by its lowercase hex SHA-256, "" for a
// removal, for a mirror written by streaming.
func (r *Record) SetMirrorHash(name, h string) {
	if r.Mirrors == nil {
		r.Mirrors = map[string]Mirror{}
	}
	m, ok := r.Mirrors[name]
	r.Mirrors[name] = m.next(ok, h)
}

// next is the Mirror after the controller writes the content with hash h, "" for a removal; ok
// says whether m is a recorded entry. The version it replaces moves to Earlier.
func (m Mirror) next(ok bool, h string) Mirror {
	if ok && m.SHA256 == h {
		return m
	}
	earlier := m.Earlier
	if ok && m.SHA256 != "" {
		earlier = append([]string{m.SHA256}, without(m.Earlier, m.SHA256)...)
	}
	earlier = without(earlier, h)
	if len(earlier) > MaxEarlier {
		earlier = earlier[:MaxEarlier]
	}
	return Mirror{SHA256: h, Earlier: earlier}
}

// validate checks a Mirror read back: at most MaxEarlier earlier versions, each hash "" or 64
// lowercase hex digits.
func (m Mirror) validate() error {
	if len(m.Earlier) > MaxEarlier {
		return fmt.Errorf("more than %d earlier versions", MaxEarlier)
	}
	for _, h := range append([]string{m.SHA256}, m.Earlier...) {
		if h != "" && !hex64.MatchString(h) {
			return fmt.Errorf("%q is not 64 lowercase hex digits", h)
		}
	}
	return nil
}

func without(list []string, h string) []string {
	var out []string
	for _, x := range list {
		if x != h {
			out = append(out, x)
		}
	}
	return out
}

// CheckMirror compares the task-folder file name as read now, absent when present is false, with
// what the controller wrote there.
func (r *Record) CheckMirror(name string, data []byte, present bool) MirrorStatus {
	h := ""
	if present {
		h = fsx.SHA256Hex(data)
	}
	return r.CheckMirrorHash(name, h, present)
}

// CheckMirrorHash is CheckMirror with the file given by its lowercase hex SHA-256 h, for a mirror
// hashed while it is read; h is ignored when present is false.
func (r *Record) CheckMirrorHash(name, h string, present bool) MirrorStatus {
	m, ok := r.Mirrors[name]
	if !ok {
		return MirrorUnknown
	}
	return m.check(h, present)
}

// check compares a file, given by its lowercase hex SHA-256 h or absent when present is false,
// with the versions m records.
func (m Mirror) check(h string, present bool) MirrorStatus {
	if !present {
		if m.SHA256 == "" {
			return MirrorMatches
		}
		return MirrorMissing
	}
	if h == m.SHA256 {
		return MirrorMatches
	}
	for _, e := range m.Earlier {
		if e == h {
			return MirrorStale
		}
	}
	return MirrorTampered
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
		if err := m.validate(); err != nil {
			return fmt.Errorf("mirror %s: %w", n, err)
		}
	}
	if r.Foreign != nil {
		for p, h := range r.Foreign.Records {
			if _, _, ok := repopath.TaskArtifact(p); !ok || !hex64.MatchString(h) {
				return fmt.Errorf("foreign record %q: not a task record path with a SHA-256", p)
			}
		}
		for p, h := range r.Foreign.Files {
			if c := repopath.ClassifyControl(p); c.Kind != repopath.ControlWritten || !hex64.MatchString(h) {
				return fmt.Errorf("pre-flight file %q: not a controller name with a SHA-256", p)
			}
		}
	}
	if r.Result != nil && (!hex64.MatchString(r.Result.SHA256) || !hex64.MatchString(r.Result.AuditSHA256)) {
		return errors.New("result: sha256 and audit_sha256 must be 64 lowercase hex digits")
	}
	if r.PreflightAtMs < 0 {
		return fmt.Errorf("preflight_at_ms %d is negative", r.PreflightAtMs)
	}
	for _, tp := range r.Tampered {
		if !validEntryName(tp.File) {
			return fmt.Errorf("tampered file %q is not a file name", tp.File)
		}
	}
	return nil
}

// ParseRecord decodes the record file of task strictly as Load does, for tools that inspect a
// store they did not open, such as the kill -9 fault loop.
func ParseRecord(data []byte, task string) (*Record, error) { return parseRecord(data, task) }

// parseRecord decodes a record strictly: one JSON object, no unknown fields, no trailing data.
func parseRecord(data []byte, task string) (*Record, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a record: %v", err)
	}
	if !atEOF(dec) {
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
