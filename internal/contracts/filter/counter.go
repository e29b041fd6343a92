package filter

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// Counter constants (agent-contracts.md §2.9).
const (
	CounterSchemaVersion = 1
	EscalateAfter        = 3                // consecutive rejections that escalate
	MaxAttempts          = 20               // attempts kept in the counter file
	LockTimeout          = 10 * time.Second // then exit 3
	maxCounterBytes      = 4 << 20
)

// lockTimeout is LockTimeout; tests shorten it.
var lockTimeout = LockTimeout

var dispatchIDRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`) })

// ValidDispatchID reports whether id matches ^[A-Za-z0-9_-]{1,128}$ and does not start with "-".
func ValidDispatchID(id string) bool {
	return dispatchIDRe().MatchString(id) && id[0] != '-'
}

// Counter is the versioned content of .mastermind/dispatch/<ID>.json.
type Counter struct {
	SchemaVersion         int       `json:"schema_version"`
	DispatchID            string    `json:"dispatch_id"`
	ConsecutiveRejections int       `json:"consecutive_rejections"`
	TotalRejections       int       `json:"total_rejections"`
	NeedsInputAccepted    int       `json:"needs_input_accepted"`
	Attempts              []Attempt `json:"attempts"`
}

// Attempt is one filtered return: N counts every attempt on the dispatch from 1; Outcome is
// accepted, rejected or escalate; Items are the rendered item lines of a rejection.
type Attempt struct {
	N         int      `json:"n"`
	Outcome   string   `json:"outcome"`
	Variant   string   `json:"variant"`
	RawSHA256 string   `json:"raw_sha256"`
	Items     []string `json:"items"`
}

// CounterPath is <root>/.mastermind/dispatch/<id>.json.
func CounterPath(root, id string) string {
	return filepath.Join(root, ".mastermind", "dispatch", id+".json")
}

// Record updates the counter of dispatch id under root for one result and returns the new state
// and the outcome, escalate from the third consecutive rejection on. Every access goes through
// no-follow handles, locked by flock(2) on the dispatch folder; record, when set, sees the new
// content before it is written, for the controller store's registry.
func Record(root, id string, raw []byte, res *Result, record func(rel string, data []byte) error) (*Counter, string, error) {
	if !ValidDispatchID(id) {
		return nil, "", fmt.Errorf("dispatch id %q must match ^[A-Za-z0-9_-]{1,128}$ and not start with '-'", id)
	}
	d, err := openDispatchDir(root)
	if err != nil {
		return nil, "", err
	}
	defer d.Close()
	lock, err := d.LockDirWait(lockTimeout)
	if err != nil {
		return nil, "", err
	}
	defer lock.Unlock()
	path := CounterPath(root, id)
	name := id + ".json"

	c := &Counter{SchemaVersion: CounterSchemaVersion, DispatchID: id, Attempts: []Attempt{}}
	data, err := d.ReadFile(name, maxCounterBytes)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, c); err != nil {
			return nil, "", fmt.Errorf("dispatch counter %s is corrupt: %v", path, err)
		}
		if c.SchemaVersion != CounterSchemaVersion || c.DispatchID != id {
			return nil, "", fmt.Errorf("dispatch counter %s has schema_version %d and dispatch_id %q; want %d and %q",
				path, c.SchemaVersion, c.DispatchID, CounterSchemaVersion, id)
		}
		if c.Attempts == nil {
			c.Attempts = []Attempt{}
		}
	case errors.Is(err, &fsx.PathError{Reason: fsx.ReasonMissing}):
	default:
		return nil, "", err
	}

	sum := sha256.Sum256(raw)
	n := 1
	if len(c.Attempts) > 0 {
		n = c.Attempts[len(c.Attempts)-1].N + 1
	}
	a := Attempt{N: n, Variant: res.Variant, RawSHA256: hex.EncodeToString(sum[:]), Items: []string{}}
	outcome := OutcomeAccepted
	if res.Accepted {
		c.ConsecutiveRejections = 0
		if res.Variant == VariantNeedsInput {
			c.NeedsInputAccepted++
		}
	} else {
		c.ConsecutiveRejections++
		c.TotalRejections++
		outcome = OutcomeRejected
		if c.ConsecutiveRejections >= EscalateAfter {
			outcome = OutcomeEscalate
		}
		for _, it := range res.Items {
			a.Items = append(a.Items, it.String())
		}
	}
	a.Outcome = outcome
	c.Attempts = append(c.Attempts, a)
	if len(c.Attempts) > MaxAttempts {
		c.Attempts = c.Attempts[len(c.Attempts)-MaxAttempts:]
	}
	out, err := encodeCounter(c)
	if err != nil {
		return nil, "", err
	}
	if record != nil {
		if err := record(".mastermind/dispatch/"+name, out); err != nil {
			return nil, "", err
		}
	}
	if err := d.WriteFileAtomic(name, out, 0o644); err != nil {
		return nil, "", err
	}
	return c, outcome, nil
}

// encodeCounter is a counter file's bytes: two-space indented JSON, no HTML escaping, a final
// newline.
func encodeCounter(c *Counter) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// IsCounterFile reports whether data is exactly what Record writes as the counter of dispatch id,
// decoded strictly and encoded back byte for byte. The gate against a base takes nothing else at
// that name for the controller's (trust-model.md I3).
func IsCounterFile(id string, data []byte) bool {
	var c Counter
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil || c.SchemaVersion != CounterSchemaVersion || c.DispatchID != id {
		return false
	}
	out, err := encodeCounter(&c)
	return err == nil && bytes.Equal(out, data)
}

// openDispatchDir opens root/.mastermind/dispatch, creating .mastermind and dispatch (0755)
// when missing, never through a symbolic link.
func openDispatchDir(root string) (*fsx.Dir, error) {
	r, err := fsx.OpenDir(root, "")
	if err != nil {
		return nil, err
	}
	defer r.Close()
	md, err := r.MkdirSub(".mastermind", 0o755)
	if err != nil {
		return nil, err
	}
	defer md.Close()
	return md.MkdirSub("dispatch", 0o755)
}
