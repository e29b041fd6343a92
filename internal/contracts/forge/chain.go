package forge

import (
	"bytes"
	"errors"
	"fmt"
)

// Damage is the writer-view classification of an events.jsonl (§1.7 "Damage check").
type Damage string

// Damage classes. Missing and empty logs start a new chain; partial and corrupt logs are refused.
const (
	DamageNone    Damage = ""
	DamagePartial Damage = "PARTIAL" // only the last non-blank line is not JSON
	DamageCorrupt Damage = "CORRUPT" // any other line is bad, or the hash chain does not verify
)

// ChainError is a refused log: its class, the 1-based physical line and the reason.
type ChainError struct {
	Class  Damage
	Line   int
	Reason string
}

func (e *ChainError) Error() string {
	return fmt.Sprintf("events log is %s (line %d: %s)", e.Class, e.Line, e.Reason)
}

// Tail is the end of a verified chain: the last chained entry_hash (or genesis:<run_id>) and its
// seq (0 when none), plus the number of entries.
type Tail struct {
	PrevHash string
	Seq      float64
	Entries  int
	Chained  int
}

// Genesis returns the prev_hash of a run's first chained entry.
func Genesis(runID string) string { return "genesis:" + runID }

var reservedKeys = []string{"__proto__", "constructor", "prototype"}

// VerifyLog checks the contents of a run's events.jsonl in the writer view of §1.7 and returns
// the chain tail, or a *ChainError.
func VerifyLog(data []byte, runID string) (Tail, error) {
	tail := Tail{PrevHash: Genesis(runID)}
	lines := bytes.Split(data, []byte{'\n'})
	lastNonBlank := -1
	for i, l := range lines {
		if !isBlank(string(l)) {
			lastNonBlank = i
		}
	}
	seqSeen := false
	for i, l := range lines {
		if isBlank(string(l)) {
			continue
		}
		n := i + 1
		corrupt := func(format string, a ...any) error {
			return &ChainError{DamageCorrupt, n, fmt.Sprintf(format, a...)}
		}
		v, err := ParseJSON(l)
		if err != nil {
			if errors.Is(err, ErrTooDeep) {
				return tail, corrupt("%v (mastermind's limit; a torn line is not this deep)", err)
			}
			if i == lastNonBlank {
				return tail, &ChainError{DamagePartial, n, "not JSON: " + err.Error()}
			}
			return tail, corrupt("not JSON: %v", err)
		}
		o, ok := v.(*Object)
		if !ok {
			return tail, corrupt("not a JSON object")
		}
		et, ok := o.vals["event_type"].(string)
		if !ok || et == "" {
			return tail, corrupt("event_type is not a non-empty string")
		}
		tail.Entries++
		eh, chained := o.Get("entry_hash")
		if !chained {
			continue
		}
		for _, k := range reservedKeys {
			if _, bad := o.vals[k]; bad {
				return tail, corrupt("top-level %q key", k)
			}
		}
		if rid, _ := o.vals["run_id"].(string); rid != runID {
			return tail, corrupt("run_id %s is not %q", Stringify(nil, o.vals["run_id"]), runID)
		}
		if ph, _ := o.vals["prev_hash"].(string); ph != tail.PrevHash {
			return tail, corrupt("prev_hash does not link to the previous entry (want %s)", tail.PrevHash)
		}
		if got, want := eh, EntryHash(o, tail.PrevHash); got != want {
			return tail, corrupt("entry_hash does not match the entry (recomputed %s)", want)
		}
		seq, hasSeq := o.Get("seq")
		if hasSeq {
			f, ok := seq.(float64)
			if !ok || f < 1 || f != tail.Seq+1 {
				return tail, corrupt("seq %s does not follow %s", Stringify(nil, seq), formatNumber(tail.Seq))
			}
			tail.Seq = f
			seqSeen = true
		} else if seqSeen {
			return tail, corrupt("seq missing after a chained entry that had one")
		}
		tail.PrevHash = eh.(string)
		tail.Chained++
	}
	return tail, nil
}
