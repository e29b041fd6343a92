package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// writesFile holds the paths mastermind's own verification runs wrote in the work tree.
const writesFile = "controller-writes.json"

// MaxControllerWrites bounds the paths one record keeps (verification-receipts.md §2.2): beyond
// it the runs' further writes are not the controller's and count as anyone's.
const MaxControllerWrites = 20000

// maxWritesBytes bounds writesFile.
const maxWritesBytes = 16 << 20

// ControllerWrites are the paths the controller's verification runs created in the work tree,
// each with its content id as the runs left it (verifyrun.WorktreeContent), for the task's
// baseline. A later audit leaves such a path out of the changed set while its content id is
// unchanged (verification-receipts.md §2.2).
type ControllerWrites struct {
	Version  int               `json:"version"`
	Baseline string            `json:"baseline"`
	Paths    map[string]string `json:"paths"`
}

// LoadWrites reads the task's controller writes; nil when there are none. A damaged file is
// KindCorrupt.
func (t *Task) LoadWrites() (*ControllerWrites, error) {
	p := filepath.Join(t.Path(), writesFile)
	data, err := t.dir.ReadFile(writesFile, maxWritesBytes)
	if err != nil {
		if fsx.ReasonOf(err) == fsx.ReasonMissing {
			return nil, nil
		}
		return nil, wrap("read", p, err)
	}
	var w ControllerWrites
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil || w.Version != 1 || len(w.Paths) > MaxControllerWrites {
		if err == nil {
			err = fmt.Errorf("version %d or more than %d paths", w.Version, MaxControllerWrites)
		}
		return nil, &Error{Kind: KindCorrupt, Op: "read", Path: p, Err: err}
	}
	return &w, nil
}

// SaveWrites replaces the task's controller writes atomically; nil or an empty set removes them.
func (t *Task) SaveWrites(w *ControllerWrites) error {
	p := filepath.Join(t.Path(), writesFile)
	if w == nil || len(w.Paths) == 0 {
		if err := t.dir.Remove(writesFile, false); err != nil && fsx.ReasonOf(err) != fsx.ReasonMissing {
			return wrap("remove", p, err)
		}
		return nil
	}
	if len(w.Paths) > MaxControllerWrites {
		return &Error{Kind: KindIO, Op: "write", Path: p, Err: errors.New("too many paths")}
	}
	w.Version = 1
	data, err := json.Marshal(w)
	if err != nil {
		return err
	}
	if err := t.dir.WriteFileAtomic(writesFile, data, 0o600); err != nil {
		return wrap("write", p, err)
	}
	return nil
}
