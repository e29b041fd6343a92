package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// BlockRecordName is the loop-guard record's file name inside the task folder.
const BlockRecordName = "hook-block.json"

// maxRecordBytes bounds the record read.
const maxRecordBytes = 64 << 10

// BlockRecord is the loop guard's memory of the last block for one task: the inputs fingerprint
// that was blocked. The executor can write it (it lives in the task folder); the worst a forged
// record does is let the agent stop and hand the task back to the planner, which changes no
// verdict and no state.
type BlockRecord struct {
	SchemaVersion int    `json:"schema_version"`
	Task          string `json:"task"`
	Fingerprint   string `json:"inputs_fingerprint"`
	Verdict       string `json:"verdict"`
	SessionID     string `json:"session_id,omitempty"`
	BlockedAt     string `json:"blocked_at,omitempty"` // RFC 3339 UTC
	// HandedBack is set when the loop guard let the agent stop on these inputs.
	HandedBack bool   `json:"handed_back,omitempty"`
	NextStep   string `json:"next_step,omitempty"`
}

// LoadBlockRecord reads the record at path. A missing file is (nil, nil). An unreadable or
// malformed record is also (nil, nil) plus a warning error: the guard then behaves as if there
// were no previous block, so a damaged record can only make the hook block, never allow.
func LoadBlockRecord(path string) (*BlockRecord, error) {
	data, err := fsx.ReadFile(path, maxRecordBytes)
	if errors.Is(err, fs.ErrNotExist) || fsx.ReasonOf(err) == fsx.ReasonMissing {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("loop-guard record ignored: %w", err)
	}
	var r BlockRecord
	if err := json.Unmarshal(data, &r); err != nil || r.SchemaVersion != 1 {
		return nil, fmt.Errorf("loop-guard record %s ignored: not a schema_version 1 record", path)
	}
	return &r, nil
}

// SaveBlockRecord writes r to path atomically, stamping schema_version and blocked_at.
func SaveBlockRecord(path string, r BlockRecord, now time.Time) error {
	r.SchemaVersion = 1
	r.BlockedAt = now.UTC().Format(time.RFC3339)
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomic(path, append(data, '\n'), 0o644)
}
