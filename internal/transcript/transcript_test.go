package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The recorded work trees of the fixtures (testdata/README.md); tests put their own root there.
const (
	rootGQC   = "/home/USER/projects/spotter-worktrees/spotter-gqc"
	rootDOV   = "/home/USER/projects/spotter-worktrees/spotter-dov"
	rootCTF   = "/tmp/tmpw6sk2trg"
	rootCodex = "/redacted/path/59b923df4d"
)

// place copies the fixture file (and, for a Claude session, its subagents folder) into a new
// directory outside a new work tree, with the recorded root replaced by the work tree's path.
func place(t *testing.T, fixture, recorded string) (path, root string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	src := filepath.Join("testdata", fixture)
	copyOne := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.ReplaceAll(string(b), recorded, root))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path = filepath.Join(dst, filepath.Base(src))
	copyOne(src, path)
	subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(src, ".jsonl"), "subagents", "*.jsonl"))
	for _, s := range subs {
		copyOne(s, filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents", filepath.Base(s)))
	}
	return path, root
}

func read(t *testing.T, h Harness, path, root string, after time.Time) *Session {
	t.Helper()
	s, err := Read(context.Background(), Options{Harness: h, Path: path, Root: root, After: after})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestClaudeFailThenPass(t *testing.T) {
	path, root := place(t, "claude/spotter-gqc.jsonl", rootGQC)
	s := read(t, Claude, path, root, time.Time{})
	if s.Version != "2.1.39" || s.Unknown != 0 {
		t.Fatalf("version %q unknown %d", s.Version, s.Unknown)
	}
	r := s.Lookup("mix test test/spotter_web/live/project_review_live_test.exs")
	if r == nil || r.Status != StatusPassed || r.Runs != 3 {
		t.Fatalf("last run %+v", r)
	}
	for cmd, want := range map[string]string{
		"mix test":                         "exit 0", // `mix test 2>&1`, later than the pipeline
		"git push":                         "exit 128",
		"mix compile --warnings-as-errors": "exit 0",
		"mix credo --strict":               "exit 0",
		"git status":                       "exit 0",
	} {
		if r := s.Lookup(cmd); r == nil || r.Describe() != want {
			t.Errorf("%s: %+v, want %s", cmd, r, want)
		}
	}
	var bg, pipe bool
	for _, r := range s.Runs() {
		bg = bg || r.Note == "background"
		pipe = pipe || (r.Note == "pipeline" && r.Key == "mix test")
	}
	if !bg {
		t.Error("the background mix test run is not unknown")
	}
	if s.Lookup("mix format --check-formatted") != nil {
		t.Error("a command never run is witnessed")
	}
	if c := s.Closest("mix tests"); c != "mix test" {
		t.Errorf("closest %q", c)
	}
	if len(s.Inside) != 1 || s.Inside[0] != "test/spotter_web/live/project_review_live_test.exs" || len(s.Outside) != 0 {
		t.Errorf("edits inside %v outside %v", s.Inside, s.Outside)
	}
	_ = pipe
}

func TestClaudeFailing(t *testing.T) {
	path, root := place(t, "claude/spotter-gqc-failing.jsonl", rootGQC)
	s := read(t, Claude, path, root, time.Time{})
	r := s.Lookup("mix test test/spotter_web/live/project_review_live_test.exs")
	if r == nil || r.Status != StatusFailed || r.ExitCode != 2 || r.Runs != 2 {
		t.Fatalf("last run %+v", r)
	}
}

// TestClaudeAfterPreflight: entries at or before the pre-flight time do not count.
func TestClaudeAfterPreflight(t *testing.T) {
	path, root := place(t, "claude/spotter-gqc.jsonl", rootGQC)
	at, _ := time.Parse(time.RFC3339Nano, "2026-02-11T21:11:27.771Z") // the passing run's call
	s := read(t, Claude, path, root, at)
	if r := s.Lookup("mix test test/spotter_web/live/project_review_live_test.exs"); r != nil {
		t.Fatalf("a run at the pre-flight time counts: %+v", r)
	}
	if s.Before == 0 || s.Lookup("mix credo --strict") == nil {
		t.Fatalf("before %d", s.Before)
	}
	s = read(t, Claude, path, root, at.Add(-time.Millisecond))
	if r := s.Lookup("mix test test/spotter_web/live/project_review_live_test.exs"); r == nil || r.Runs != 1 {
		t.Fatalf("a run a millisecond after pre-flight does not count: %+v", r)
	}
}

func TestClaudeSubagent(t *testing.T) {
	path, root := place(t, "claude/spotter-dov.jsonl", rootDOV)
	s := read(t, Claude, path, root, time.Time{})
	r := s.Lookup("mix test test/spotter/services/transcript_renderer_test.exs")
	if r == nil || !r.Subagent || r.Status != StatusPassed || len(s.Files) != 2 {
		t.Fatalf("subagent run %+v, files %d", r, len(s.Files))
	}
}

func TestClaudeRunnerEquivalence(t *testing.T) {
	path, root := place(t, "claude/coverage-test-fix.jsonl", rootCTF)
	s := read(t, Claude, path, root, time.Time{})
	for _, cmd := range []string{"python -m pytest tests/test_math_utils.py -v", "pytest tests/test_math_utils.py -v", "uv run pytest tests/test_math_utils.py -v"} {
		if r := s.Lookup(cmd); r == nil || r.Status != StatusPassed {
			t.Errorf("%s: %+v", cmd, r)
		}
	}
	if s.Lookup("pytest tests/test_math_utils.py") != nil {
		t.Error("other arguments witness")
	}
	if len(s.Rewrites) != 0 {
		t.Errorf("rewrites %+v", s.Rewrites)
	}
}

func TestClaudeOutsideAndRewrite(t *testing.T) {
	path, root := place(t, "claude/coverage-test-fix-outside.jsonl", rootCTF)
	s := read(t, Claude, path, root, time.Time{})
	if len(s.Outside) != 1 || s.Outside[0].Path != "/opt/shared/config/settings.py" || s.Outside[0].Tool != "Edit" {
		t.Errorf("outside %+v", s.Outside)
	}
	if len(s.Rewrites) != 1 || s.Rewrites[0].Cmd != "git commit --amend --no-edit" {
		t.Errorf("rewrites %+v", s.Rewrites)
	}
}

func TestRefusals(t *testing.T) {
	path, root := place(t, "claude/coverage-test-fix-v9.jsonl", rootCTF)
	if _, err := Read(context.Background(), Options{Harness: Claude, Path: path, Root: root}); ReasonOf(err) != ReasonUnknownVersion {
		t.Errorf("version 9: %v", err)
	}
	path, root = place(t, "claude/coverage-test-fix.jsonl", rootCTF)
	link := filepath.Join(filepath.Dir(path), "link.jsonl")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{link: ReasonSymlink, path + ".none": ReasonMissing, filepath.Dir(path): ReasonNotRegular} {
		if _, err := Read(context.Background(), Options{Harness: Claude, Path: p, Root: root}); ReasonOf(err) != want {
			t.Errorf("%s: %v, want %s", p, err, want)
		}
	}
	inside := filepath.Join(root, ".claude", "t.jsonl")
	os.MkdirAll(filepath.Dir(inside), 0o755)
	os.WriteFile(inside, []byte("{}\n"), 0o644)
	if _, err := Read(context.Background(), Options{Harness: Claude, Path: inside, Root: root}); ReasonOf(err) != ReasonInsideWorkTree {
		t.Errorf("inside: %v", err)
	}
	// A Codex rollout read as Claude Code holds no entry of a known shape.
	cpath, croot := place(t, "codex/rollout-go-test.jsonl", rootCodex)
	if _, err := Read(context.Background(), Options{Harness: Claude, Path: cpath, Root: croot}); ReasonOf(err) != ReasonNotTranscript {
		t.Errorf("codex as claude: %v", err)
	}
}

func TestUnknownShapesCounted(t *testing.T) {
	path, root := place(t, "claude/coverage-test-fix.jsonl", rootCTF)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{\"type\":\"hologram\",\"timestamp\":\"2026-01-21T06:21:00.000Z\"}\nnot json\n{\"type\":\"assistant\",\"timestamp\":\"2026-01-21T06:21:01.000Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_x\",\"name\":\"Bash\",\"input\":{\"command\":42}}]}}\n")
	f.Close()
	s := read(t, Claude, path, root, time.Time{})
	if s.Unknown != 3 {
		t.Errorf("unknown %d, want 3", s.Unknown)
	}
}

func TestCodexRollout(t *testing.T) {
	path, root := place(t, "codex/rollout-go-test.jsonl", rootCodex)
	s := read(t, Codex, path, root, time.Time{})
	if s.Version != "0.104.0-alpha.1" || s.Unknown != 0 {
		t.Fatalf("version %q unknown %d", s.Version, s.Unknown)
	}
	r := s.Lookup("go test ./...")
	if r == nil || r.Status != StatusPassed || r.Runs != 2 {
		t.Fatalf("go test: %+v", r)
	}
	if r := s.Lookup("git status --short"); r == nil || r.Status != StatusPassed {
		t.Errorf("git status: %+v", r)
	}
	if len(s.Inside) != 1 || s.Inside[0] != "sum.go" {
		t.Errorf("inside %v", s.Inside)
	}
	// Without the write_stdin poll the second run's status is unknown, and the last run decides.
	b, _ := os.ReadFile(path)
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.Contains(l, "81924") || strings.Contains(l, "Process running") {
			keep = append(keep, l)
		}
	}
	os.WriteFile(path, []byte(strings.Join(keep, "\n")), 0o644)
	s = read(t, Codex, path, root, time.Time{})
	if r := s.Lookup("go test ./..."); r == nil || r.Status != StatusUnknown || r.Note != "background" {
		t.Fatalf("go test without the poll: %+v", r)
	}
}

func TestShape(t *testing.T) {
	root := "/w/repo"
	for _, tc := range []struct {
		cmd, dir, core                 string
		pipeline, pipefail, background bool
		outDir                         string
	}{
		{"go test ./... 2>&1", root, "go test ./...", false, false, false, root},
		{"cd /w/repo && go test ./... > /dev/null", "/elsewhere", "go test ./...", false, false, false, root},
		{"cd sub && go test ./...", root, "go test ./...", false, false, false, root + "/sub"},
		{"go test ./... 2>&1 | tail -5", root, "go test ./...", true, false, false, root},
		{"set -o pipefail && go test ./... | tail", root, "go test ./...", true, true, false, root},
		{"set -o pipefail; go test  ./...  |  tee log", root, "go test ./...", true, true, false, root},
		{"go test ./... &", root, "go test ./... &", false, false, true, root},
		{"go vet ./... && go test ./...", root, "go vet ./... && go test ./...", false, false, false, root},
		{"cd $HOME && go test", root, "go test", false, false, false, ""},
		{"go test ./... < /dev/null", root, "go test ./... < /dev/null", false, false, false, root},
		{"go 'test' ./...", root, "go 'test' ./...", false, false, false, root},
	} {
		sh := parseShape(tc.cmd, tc.dir, "/home/u")
		if sh.core != tc.core || sh.pipeline != tc.pipeline || sh.pipefail != tc.pipefail || sh.background != tc.background || sh.dir != tc.outDir {
			t.Errorf("%q: %+v", tc.cmd, sh)
		}
	}
	for cmd, want := range map[string]bool{
		"git update-index --assume-unchanged a.go": true, "git -C . replace a b": true,
		"git reset --hard HEAD~1": true, "git reset HEAD a.go": false, "git commit --amend -m x": true,
		"git commit -m x": false, "git stash": true, "git config core.fileMode false": true,
		"git config user.name x": false, "git status": false,
	} {
		got := false
		for _, g := range parseShape(cmd, root, "").git {
			got = got || gitRewrite(g)
		}
		if got != want {
			t.Errorf("%q: rewrite %v", cmd, got)
		}
	}
}

// TestAttacks: what an executor could put in the way of the reader (docs/hardening.md).
func TestAttacks(t *testing.T) {
	path, root := place(t, "claude/coverage-test-fix.jsonl", rootCTF)
	// A harness folder whose ancestor is a symlink into the work tree: refused as inside.
	os.MkdirAll(filepath.Join(root, ".fake"), 0o755)
	b, _ := os.ReadFile(path)
	os.WriteFile(filepath.Join(root, ".fake", "s.jsonl"), b, 0o644)
	link := filepath.Join(t.TempDir(), "projects")
	if err := os.Symlink(filepath.Join(root, ".fake"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(context.Background(), Options{Harness: Claude, Path: filepath.Join(link, "s.jsonl"), Root: root}); ReasonOf(err) != ReasonInsideWorkTree {
		t.Errorf("through a symlinked ancestor: %v", err)
	}
	// A FIFO is never opened for a blocking read.
	fifo := filepath.Join(t.TempDir(), "f.jsonl")
	if err := syscallMkfifo(fifo); err == nil {
		if _, err := Read(context.Background(), Options{Harness: Claude, Path: fifo, Root: root}); ReasonOf(err) != ReasonNotRegular {
			t.Errorf("fifo: %v", err)
		}
	}
	// A subagent file that is a symlink is skipped and counted.
	sub := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
	os.MkdirAll(sub, 0o755)
	os.Symlink(path, filepath.Join(sub, "agent-x.jsonl"))
	if s := read(t, Claude, path, root, time.Time{}); s.SymlinkedSubagents != 1 || len(s.Files) != 1 {
		t.Errorf("symlinked subagent: %d, files %d", s.SymlinkedSubagents, len(s.Files))
	}
	// An oversized line, and calls that never get a result past the pairing table: bounded, and
	// the evicted calls are unknown, never failed.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"user","timestamp":"2026-01-21T06:30:00.000Z","x":"` + strings.Repeat("a", MaxLineBytes) + "\"}\n")
	for i := 0; i < MaxPending+10; i++ {
		f.WriteString(`{"type":"assistant","timestamp":"2026-01-21T06:31:00.000Z","cwd":"` + root + `","message":{"content":[{"type":"tool_use","id":"toolu_p` + strconv.Itoa(i) + `","name":"Bash","input":{"command":"go test ./..."}}]}}` + "\n")
	}
	f.Close()
	s := read(t, Claude, path, root, time.Time{})
	if s.Unknown != 1 || s.Unpaired != 10 {
		t.Errorf("unknown %d unpaired %d", s.Unknown, s.Unpaired)
	}
	if r := s.Lookup("go test ./..."); r == nil || r.Status != StatusUnknown {
		t.Errorf("evicted calls: %+v", r)
	}
	if _, why := s.Stand("go test ./...", nil); why == "" {
		t.Error("a partly kept transcript stands in for a run")
	}
}

// TestStand: run: witnessed conditions 1–4 (docs/design/transcripts.md §6).
func TestStand(t *testing.T) {
	path, root := place(t, "codex/rollout-go-test.jsonl", rootCodex)
	s := read(t, Codex, path, root, time.Time{})
	w, why := s.Stand("go test ./...", nil)
	if w == nil {
		t.Fatalf("the passing run followed by git status does not stand: %s", why)
	}
	if _, why := s.Stand("go vet ./...", nil); !strings.Contains(why, "no run") {
		t.Errorf("never run: %q", why)
	}
	// The Claude session: mix credo --strict passed, but mix test ran after it.
	gp, groot := place(t, "claude/spotter-gqc.jsonl", rootGQC)
	g := read(t, Claude, gp, groot, time.Time{})
	if _, why := g.Stand("mix credo --strict", nil); !strings.Contains(why, "background") {
		t.Errorf("a session with a background run: %q", why)
	}
	// Condition 4: a changed path's status change time.
	os.WriteFile(filepath.Join(root, "sum.go"), []byte("package sum\n"), 0o644)
	if p, changed := ChangedAfter(root, []string{"sum.go", "gone.go"}, time.Now().Add(time.Hour)); changed {
		t.Errorf("%s changed after an hour from now", p)
	}
	if p, changed := ChangedAfter(root, []string{"sum.go"}, time.Now().Add(-time.Hour)); !changed || p != "sum.go" {
		t.Errorf("sum.go written now is not after an hour ago: %q", p)
	}
}
