package forge

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// originalLogs are events.jsonl files written by the original forge writer (see
// testdata/forge-original/README.md): lone surrogates as \udxxx escapes, __proto__ and
// integer-like keys, its own hash chain.
var originalLogs = []struct {
	file, runID string
	entries     int
}{
	{"events-lone-surrogates.jsonl", "run-interop", 6},
	{"events-proto-keys.jsonl", "run-proto", 5},
	// The first log, two events appended by mastermind, then two more by the original writer,
	// which verified mastermind's lines before chaining onto them.
	{"events-roundtrip.jsonl", "run-interop", 10},
}

func readOriginal(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "forge-original", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestVerifyOriginalWriterLogs: verify accepts the original writer's logs unchanged.
func TestVerifyOriginalWriterLogs(t *testing.T) {
	for _, tt := range originalLogs {
		t.Run(tt.file, func(t *testing.T) {
			tail, err := VerifyLog(readOriginal(t, tt.file), tt.runID)
			if err != nil {
				t.Fatalf("VerifyLog: %v", err)
			}
			if tail.Chained != tt.entries || tail.Seq != float64(tt.entries) {
				t.Fatalf("tail = %+v, want %d chained entries", tail, tt.entries)
			}
		})
	}
}

// TestIngestAppendsToOriginalWriterLogs: ingest appends to the original writer's logs, keeps their
// bytes, chains onto their tail and writes lone surrogates back as the escapes JSON.stringify
// writes, so the original writer can verify and continue the chain (events-roundtrip.jsonl).
func TestIngestAppendsToOriginalWriterLogs(t *testing.T) {
	msg := readOriginal(t, "report-lone-surrogates.md")
	for _, tt := range originalLogs {
		t.Run(tt.file, func(t *testing.T) {
			orig := readOriginal(t, tt.file)
			before, err := VerifyLog(orig, tt.runID)
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			dir := filepath.Join(root, ".claude", "forge-runs", tt.runID)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, EventsFile), orig, 0o644); err != nil {
				t.Fatal(err)
			}
			res := Check(msg)
			if !res.Valid() {
				t.Fatalf("report invalid: %v", res.Errors)
			}
			ing, err := Ingest(root, tt.runID, "Build Boss", res.Report, fixedNow)
			if err != nil {
				t.Fatalf("Ingest: %v", err)
			}
			got := readEvents(t, root, tt.runID)
			if !bytes.HasPrefix(got, orig) {
				t.Fatal("the original lines changed")
			}
			after, err := VerifyLog(got, tt.runID)
			if err != nil {
				t.Fatalf("VerifyLog after ingest: %v", err)
			}
			if after.Chained != before.Chained+2 {
				t.Fatalf("chained %d, want %d", after.Chained, before.Chained+2)
			}
			first, _ := ParseJSON(ing.Lines[0])
			if ph, _ := first.(*Object).Get("prev_hash"); ph != before.PrevHash {
				t.Fatalf("prev_hash %v, want the original tail %s", ph, before.PrevHash)
			}
			for _, want := range []string{
				`"evidence":["half \ud83d emoji","\udfff\ud800","pair ` + "\U0001F600" + ` whole"]`,
				`"extra":{"2":"two","10":"ten","__proto__":{"x":1}}`,
			} {
				if !strings.Contains(string(ing.Lines[0]), want) {
					t.Errorf("agent_output line lacks %s:\n%s", want, ing.Lines[0])
				}
			}
			if want := `"evidence":"half \ud83d emoji; \udfff\ud800; pair ` + "\U0001F600" + ` whole"`; !strings.Contains(string(ing.Lines[1]), want) {
				t.Errorf("agent_evidence_added line lacks %s:\n%s", want, ing.Lines[1])
			}
		})
	}
}

// TestRoundtripLogHoldsMastermindLines pins that lines 7–8 of events-roundtrip.jsonl are
// mastermind's (agent Build Boss, from report-lone-surrogates.md) and lines 9–10 the original
// writer's, so the fixture proves the chain in both directions.
func TestRoundtripLogHoldsMastermindLines(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(string(readOriginal(t, "events-roundtrip.jsonl")), "\n"), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, want := range map[int]string{6: `"agent":"Build Boss"`, 7: `"agent":"Build Boss"`, 8: `"agent":"Verify Boss"`, 9: `"agent":"Verify Boss"`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d lacks %s", i+1, want)
		}
	}
	if !strings.Contains(lines[6], `"\udfff\ud800"`) || !strings.Contains(lines[8], `\ud800 still lone`) {
		t.Error("the lone surrogates are not escapes in the lines of both writers")
	}
}

// TestNestingLimitOneMessage: 512 levels parse; 513, 5,000 and 20,000 levels all give ErrTooDeep
// (encoding/json's own limit of 10,000 used to answer the deepest with another message).
func TestNestingLimitOneMessage(t *testing.T) {
	nest := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	if _, err := ParseJSON(nest(MaxDepth)); err != nil {
		t.Fatalf("%d levels: %v", MaxDepth, err)
	}
	if _, err := ParseJSON([]byte(`{"a":"` + strings.Repeat("[", 600) + `"}`)); err != nil {
		t.Fatalf("brackets inside a string count: %v", err)
	}
	for _, n := range []int{MaxDepth + 1, 5000, 20000} {
		if _, err := ParseJSON(nest(n)); !errors.Is(err, ErrTooDeep) {
			t.Errorf("%d levels: %v, want ErrTooDeep", n, err)
		}
	}
	r := Check([]byte(block(strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000))))
	want := "malformed JSON in ```forge-report block: JSON nesting is deeper than the limit of 512 levels; flatten the report"
	if len(r.Errors) != 1 || r.Errors[0].Message != want {
		t.Fatalf("errors = %v", r.Errors)
	}
}

// TestWellFormedForMessages: a lone surrogate in work_package reaches the result as one U+FFFD,
// not as three invalid bytes; the report itself keeps it.
func TestWellFormedForMessages(t *testing.T) {
	r := Check([]byte(block(`{"status":"completed","work_package":"WP-\ud800","files_changed":[],"tests_run":"none","evidence":["x"],"next_action":"y"}`)))
	if !r.Valid() || r.WorkPackage != "WP-\uFFFD" {
		t.Fatalf("work package %q, errors %v", r.WorkPackage, r.Errors)
	}
	if got := string(Stringify(nil, r.Report.vals["work_package"])); got != `"WP-\ud800"` {
		t.Fatalf("report keeps %s", got)
	}
	if got := WellFormed("a\xed\xa0\x80\xffb\U0001F600"); got != "a\uFFFD\uFFFDb\U0001F600" {
		t.Fatalf("WellFormed = %q", got)
	}
}

// TestVerifyTooDeepLineIsCorrupt: a complete line nested deeper than the limit is CORRUPT with
// the limit named, even as the last line (a torn append is PARTIAL, this is not one).
func TestVerifyTooDeepLineIsCorrupt(t *testing.T) {
	deep := `{"event_type":"x","d":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + "}\n"
	_, err := VerifyLog([]byte(deep), "r")
	var ce *ChainError
	if !errors.As(err, &ce) || ce.Class != DamageCorrupt || !strings.Contains(ce.Reason, "deeper than the limit of 512 levels") {
		t.Fatalf("err = %v", err)
	}
}
