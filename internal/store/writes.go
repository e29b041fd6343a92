package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

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
// each with its content id as the runs left it (fsx.ContentID), for the task's
// baseline. A later audit leaves such a path out of the changed set while its content id is
// unchanged (verification-receipts.md §2.2).
type ControllerWrites struct {
	Version  int               `json:"version"`
	Baseline string            `json:"baseline"`
	Paths    map[string]string `json:"paths"`
}

// LoadWrites reads the task's controller writes; nil when there are none. A damaged file, or one
// with data after its JSON value, is KindCorrupt.
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
	err = dec.Decode(&w)
	switch {
	case err != nil:
	case !atEOF(dec):
		err = errors.New("trailing data after the controller writes")
	case w.Version < 1 || w.Version > writesVersion:
		err = fmt.Errorf("version %d is not supported; expected 1 to %d", w.Version, writesVersion)
	case len(w.Paths) > MaxControllerWrites:
		err = fmt.Errorf("paths holds %d entries; at most %d are kept", len(w.Paths), MaxControllerWrites)
	}
	if err != nil {
		return nil, &Error{Kind: KindCorrupt, Op: "read", Path: p, Err: err}
	}
	if w.Version == 1 {
		w.Paths = writesFromV1(w.Paths)
	}
	return &w, nil
}

// atEOF reports whether dec holds nothing but white space after the value it decoded.
func atEOF(dec *json.Decoder) bool {
	_, err := dec.Token()
	return errors.Is(err, io.EOF)
}

// writesVersion is the version SaveWrites writes: 2 holds fsx.ContentID's ids.
const writesVersion = 2

// writesFromV1 translates version 1's content ids, the receipts' former vocabulary, to
// fsx.ContentID's: "file:<sha256>" is the bare hash, "exec:<sha256>" stays, "link:<target>" is
// the target's hash. An id of another kind was never recorded and is dropped.
func writesFromV1(v1 map[string]string) map[string]string {
	out := make(map[string]string, len(v1))
	for p, id := range v1 {
		switch {
		case strings.HasPrefix(id, "file:"):
			out[p] = id[len("file:"):]
		case strings.HasPrefix(id, "exec:"):
			out[p] = id
		case strings.HasPrefix(id, "link:"):
			out[p] = "link:" + fsx.SHA256Hex([]byte(id[len("link:"):]))
		}
	}
	return out
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
		return &Error{Kind: KindIO, Op: "write", Path: p, Err: fmt.Errorf("%d paths; at most %d are kept", len(w.Paths), MaxControllerWrites)}
	}
	w.Version = writesVersion
	data, err := json.Marshal(w)
	if err != nil {
		return err
	}
	if err := t.dir.WriteFileAtomic(writesFile, data, 0o600); err != nil {
		return wrap("write", p, err)
	}
	return nil
}
