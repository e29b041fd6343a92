package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// BlockRecordName is the loop-guard record's file name in the task's controller-store folder,
// never in the work tree, where an executor could fill it (trust-model.md I4).
const BlockRecordName = "hook-block.json"

// MaxRecordBytes bounds the record read.
const MaxRecordBytes = 64 << 10

// BlockRecord is the loop guard's memory of the last block for one task: the inputs fingerprint
// that was blocked. The worst a damaged record does is make the hook block once more.
type BlockRecord struct {
	SchemaVersion int     `json:"schema_version"`
	Task          string  `json:"task"`
	Fingerprint   string  `json:"inputs_fingerprint"`
	Verdict       Verdict `json:"verdict"`
	SessionID     string  `json:"session_id,omitempty"`
	BlockedAt     string  `json:"blocked_at,omitempty"` // RFC 3339 UTC
	// HandedBack is set when the loop guard let the agent stop on these inputs.
	HandedBack bool   `json:"handed_back,omitempty"`
	NextStep   string `json:"next_step,omitempty"`
}

// RecordFile is where the record is kept: the store's folder of the task.
type RecordFile interface {
	// ReadRecord returns the record's bytes, or nil and no error when there is none.
	ReadRecord() ([]byte, error)
	// WriteRecord replaces the record atomically.
	WriteRecord(data []byte) error
}

// LoadBlockRecord reads the record from f, nil when there is none. A damaged record is also nil,
// with a warning error, so it can only make the hook block, never allow.
func LoadBlockRecord(f RecordFile) (*BlockRecord, error) {
	data, err := f.ReadRecord()
	if err != nil {
		return nil, fmt.Errorf("loop-guard record ignored: %w", err)
	}
	if data == nil {
		return nil, nil
	}
	var r BlockRecord
	if err := json.Unmarshal(data, &r); err != nil || r.SchemaVersion != 1 {
		return nil, errors.New("loop-guard record ignored: not a schema_version 1 record")
	}
	return &r, nil
}

// SaveBlockRecord writes r to f, stamping schema_version and blocked_at.
func SaveBlockRecord(f RecordFile, r BlockRecord, now time.Time) error {
	r.SchemaVersion = 1
	r.BlockedAt = now.UTC().Format(time.RFC3339)
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return f.WriteRecord(append(data, '\n'))
}
