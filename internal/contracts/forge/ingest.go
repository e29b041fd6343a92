package forge

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// RunsDir is the forge dashboard's run directory, relative to the root (§1.6).
const RunsDir = ".claude/forge-runs"

var runIDRe = lazyRegexp(`^[A-Za-z0-9_-]+$`)

// ValidRunID reports whether id matches ^[A-Za-z0-9_-]+$ and does not start with '-' (§1.6).
func ValidRunID(id string) bool { return runIDRe().MatchString(id) && id[0] != '-' }

// EventsPath returns the slash-separated path of a run's events.jsonl relative to the root.
func EventsPath(runID string) string { return path.Join(RunsDir, runID, EventsFile) }

// Event types written by ingest, both registered "visible reasoning" types of the forge writer.
const (
	EventAgentOutput   = "agent_output"
	EventEvidenceAdded = "agent_evidence_added"
)

// BuildEvents builds the two events of §1.6 from a redacted, valid report, up to event_id;
// AppendEvents adds the chain fields. Both carry the same millisecond UTC timestamp.
func BuildEvents(runID, agent string, report *Object, now time.Time) ([]*Object, error) {
	ts := now.UTC().Format(timestampLayout)
	status, _ := report.vals["status"].(string)
	wp, _ := report.vals["work_package"].(string)
	n := 0
	if fc, ok := report.vals["files_changed"].([]any); ok {
		n = len(fc)
	}
	output := fmt.Sprintf("%s · %s · %d file(s) · tests: %s", status, wp, n, testsSummary(report.vals["tests_run"]))
	var ev []string
	if arr, ok := report.vals["evidence"].([]any); ok {
		for _, e := range arr {
			if s, ok := e.(string); ok && !isBlank(s) {
				ev = append(ev, s)
			}
		}
	}
	id1, err := uuid4()
	if err != nil {
		return nil, err
	}
	id2, err := uuid4()
	if err != nil {
		return nil, err
	}
	e1 := NewObject()
	e1.Set("run_id", runID)
	e1.Set("event_type", EventAgentOutput)
	e1.Set("agent", agent)
	e1.Set("output", output)
	e1.Set("report", report)
	e1.Set("timestamp", ts)
	e1.Set("event_id", id1)
	e2 := NewObject()
	e2.Set("run_id", runID)
	e2.Set("event_type", EventEvidenceAdded)
	e2.Set("agent", agent)
	e2.Set("evidence", strings.Join(ev, "; "))
	e2.Set("timestamp", ts)
	e2.Set("event_id", id2)
	return []*Object{e1, e2}, nil
}

// uuid4 returns a random lowercase RFC 4122 version 4 UUID.
func uuid4() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// Ingested is the outcome of Ingest.
type Ingested struct {
	EventsPath string   // relative to the root, slash-separated
	Agent      string   // the agent name as written (after the fold), lone surrogates as U+FFFD
	Lines      [][]byte // the two lines appended
}

// Ingest redacts a valid report, builds its two events and appends them to
// <root>/.claude/forge-runs/<runID>/events.jsonl (§1.6, §1.7). The run directory is created
// (0755) only here, after validation; a symlinked .claude, forge-runs, run directory or
// events.jsonl is refused. Errors leave the log unchanged.
func Ingest(root, runID, agent string, report *Object, now time.Time) (*Ingested, error) {
	if !ValidRunID(runID) {
		return nil, fmt.Errorf("invalid run_id (allowed: A-Z a-z 0-9 _ -): %s", runID)
	}
	agent = FoldAgent(root, toWellFormed([]byte(agent)))
	redacted, _ := Redact(report).(*Object)
	events, err := BuildEvents(runID, agent, redacted, now)
	if err != nil {
		return nil, err
	}
	runDir, err := makeRunDir(root, runID)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(filepath.Join(runDir, EventsFile)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link; refusing to write through it", EventsPath(runID))
	}
	lines, err := AppendEvents(runDir, runID, events)
	if err != nil {
		return nil, err
	}
	return &Ingested{EventsPath: EventsPath(runID), Agent: WellFormed(agent), Lines: lines}, nil
}

// makeRunDir creates .claude/forge-runs/<runID> under root one component at a time, refusing a
// symlink or non-directory at any component.
func makeRunDir(root, runID string) (string, error) {
	cur := root
	for _, c := range []string{".claude", "forge-runs", runID} {
		cur = filepath.Join(cur, c)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", err
			}
			fi, err = os.Lstat(cur)
		}
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(root, cur)
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a symbolic link; refusing to write through it", filepath.ToSlash(rel))
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("%s is not a directory", filepath.ToSlash(rel))
		}
	}
	return cur, nil
}
