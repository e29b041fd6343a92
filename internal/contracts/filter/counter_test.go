package filter

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

func TestValidDispatchID(t *testing.T) {
	for id, want := range map[string]bool{
		"task-7": true, "A_b-9": true, strings.Repeat("a", 128): true,
		"": false, "-x": false, "a/b": false, "..": false, "a b": false, strings.Repeat("a", 129): false, "ü": false,
	} {
		if got := ValidDispatchID(id); got != want {
			t.Errorf("ValidDispatchID(%q) = %v", id, got)
		}
	}
}

func TestCounterEscalatesAndResets(t *testing.T) {
	root := t.TempDir()
	d := loadBrief(t, "brief.md")
	reject, _ := run(t, d, "I did the task.")
	accept, _ := run(t, d, validJSON)
	haltRes, _ := run(t, d, halt(t, nil))

	steps := []struct {
		res         *Result
		outcome     string
		consecutive int
	}{
		{reject, OutcomeRejected, 1},
		{reject, OutcomeRejected, 2},
		{accept, OutcomeAccepted, 0},
		{reject, OutcomeRejected, 1},
		{reject, OutcomeRejected, 2},
		{reject, OutcomeEscalate, 3},
		{reject, OutcomeEscalate, 4},
		{haltRes, OutcomeAccepted, 0},
	}
	for i, st := range steps {
		c, outcome, err := Record(root, "t1", []byte("raw"), st.res, nil)
		if err != nil {
			t.Fatal(err)
		}
		if outcome != st.outcome || c.ConsecutiveRejections != st.consecutive {
			t.Fatalf("step %d: outcome %q consecutive %d; want %q %d", i+1, outcome, c.ConsecutiveRejections, st.outcome, st.consecutive)
		}
	}
	data, err := os.ReadFile(CounterPath(root, "t1"))
	if err != nil {
		t.Fatal(err)
	}
	var c Counter
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if c.SchemaVersion != 1 || c.TotalRejections != 6 || c.NeedsInputAccepted != 1 || len(c.Attempts) != 8 {
		t.Fatalf("counter %+v", c)
	}
	a := c.Attempts[5]
	if a.N != 6 || a.Outcome != OutcomeEscalate || a.Variant != VariantComplete || len(a.Items) != 6 ||
		a.Items[1] != "tests_added (required, array of string) — absent" || len(a.RawSHA256) != 64 {
		t.Fatalf("attempt %+v", a)
	}
	if last := c.Attempts[7]; last.Variant != VariantNeedsInput || len(last.Items) != 0 {
		t.Fatalf("last attempt %+v", last)
	}
	// only the last MaxAttempts attempts are kept
	for i := 0; i < 25; i++ {
		if _, _, err := Record(root, "t1", []byte("raw"), reject, nil); err != nil {
			t.Fatal(err)
		}
	}
	data, _ = os.ReadFile(CounterPath(root, "t1"))
	_ = json.Unmarshal(data, &c)
	if len(c.Attempts) != MaxAttempts || c.Attempts[0].N != 14 || c.Attempts[MaxAttempts-1].N != 33 {
		t.Fatalf("attempts kept: %d, first n %d", len(c.Attempts), c.Attempts[0].N)
	}
}

func TestCounterFailsClosed(t *testing.T) {
	d := loadBrief(t, "brief.md")
	reject, _ := run(t, d, "nothing")

	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".mastermind", "dispatch"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(CounterPath(root, "bad"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Record(root, "bad", nil, reject, nil); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("corrupt counter: %v", err)
	}
	if err := os.WriteFile(CounterPath(root, "v2"), []byte(`{"schema_version": 2, "dispatch_id": "v2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Record(root, "v2", nil, reject, nil); err == nil {
		t.Fatal("an unknown schema major must be refused")
	}
	if _, _, err := Record(root, "../x", nil, reject, nil); err == nil {
		t.Fatal("an invalid id must be refused")
	}

	// a symlinked .mastermind never redirects the write
	root2, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(root2, ".mastermind")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Record(root2, "t", nil, reject, nil); fsx.ReasonOf(err) != fsx.ReasonSymlink {
		t.Fatalf("symlinked .mastermind: %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatal("nothing may be written through the link")
	}

	// a held lock times out as fsx.ErrLockBusy (exit 3 in the CLI)
	root3 := t.TempDir()
	if _, _, err := Record(root3, "t", nil, reject, nil); err != nil {
		t.Fatal(err)
	}
	// The lock is flock(2) on the dispatch folder itself: no lock file beside the counter.
	if _, err := os.Lstat(CounterPath(root3, "t") + ".lock"); !os.IsNotExist(err) {
		t.Fatalf("a lock file beside the counter: %v", err)
	}
	dd, err := fsx.OpenDir(root3, ".mastermind/dispatch")
	if err != nil {
		t.Fatal(err)
	}
	defer dd.Close()
	l, err := dd.TryLockDir()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	defer func(d time.Duration) { lockTimeout = d }(lockTimeout)
	lockTimeout = 100 * time.Millisecond
	if _, _, err := Record(root3, "t", nil, reject, nil); !errors.Is(err, fsx.ErrLockBusy) {
		t.Fatalf("held lock: %v", err)
	}
}
