package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// transcriptFixtures is internal/transcript/testdata, the real transcripts the scenarios use.
var transcriptFixtures, _ = filepath.Abs(filepath.Join("..", "transcript", "testdata"))

var fixtureTime = regexp.MustCompile(`"timestamp":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)"`)

// cmdTranscript implements `transcript [-before] FIXTURE DST RECORDED`: it copies the fixture
// (a file of internal/transcript/testdata, with a Claude Code session's subagents folder) to DST,
// replacing the recorded work tree RECORDED with $WORK, and maps every timestamp, order kept,
// into the second before now (-before: into the second an hour before now, so that every entry
// predates the scenario's pre-flight).
func cmdTranscript(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("transcript does not support negation")
	}
	before := len(args) > 0 && args[0] == "-before"
	if before {
		args = args[1:]
	}
	if len(args) != 3 {
		ts.Fatalf("usage: transcript [-before] FIXTURE DST RECORDED")
	}
	src, dst, recorded := filepath.Join(transcriptFixtures, args[0]), ts.MkAbs(args[1]), args[2]
	files := map[string]string{src: dst}
	subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(src, ".jsonl"), "subagents", "*.jsonl"))
	for _, s := range subs {
		files[s] = filepath.Join(strings.TrimSuffix(dst, ".jsonl"), "subagents", filepath.Base(s))
	}
	texts := map[string]string{}
	var stamps []time.Time
	for from := range files {
		b, err := os.ReadFile(from)
		ts.Check(err)
		texts[from] = strings.ReplaceAll(string(b), recorded, ts.Getenv("WORK"))
		for _, m := range fixtureTime.FindAllStringSubmatch(texts[from], -1) {
			t, err := time.Parse(time.RFC3339Nano, m[1])
			ts.Check(err)
			stamps = append(stamps, t)
		}
	}
	sort.Slice(stamps, func(i, j int) bool { return stamps[i].Before(stamps[j]) })
	end := time.Now().Add(-10 * time.Millisecond)
	if before {
		end = end.Add(-time.Hour)
	}
	first, span := stamps[0], stamps[len(stamps)-1].Sub(stamps[0])
	mapTime := func(t time.Time) time.Time {
		if span <= 0 {
			return end
		}
		return end.Add(-time.Second + time.Duration(float64(time.Second)*float64(t.Sub(first))/float64(span)))
	}
	for from, to := range files {
		out := fixtureTime.ReplaceAllStringFunc(texts[from], func(s string) string {
			t, _ := time.Parse(time.RFC3339Nano, fixtureTime.FindStringSubmatch(s)[1])
			return `"timestamp":"` + mapTime(t).UTC().Format("2006-01-02T15:04:05.000Z") + `"`
		})
		ts.Check(os.MkdirAll(filepath.Dir(to), 0o755))
		ts.Check(os.WriteFile(to, []byte(out), 0o644))
	}
}
