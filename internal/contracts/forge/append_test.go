package forge

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var fixedNow = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func validReport(t *testing.T, evidence string) *Object {
	t.Helper()
	r := Check([]byte(block(`{"status":"completed","work_package":"WP-7","files_changed":["a.go"],"tests_run":["go test ./...",null],"evidence":[` + evidence + `],"next_action":"merge","extra":{"db_password":"hunter2"}}`)))
	if !r.Valid() {
		t.Fatalf("report invalid: %v", r.Errors)
	}
	return r.Report
}

func readEvents(t *testing.T, root, runID string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(EventsPath(runID))))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestIngestNewRun(t *testing.T) {
	root := t.TempDir()
	ing, err := Ingest(root, "run-42", "Build Boss", validReport(t, `"token nvapi-FAKE0123456789","  ",3,"ok"`), fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	data := readEvents(t, root, "run-42")
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 || len(ing.Lines) != 2 {
		t.Fatalf("want 2 lines, got %d:\n%s", len(lines), data)
	}
	if strings.Contains(string(data), "nvapi-") || strings.Contains(string(data), "hunter2") {
		t.Fatalf("secret leaked:\n%s", data)
	}
	e1, e2 := mustObject(t, lines[0]), mustObject(t, lines[1])
	wantKeys1 := []string{"run_id", "event_type", "agent", "output", "report", "timestamp", "event_id", "prev_hash", "seq", "entry_hash"}
	wantKeys2 := []string{"run_id", "event_type", "agent", "evidence", "timestamp", "event_id", "prev_hash", "seq", "entry_hash"}
	if fmt.Sprint(e1.Keys()) != fmt.Sprint(wantKeys1) || fmt.Sprint(e2.Keys()) != fmt.Sprint(wantKeys2) {
		t.Fatalf("key order: %v / %v", e1.Keys(), e2.Keys())
	}
	checks := map[string]any{
		"e1.event_type": e1.vals["event_type"], "e2.event_type": e2.vals["event_type"],
		"e1.output": e1.vals["output"], "e2.evidence": e2.vals["evidence"],
		"e1.seq": e1.vals["seq"], "e2.seq": e2.vals["seq"], "e1.prev_hash": e1.vals["prev_hash"],
		"e1.timestamp": e1.vals["timestamp"], "e2.prev_hash": e2.vals["prev_hash"],
	}
	want := map[string]any{
		"e1.event_type": "agent_output", "e2.event_type": "agent_evidence_added",
		"e1.output": "completed · WP-7 · 1 file(s) · tests: go test ./... | ", "e2.evidence": "token ***REDACTED***; ok",
		"e1.seq": 1.0, "e2.seq": 2.0, "e1.prev_hash": "genesis:run-42",
		"e1.timestamp": "2026-11-29T10:00:00.000Z", "e2.prev_hash": e1.vals["entry_hash"],
	}
	for k, w := range want {
		if checks[k] != w {
			t.Errorf("%s = %v, want %v", k, checks[k], w)
		}
	}
	if id, _ := e1.vals["event_id"].(string); len(id) != 36 || id[14] != '4' {
		t.Errorf("event_id %q is not a v4 UUID", id)
	}
	if tail, err := VerifyLog(data, "run-42"); err != nil || tail.Seq != 2 || tail.Chained != 2 {
		t.Fatalf("VerifyLog: %+v %v", tail, err)
	}
	// A second ingest continues the chain.
	if _, err := Ingest(root, "run-42", "Build Boss", validReport(t, `"x"`), fixedNow); err != nil {
		t.Fatal(err)
	}
	if tail, err := VerifyLog(readEvents(t, root, "run-42"), "run-42"); err != nil || tail.Seq != 4 {
		t.Fatalf("after second ingest: %+v %v", tail, err)
	}
	for _, f := range []string{LockFile, WALFile} {
		if _, err := os.Lstat(filepath.Join(root, ".claude/forge-runs/run-42", f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind", f)
		}
	}
}

func TestIngestRefusals(t *testing.T) {
	t.Run("bad run id", func(t *testing.T) {
		root := t.TempDir()
		for _, id := range []string{"../evil", "-x", "", "a/b", "a b"} {
			if _, err := Ingest(root, id, "a", validReport(t, `"x"`), fixedNow); err == nil {
				t.Errorf("run id %q accepted", id)
			}
		}
		if _, err := os.Lstat(filepath.Join(root, ".claude")); !errors.Is(err, os.ErrNotExist) {
			t.Error(".claude created for a bad run id")
		}
	})
	t.Run("symlinked forge-runs", func(t *testing.T) {
		root, elsewhere := t.TempDir(), t.TempDir()
		os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
		os.Symlink(elsewhere, filepath.Join(root, ".claude", "forge-runs"))
		if _, err := Ingest(root, "r", "a", validReport(t, `"x"`), fixedNow); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("err = %v", err)
		}
		if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
			t.Fatal("wrote through the symlink")
		}
	})
	t.Run("symlinked events.jsonl", func(t *testing.T) {
		root := t.TempDir()
		dir := filepath.Join(root, ".claude", "forge-runs", "r")
		os.MkdirAll(dir, 0o755)
		target := filepath.Join(t.TempDir(), "x")
		os.WriteFile(target, nil, 0o644)
		os.Symlink(target, filepath.Join(dir, EventsFile))
		if _, err := Ingest(root, "r", "a", validReport(t, `"x"`), fixedNow); err == nil {
			t.Fatal("accepted a symlinked events.jsonl")
		}
		if data, _ := os.ReadFile(target); len(data) != 0 {
			t.Fatal("wrote through the symlink")
		}
	})
}

// seedLog ingests once and returns the run dir and the log bytes.
func seedLog(t *testing.T) (string, string, []byte) {
	t.Helper()
	root := t.TempDir()
	if _, err := Ingest(root, "run-1", "a", validReport(t, `"x"`), fixedNow); err != nil {
		t.Fatal(err)
	}
	return root, filepath.Join(root, ".claude", "forge-runs", "run-1"), readEvents(t, root, "run-1")
}

func TestDamagedLogRefused(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(data []byte) []byte
		class Damage
		line  int
	}{
		{"torn last line", func(d []byte) []byte { return append(d, `{"run_id":"run-1","ev`...) }, DamagePartial, 3},
		{"edited entry_hash", func(d []byte) []byte {
			i := bytes.Index(d, []byte(`"entry_hash":"`)) + len(`"entry_hash":"`)
			d[i] ^= 1
			return d
		}, DamageCorrupt, 1},
		{"edited report", func(d []byte) []byte { return bytes.Replace(d, []byte("WP-7"), []byte("WP-8"), 1) }, DamageCorrupt, 1},
		{"bad middle line", func(d []byte) []byte { return append([]byte("not json\n"), d...) }, DamageCorrupt, 1},
		{"not an object", func(d []byte) []byte { return append([]byte("[1]\n"), d...) }, DamageCorrupt, 1},
		{"wrong run id", func(d []byte) []byte {
			return bytes.ReplaceAll(d, []byte(`"run_id":"run-1"`), []byte(`"run_id":"run-2"`))
		}, DamageCorrupt, 1},
		{"lines swapped", func(d []byte) []byte {
			l := bytes.SplitAfter(d, []byte("\n"))
			return append(append([]byte{}, l[1]...), l[0]...)
		}, DamageCorrupt, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, dir, data := seedLog(t)
			damaged := tt.edit(append([]byte{}, data...))
			os.WriteFile(filepath.Join(dir, EventsFile), damaged, 0o644)
			_, err := Ingest(root, "run-1", "a", validReport(t, `"y"`), fixedNow)
			var ce *ChainError
			if !errors.As(err, &ce) || ce.Class != tt.class || ce.Line != tt.line {
				t.Fatalf("err = %v, want %s at line %d", err, tt.class, tt.line)
			}
			if after := readEvents(t, root, "run-1"); !bytes.Equal(after, damaged) {
				t.Fatal("the damaged log was modified")
			}
		})
	}
}

func TestLegacyUnchainedLinesAllowed(t *testing.T) {
	root, dir, data := seedLog(t)
	withLegacy := append([]byte(`{"event_type":"note","text":"legacy"}`+"\n\n"), data...)
	os.WriteFile(filepath.Join(dir, EventsFile), withLegacy, 0o644)
	if _, err := Ingest(root, "run-1", "a", validReport(t, `"y"`), fixedNow); err != nil {
		t.Fatal(err)
	}
	tail, err := VerifyLog(readEvents(t, root, "run-1"), "run-1")
	if err != nil || tail.Entries != 5 || tail.Chained != 4 {
		t.Fatalf("%+v %v", tail, err)
	}
}

func TestWALRecovery(t *testing.T) {
	payloadOf := func(t *testing.T, dir string) ([]byte, []byte) {
		// Build a real pending append: the payload of two more events after the current tail.
		data, _ := os.ReadFile(filepath.Join(dir, EventsFile))
		tail, err := VerifyLog(data, "run-1")
		if err != nil {
			t.Fatal(err)
		}
		evs, _ := BuildEvents("run-1", "a", validReport(t, `"wal"`), fixedNow)
		var payload []byte
		prev, seq := tail.PrevHash, tail.Seq
		for _, ev := range evs {
			seq++
			ev.Set("prev_hash", prev)
			ev.Set("seq", seq)
			h := EntryHash(ev, prev)
			ev.Set("entry_hash", h)
			payload = append(append(payload, Stringify(nil, ev)...), '\n')
			prev = h
		}
		return data, payload
	}
	t.Run("payload fully present", func(t *testing.T) {
		root, dir, _ := seedLog(t)
		data, payload := payloadOf(t, dir)
		os.WriteFile(filepath.Join(dir, EventsFile), append(append([]byte{}, data...), payload...), 0o644)
		writeWAL(filepath.Join(dir, WALFile), int64(len(data)), payload)
		if _, err := Ingest(root, "run-1", "a", validReport(t, `"z"`), fixedNow); err != nil {
			t.Fatal(err)
		}
		tail, err := VerifyLog(readEvents(t, root, "run-1"), "run-1")
		if err != nil || tail.Seq != 6 {
			t.Fatalf("%+v %v", tail, err)
		}
	})
	t.Run("payload half written is completed", func(t *testing.T) {
		root, dir, _ := seedLog(t)
		data, payload := payloadOf(t, dir)
		os.WriteFile(filepath.Join(dir, EventsFile), append(append([]byte{}, data...), payload[:len(payload)/2]...), 0o644)
		writeWAL(filepath.Join(dir, WALFile), int64(len(data)), payload)
		if _, err := Ingest(root, "run-1", "a", validReport(t, `"z"`), fixedNow); err != nil {
			t.Fatal(err)
		}
		got := readEvents(t, root, "run-1")
		if !bytes.HasPrefix(got, append(append([]byte{}, data...), payload...)) {
			t.Fatal("interrupted payload not completed")
		}
		if tail, err := VerifyLog(got, "run-1"); err != nil || tail.Seq != 6 {
			t.Fatalf("%+v %v", tail, err)
		}
	})
	t.Run("torn WAL is discarded", func(t *testing.T) {
		root, dir, _ := seedLog(t)
		os.WriteFile(filepath.Join(dir, WALFile), []byte(`{"base_bytes":12,"payl`), 0o644)
		if _, err := Ingest(root, "run-1", "a", validReport(t, `"z"`), fixedNow); err != nil {
			t.Fatal(err)
		}
		if tail, _ := VerifyLog(readEvents(t, root, "run-1"), "run-1"); tail.Seq != 4 {
			t.Fatalf("seq %v", tail.Seq)
		}
	})
	refusals := []struct {
		name string
		log  func(data, payload []byte) []byte
		base func(data []byte) int64
	}{
		{"truncated externally", func(d, p []byte) []byte { return d[:10] }, func(d []byte) int64 { return int64(len(d)) }},
		{"tail differs", func(d, p []byte) []byte {
			q := append([]byte{}, p...)
			q[5] ^= 1
			return append(append([]byte{}, d...), q...)
		}, func(d []byte) int64 { return int64(len(d)) }},
		{"longer than payload", func(d, p []byte) []byte { return append(append(append([]byte{}, d...), p...), "{}\n"...) }, func(d []byte) int64 { return int64(len(d)) }},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			root, dir, _ := seedLog(t)
			data, payload := payloadOf(t, dir)
			log := tt.log(data, payload)
			os.WriteFile(filepath.Join(dir, EventsFile), log, 0o644)
			writeWAL(filepath.Join(dir, WALFile), tt.base(data), payload)
			var we *WALError
			if _, err := Ingest(root, "run-1", "a", validReport(t, `"z"`), fixedNow); !errors.As(err, &we) {
				t.Fatalf("err = %v, want a WALError", err)
			}
			if !bytes.Equal(readEvents(t, root, "run-1"), log) {
				t.Fatal("log modified")
			}
		})
	}
}

// TestInjectedWriteFailure proves the two events are written together or not at all: a write
// that fails half-way through the payload (which holds both lines) leaves the log byte-identical.
func TestInjectedWriteFailure(t *testing.T) {
	root, dir, before := seedLog(t)
	orig := writeAll
	t.Cleanup(func() { writeAll = orig })
	calls := 0
	writeAll = func(f *os.File, p []byte) error {
		calls++
		if filepath.Base(f.Name()) != EventsFile {
			return orig(f, p)
		}
		// Write line 1 and part of line 2, then fail.
		cut := bytes.IndexByte(p, '\n') + 10
		if err := orig(f, p[:cut]); err != nil {
			return err
		}
		return errors.New("injected: disk full")
	}
	_, err := Ingest(root, "run-1", "a", validReport(t, `"z"`), fixedNow)
	if err == nil || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("err = %v", err)
	}
	if calls != 2 {
		t.Fatalf("writeAll called %d times, want 2 (WAL, log)", calls)
	}
	if after := readEvents(t, root, "run-1"); !bytes.Equal(after, before) {
		t.Fatalf("log changed after a failed append:\n%s", after)
	}
	for _, f := range []string{WALFile, LockFile} {
		if _, err := os.Lstat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind", f)
		}
	}
	writeAll = orig
	if _, err := Ingest(root, "run-1", "a", validReport(t, `"z"`), fixedNow); err != nil {
		t.Fatal(err)
	}
	if tail, err := VerifyLog(readEvents(t, root, "run-1"), "run-1"); err != nil || tail.Seq != 4 {
		t.Fatalf("%+v %v", tail, err)
	}
}

func TestLockTimeoutAndStaleTakeover(t *testing.T) {
	t.Run("fresh lock held", func(t *testing.T) {
		root, dir, before := seedLog(t)
		tok := fmt.Sprintf(`{"pid":%d,"ts":"x"}`, os.Getpid())
		os.WriteFile(filepath.Join(dir, LockFile), []byte(tok), 0o644)
		t.Setenv(LockTimeoutEnv, "150")
		_, err := Ingest(root, "run-1", "a", validReport(t, `"z"`), fixedNow)
		var lt *LockTimeoutError
		if !errors.As(err, &lt) || !strings.Contains(err.Error(), "events lock not acquired within 150ms") {
			t.Fatalf("err = %v", err)
		}
		if !bytes.Equal(readEvents(t, root, "run-1"), before) {
			t.Fatal("wrote without the lock")
		}
		if _, err := os.Stat(filepath.Join(dir, LockFile)); err != nil {
			t.Fatal("someone else's lock was removed")
		}
	})
	t.Run("old lock of a live pid is kept", func(t *testing.T) {
		root, dir, _ := seedLog(t)
		lock := filepath.Join(dir, LockFile)
		os.WriteFile(lock, []byte(fmt.Sprintf(`{"pid":%d}`, os.Getpid())), 0o644)
		old := time.Now().Add(-time.Minute)
		os.Chtimes(lock, old, old)
		t.Setenv(LockTimeoutEnv, "100")
		if _, err := Ingest(root, "run-1", "a", validReport(t, `"z"`), fixedNow); err == nil {
			t.Fatal("took over a live writer's lock")
		}
	})
	for _, tok := range []string{`{"pid":2147483646,"ts":"2020-01-01T00:00:00.000Z"}`, `garbage`} {
		t.Run("stale lock "+tok[:5], func(t *testing.T) {
			root, dir, _ := seedLog(t)
			lock := filepath.Join(dir, LockFile)
			os.WriteFile(lock, []byte(tok), 0o644)
			old := time.Now().Add(-20 * time.Second)
			os.Chtimes(lock, old, old)
			t.Setenv(LockTimeoutEnv, "2000")
			if _, err := Ingest(root, "run-1", "a", validReport(t, `"z"`), fixedNow); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("future lock with unreadable token is kept", func(t *testing.T) {
		root, dir, _ := seedLog(t)
		lock := filepath.Join(dir, LockFile)
		os.WriteFile(lock, []byte("garbage"), 0o644)
		future := time.Now().Add(time.Hour)
		os.Chtimes(lock, future, future)
		t.Setenv(LockTimeoutEnv, "100")
		if _, err := Ingest(root, "run-1", "a", validReport(t, `"z"`), fixedNow); err == nil {
			t.Fatal("took over a future-dated lock without a readable dead pid")
		}
	})
}

// TestHelperIngestProcess is the child of TestConcurrentProcesses; it does nothing in a normal run.
func TestHelperIngestProcess(t *testing.T) {
	root := os.Getenv("FORGE_HELPER_ROOT")
	if root == "" {
		t.Skip("helper process only")
	}
	for i := 0; i < 5; i++ {
		if _, err := Ingest(root, "shared", os.Getenv("FORGE_HELPER_AGENT"), validReport(t, fmt.Sprintf(`"n%d"`, i)), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConcurrentProcesses runs several processes that ingest into one run at once: no line is
// lost or interleaved and the chain verifies.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	root := t.TempDir()
	const procs = 4
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperIngestProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), "FORGE_HELPER_ROOT="+root, fmt.Sprintf("FORGE_HELPER_AGENT=agent-%d", p))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("process %d: %v\n%s", p, err, out)
			}
		}(p)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	data := readEvents(t, root, "shared")
	tail, err := VerifyLog(data, "shared")
	if err != nil {
		t.Fatal(err)
	}
	if want := procs * 5 * 2; tail.Chained != want || tail.Seq != float64(want) {
		t.Fatalf("chained %d seq %v, want %d", tail.Chained, tail.Seq, want)
	}
	// Each ingest's two events are adjacent: agent_output immediately followed by its evidence.
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i := 0; i < len(lines); i += 2 {
		a, b := mustObject(t, lines[i]), mustObject(t, lines[i+1])
		if a.vals["event_type"] != EventAgentOutput || b.vals["event_type"] != EventEvidenceAdded || a.vals["agent"] != b.vals["agent"] {
			t.Fatalf("lines %d-%d are not one ingest's pair", i+1, i+2)
		}
	}
}
