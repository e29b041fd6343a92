package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/contracts/filter"
	"github.com/mastermind-controller/mastermind/internal/contracts/forge"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/store"
)

// snapshot maps the repository-relative path of every regular file mastermind writes (under
// .mastermind, the forge run and the controller store) to its bytes. Temporary files are listed
// apart.
type snapshot struct {
	files map[string][]byte
	temps []string
}

// tempRe matches renameio's temporary files: "." + the target's name + decimal digits.
var tempRe = regexp.MustCompile(`^\..+[0-9]+$`)

func takeSnapshot(dir string) (snapshot, error) {
	s := snapshot{files: map[string][]byte{}}
	// Each tree is walked from its root, and its files are named name/<path below root>; the
	// store is beside the repository, so its files are named ".state/…".
	for _, tree := range []struct{ root, name string }{
		{filepath.Join(dir, ".mastermind"), ".mastermind"},
		{filepath.Join(dir, ".claude"), ".claude"},
		{storeDir(dir), storeTop},
	} {
		err := filepath.WalkDir(tree.root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			below, _ := filepath.Rel(tree.root, p)
			rel := tree.name + "/" + filepath.ToSlash(below)
			if tempRe.MatchString(d.Name()) {
				s.temps = append(s.temps, rel)
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s.files[rel] = data
			return nil
		})
		if err != nil {
			return s, err
		}
	}
	sort.Strings(s.temps)
	return s, nil
}

// storeRecord matches a controller-store record path below the scratch directory.
var storeRecord = regexp.MustCompile(`^\.state/repos/[0-9a-f]{64}/tasks/([^/]+)/state\.json$`)

// storeTop names the controller store's files in a snapshot.
const storeTop = ".state"

// checkComplete applies the structural check of each file kind: a torn or mixed write fails it.
// reviews holds every history-review.md content seen so far (an archive must be one of them).
func checkComplete(s snapshot, reviews map[string]bool) []string {
	var bad []string
	fail := func(rel, format string, a ...any) { bad = append(bad, rel+": "+fmt.Sprintf(format, a...)) }
	for _, task := range []string{taskHeld, taskBroken} {
		rel := task + "/state.json"
		data, ok := s.files[rel]
		if !ok {
			fail(rel, "missing (state must never be lost)")
			continue
		}
		st, err := postflight.ParseState(data)
		if err != nil {
			fail(rel, "does not parse: %v", err)
		} else if st.SpecPath != task+"/spec.md" {
			fail(rel, "spec_path %q", st.SpecPath)
		}
	}
	for rel, data := range s.files {
		text := string(data)
		base := filepath.Base(rel)
		if m := storeRecord.FindStringSubmatch(rel); m != nil {
			// The controller store's record: strict, with a valid state of its task.
			if r, err := store.ParseRecord(data, m[1]); err != nil {
				fail(rel, "the store record does not parse: %v", err)
			} else if _, err := postflight.ParseState(r.State); err != nil {
				fail(rel, "the store record's state does not parse: %v", err)
			}
			continue
		}
		switch {
		case base == "audit.md":
			if !strings.HasSuffix(text, "\n    }\n") || !bytes.Contains(data, []byte("\"schema_version\"")) {
				fail(rel, "incomplete audit (%d bytes)", len(data))
			}
		case strings.HasPrefix(rel, ".mastermind/releases/"):
			if !strings.HasSuffix(text, "\nAudit: ✅ Held\n") {
				fail(rel, "incomplete release notes (%d bytes)", len(data))
			}
		case base == "history-review.md":
			if !strings.HasPrefix(text, "# History review — ") || !regexp.MustCompile(`\n- \*\*Evidence:\*\* [^\n]+\n$`).MatchString(text) {
				fail(rel, "incomplete history review (%d bytes)", len(data))
			}
		case strings.HasPrefix(base, "history-review."):
			if !reviews[text] {
				fail(rel, "the archive is not a history-review.md that existed (%d bytes)", len(data))
			}
		case base == "_lessons.md":
			task := postflight.Task{Name: filepath.Base(taskBroken), Dir: taskBroken, Spec: taskBroken + "/spec.md"}
			if _, err := postflight.UpsertLessonText(data, task, postflight.LessonAuditContractFailure, "x", "2026-01-01"); err != nil {
				fail(rel, "malformed: %v", err)
			}
			if !strings.HasSuffix(text, "- **Reusable lesson:** pending semantic review\n") {
				fail(rel, "incomplete entry (%d bytes)", len(data))
			}
		case base == dispatchID+".json":
			if err := checkCounter(data); err != nil {
				fail(rel, "%v", err)
			}
		case base == forge.EventsFile:
			if err := checkEvents(data, s.files[forgeRun+"/"+forge.WALFile]); err != nil {
				fail(rel, "%v", err)
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// checkCounter decodes a dispatch counter strictly and checks its invariants.
func checkCounter(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c filter.Counter
	if err := dec.Decode(&c); err != nil {
		return fmt.Errorf("does not parse: %v", err)
	}
	if c.SchemaVersion != filter.CounterSchemaVersion || c.DispatchID != dispatchID ||
		c.ConsecutiveRejections > c.TotalRejections || len(c.Attempts) > filter.MaxAttempts {
		return fmt.Errorf("inconsistent counter %+v", c)
	}
	for i := 1; i < len(c.Attempts); i++ {
		if c.Attempts[i].N != c.Attempts[i-1].N+1 {
			return fmt.Errorf("attempt numbers are not contiguous: %d after %d", c.Attempts[i].N, c.Attempts[i-1].N)
		}
	}
	return nil
}

// checkEvents verifies the chain. With a WAL beside the log (an interrupted append), the part
// before the WAL's base_bytes must verify; the next ingest completes or rolls back the rest.
func checkEvents(data, wal []byte) error {
	if wal != nil {
		var w struct {
			Base    int64  `json:"base_bytes"`
			Payload string `json:"payload"`
		}
		if json.Unmarshal(wal, &w) == nil && w.Base >= 0 && w.Base <= int64(len(data)) {
			data = data[:w.Base]
		}
		// A torn WAL is discarded by the next ingest: the log was not touched.
	}
	tail, err := forge.VerifyLog(data, "run1")
	if err != nil {
		return err
	}
	if tail.Chained%2 != 0 {
		return fmt.Errorf("%d chained entries: half an ingest", tail.Chained)
	}
	return nil
}
