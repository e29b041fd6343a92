package filter

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
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
// and the outcome (accepted, rejected, or escalate from the third consecutive rejection on). It
// holds the flock lock <ID>.json.lock (LockTimeout, then fsx.ErrLockBusy) and writes atomically.
// A counter file that is unreadable, corrupt or of another schema major is an error.
func Record(root, id string, raw []byte, res *Result) (*Counter, string, error) {
	if !ValidDispatchID(id) {
		return nil, "", fmt.Errorf("dispatch id %q must match ^[A-Za-z0-9_-]{1,128}$ and not start with '-'", id)
	}
	dir := filepath.Join(root, ".mastermind", "dispatch")
	if err := fsx.CheckNoSymlink(root, ".mastermind/dispatch"); err != nil && fsx.ReasonOf(err) != fsx.ReasonMissing {
		return nil, "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	if err := fsx.CheckNoSymlink(root, ".mastermind/dispatch"); err != nil {
		return nil, "", err
	}
	path := CounterPath(root, id)
	lock, err := fsx.LockWait(path+".lock", lockTimeout)
	if err != nil {
		return nil, "", err
	}
	defer lock.Unlock()

	c := &Counter{SchemaVersion: CounterSchemaVersion, DispatchID: id, Attempts: []Attempt{}}
	data, err := fsx.ReadFile(path, maxCounterBytes)
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
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, "", err
	}
	if err := fsx.WriteFileAtomic(path, buf.Bytes(), 0o644); err != nil {
		return nil, "", err
	}
	return c, outcome, nil
}
