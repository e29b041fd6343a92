package transcript

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The attacks of docs/hardening.md (rows R24 on) against the reader: an executor acting through
// an honest harness, whose record mastermind must not misread. The entries have the shapes of
// the real fixtures (testdata/claude, testdata/codex) with only the fields the reader uses.

// session builds a Claude Code session file entry by entry, one millisecond apart.
type session struct {
	t     *testing.T
	root  string
	at    time.Time
	lines []string
	n     int
}

func newSession(t *testing.T) *session {
	root := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return &session{t: t, root: root, at: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
}

func (s *session) stamp() string {
	s.at = s.at.Add(time.Millisecond)
	return s.at.Format("2006-01-02T15:04:05.000Z")
}

func (s *session) add(e map[string]any) {
	b, err := json.Marshal(e)
	if err != nil {
		s.t.Fatal(err)
	}
	s.lines = append(s.lines, string(b))
}

// tool is one tool_use block: its name and input.
type tool struct {
	name  string
	input map[string]any
}

func bash(cmd string) tool { return tool{"Bash", map[string]any{"command": cmd}} }

// calls writes one assistant message with the tool_use blocks, each its own entry (as the harness
// writes a message with parallel calls), all with the same cwd; it returns their ids.
func (s *session) calls(cwd string, ts ...tool) []string {
	var ids []string
	for _, tl := range ts {
		s.n++
		id := "toolu_" + strings.Repeat("x", 3) + string(rune('a'+s.n%26)) + strings.Repeat("0", s.n/26+1)
		ids = append(ids, id)
		s.add(map[string]any{"type": "assistant", "version": "2.1.39", "cwd": cwd, "isSidechain": false, "timestamp": s.stamp(),
			"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": tl.name, "input": tl.input}}}})
	}
	return ids
}

// result writes the user entry with the tool_result of id: exit 0 when code is 0, else the
// Bash tool's error shape.
func (s *session) result(cwd, id string, code int) {
	block := map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok", "is_error": false}
	var tur any = map[string]any{"stdout": "ok", "stderr": "", "interrupted": false}
	if code != 0 {
		block["is_error"], block["content"] = true, "Exit code "+itoa(code)+"\nFAIL"
		tur = "Error: Exit code " + itoa(code) + "\nFAIL"
	}
	s.add(map[string]any{"type": "user", "version": "2.1.39", "cwd": cwd, "timestamp": s.stamp(),
		"message": map[string]any{"role": "user", "content": []any{block}}, "toolUseResult": tur})
}

// run is one call at cwd and its result.
func (s *session) run(cwd string, tl tool, code int) {
	s.result(cwd, s.calls(cwd, tl)[0], code)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func (s *session) write() string {
	p := filepath.Join(s.t.TempDir(), "session.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(s.lines, "\n")+"\n"), 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

func (s *session) read() *Session {
	return read(s.t, Claude, s.write(), s.root, time.Time{})
}

// standAfterBash runs each command with Bash at the root, exit 0, in a fresh session and returns
// what Stand says of go test ./....
func standAfterBash(t *testing.T, cmds ...string) (*Run, string) {
	s := newSession(t)
	for _, cmd := range cmds {
		s.run(s.root, bash(cmd), 0)
	}
	return s.read().Stand("go test ./...", nil)
}

// TestAttackPipefailTurnedOff (R24): `set -o pipefail +o pipefail` leaves pipefail off, so a
// pipeline's exit 0 is its last stage's.
func TestAttackPipefailTurnedOff(t *testing.T) {
	s := newSession(t)
	s.run(s.root, bash("set -o pipefail +o pipefail && go test ./... | tail -3"), 0)
	s.run(s.root, bash("set -eo pipefail && go vet ./... | tail -3"), 0)
	s.run(s.root, bash("set -o pipefail -n && go build ./... | tail -3"), 0) // -n: nothing runs
	s.run(s.root, bash("set -n; set -o pipefail; go mod tidy | cat"), 0)
	got := s.read()
	for _, cmd := range []string{"go build ./...", "go mod tidy"} {
		if r := got.Lookup(cmd); r != nil {
			t.Errorf("set -n (nothing runs) dropped: %+v", r)
		}
	}
	if r := got.Lookup("go test ./..."); r != nil && r.Status != StatusUnknown {
		t.Errorf("pipefail turned off again: %+v, want status unknown", r)
	}
	if r := got.Lookup("go vet ./..."); r == nil || r.Status != StatusPassed {
		t.Errorf("set -eo pipefail: %+v, want passed", r)
	}
}

// TestAttackParallelCd (R25): two Bash calls of one message are written with the same cwd before
// either runs; the shell then runs them in turn, so a `cd` in the first moves the second.
func TestAttackParallelCd(t *testing.T) {
	s := newSession(t)
	sub := filepath.Join(s.root, "internal", "ok")
	ids := s.calls(s.root, bash("cd internal/ok"), bash("go test ./..."))
	s.result(sub, ids[0], 0)
	s.result(sub, ids[1], 0)
	if r := s.read().Lookup("go test ./..."); r != nil {
		t.Errorf("a run after a cd in the same batch is witnessed at the root: %+v", r)
	}
	// Without a cd in the batch the second call runs where the entry says.
	s = newSession(t)
	ids = s.calls(s.root, bash("git status"), bash("go test ./..."))
	s.result(s.root, ids[0], 0)
	s.result(s.root, ids[1], 0)
	if r := s.read().Lookup("go test ./..."); r == nil || r.Status != StatusPassed {
		t.Errorf("a batch without cd: %+v", r)
	}
}

// TestAttackSymlinkRetargeted (R26): `cd LINK && cmd` with LINK pointing at a clean clone when it
// ran, pointed at the work tree afterwards: resolving LINK at audit time is not where it ran.
func TestAttackSymlinkRetargeted(t *testing.T) {
	s := newSession(t)
	clone := filepath.Join(t.TempDir(), "clone")
	os.MkdirAll(clone, 0o755)
	link := filepath.Join(t.TempDir(), "r")
	if err := os.Symlink(clone, link); err != nil {
		t.Fatal(err)
	}
	s.run(s.root, bash("cd "+link+" && go test ./..."), 0)
	path := s.write()
	os.Remove(link)
	os.Symlink(s.root, link)
	got := read(t, Claude, path, s.root, time.Time{})
	if r := got.Lookup("go test ./..."); r != nil {
		t.Errorf("a run through a link the executor can retarget is witnessed at the root: %+v", r)
	}
}

// TestAttackFakeRunner (R27): a failing `pytest tests/` hidden behind a passing run of another
// program named pytest.
func TestAttackFakeRunner(t *testing.T) {
	s := newSession(t)
	s.run(s.root, bash("pytest tests/"), 1)
	s.run(s.root, bash("/tmp/fake/pytest tests/"), 0)
	s.run(s.root, bash("python -m pytest tests/ -q"), 0)
	got := s.read()
	if r := got.Lookup("pytest tests/"); r == nil || r.Status != StatusFailed {
		t.Errorf("a path-qualified pytest witnesses pytest: %+v", r)
	}
	if r := got.Lookup("/tmp/fake/pytest tests/"); r == nil || r.Status != StatusPassed {
		t.Errorf("the command itself: %+v", r)
	}
	// The decided equivalence stays: python -m pytest and pytest with the same arguments.
	if r := got.Lookup("pytest tests/ -q"); r == nil || r.Status != StatusPassed {
		t.Errorf("pytest tests/ -q: %+v", r)
	}
}

// TestAttackStandEquivalent (R28): run: witnessed stands in only for a run of the command
// itself, not of an equivalent spelling that runs another program or environment.
func TestAttackStandEquivalent(t *testing.T) {
	s := newSession(t)
	s.run(s.root, bash("yarn jest"), 0)
	got := s.read()
	if got.Lookup("npx jest") == nil {
		t.Fatal("yarn jest does not witness npx jest")
	}
	if w, why := got.Stand("npx jest", nil); w != nil || !strings.Contains(why, "equivalent command only") {
		t.Errorf("yarn jest (a package.json script of that name) stands in for npx jest: %v, %q", w, why)
	}
	if w, why := got.Stand("yarn jest", nil); w == nil {
		t.Errorf("the command itself does not stand: %s", why)
	}
}

// TestAttackStandDetached (R29): a command that leaves a process running, spelt other than with a
// single trailing &, before the witnessed run.
func TestAttackStandDetached(t *testing.T) {
	for _, cmd := range []string{
		"sleep 30 & disown",
		"(sleep 30; mv pkg pkg.old) & true",
		"sh -c 'sleep 30 && mv pkg pkg.old &'",
		"bash -lc \"nohup sleep 30 >/dev/null &\"",
		"setsid -f sh -c 'sleep 30'",
		"nohup sleep 30",
		"go vet ./... > >(sleep 30)",
		"coproc sleep 30",
		"tmux new -d 'sleep 30'",
	} {
		if w, _ := standAfterBash(t, cmd, "go test ./..."); w != nil {
			t.Errorf("%q before the run: the witness stands", cmd)
		}
	}
	if w, why := standAfterBash(t, "go vet ./... 2>&1", "go test ./... && echo done", "go test ./..."); w == nil {
		t.Errorf("2>&1 and && are not background: %s", why)
	}
}

// TestAttackStandUnseen (R30): after the witnessed run, a tool mastermind does not read (an MCP
// server's write tool, a skill), an entry of an unknown shape, or a line too long to read.
func TestAttackStandUnseen(t *testing.T) {
	for name, after := range map[string]func(s *session){
		"mcp write": func(s *session) {
			s.run(s.root, tool{"mcp__filesystem__write_file", map[string]any{"path": s.root + "/pkg/a.go", "content": "x"}}, 0)
		},
		"skill": func(s *session) { s.run(s.root, tool{"Skill", map[string]any{"skill": "fix"}}, 0) },
		"unknown entry": func(s *session) {
			s.add(map[string]any{"type": "hologram", "timestamp": s.stamp()})
		},
		"long line": func(s *session) {
			s.add(map[string]any{"type": "assistant", "timestamp": s.stamp(), "pad": strings.Repeat("a", MaxLineBytes)})
		},
		"background task": func(s *session) {
			s.run(s.root, tool{"Task", map[string]any{"prompt": "x", "run_in_background": true}}, 0)
		},
	} {
		s := newSession(t)
		s.run(s.root, bash("go test ./..."), 0)
		after(s)
		if w, _ := s.read().Stand("go test ./...", nil); w != nil {
			t.Errorf("%s after the run: the witness stands", name)
		}
	}
	// Read-only tools after the run do not matter.
	s := newSession(t)
	s.run(s.root, bash("go test ./..."), 0)
	s.run(s.root, tool{"Read", map[string]any{"file_path": s.root + "/a.go"}}, 0)
	s.run(s.root, tool{"TodoWrite", map[string]any{"todos": []any{}}}, 0)
	if w, why := s.read().Stand("go test ./...", nil); w == nil {
		t.Errorf("Read and TodoWrite after the run: %s", why)
	}
}

// TestAttackStandReadOnly (R31): commands taken as read-only that write, or run another program.
func TestAttackStandReadOnly(t *testing.T) {
	for _, cmd := range []string{"/tmp/x/ls", "./cat a.go", "git diff --output=vendor/a.go", "git log --output=x", "git -c core.pager=sh log", "git diff --ext-diff"} {
		if w, _ := standAfterBash(t, "go test ./...", cmd); w != nil {
			t.Errorf("%q after the run: the witness stands", cmd)
		}
	}
	if w, why := standAfterBash(t, "go test ./...", "git status --short", "git diff"); w == nil {
		t.Errorf("git status and git diff after the run: %s", why)
	}
}

// TestAttackStandOverlap (R32): a Codex call issued before the witnessed run whose output comes
// after it ran beside it (parallel tool calls).
func TestAttackStandOverlap(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	os.MkdirAll(root, 0o755)
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var lines []string
	add := func(typ string, payload map[string]any) {
		at = at.Add(time.Millisecond)
		b, _ := json.Marshal(map[string]any{"timestamp": at.Format("2006-01-02T15:04:05.000Z"), "type": typ, "payload": payload})
		lines = append(lines, string(b))
	}
	call := func(id, cmd string) {
		args, _ := json.Marshal(map[string]any{"cmd": cmd, "workdir": root})
		add("response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": string(args), "call_id": id})
	}
	out := func(id string) {
		add("response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": "Chunk ID: 1\nWall time: 1 seconds\nProcess exited with code 0\nOutput:\n"})
	}
	add("session_meta", map[string]any{"cwd": root, "cli_version": "0.104.0"})
	call("call_a", "sleep 2 && mv pkg pkg.old && mv pkg.new pkg")
	call("call_b", "go test ./...")
	out("call_b")
	out("call_a")
	p := filepath.Join(t.TempDir(), "rollout.jsonl")
	os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	s := read(t, Codex, p, root, time.Time{})
	if w, _ := s.Stand("go test ./...", nil); w != nil {
		t.Error("a command still running when the witnessed run started: the witness stands")
	}
}

// TestAttackDirectoryRename (R33): renaming a directory into place changes the directory's
// status-change time, not its files'.
func TestAttackDirectoryRename(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "pkg.new"), 0o755)
	os.WriteFile(filepath.Join(root, "pkg.new", "a.go"), []byte("package pkg\n"), 0o644)
	time.Sleep(20 * time.Millisecond)
	run := time.Now()
	time.Sleep(20 * time.Millisecond)
	if err := os.Rename(filepath.Join(root, "pkg.new"), filepath.Join(root, "pkg")); err != nil {
		t.Fatal(err)
	}
	if p, changed := ChangedAfter(root, []string{"pkg/a.go"}, run); !changed {
		t.Errorf("pkg/a.go renamed into place after the run is unchanged (%q)", p)
	}
	if _, changed := ChangedAfter(root, []string{"pkg/a.go"}, time.Now().Add(time.Second)); changed {
		t.Error("unchanged since a second from now")
	}
}

// TestAttackDeepNesting (R34): a line of deeply nested JSON within the line limit is skipped
// and counted, in bounded memory, and never crashes the reader (gjson recurses per level).
func TestAttackDeepNesting(t *testing.T) {
	s := newSession(t)
	s.run(s.root, bash("go test ./..."), 0)
	s.lines = append(s.lines, `{"type":"assistant","x":`+strings.Repeat("[", 6<<20)+`}`)
	s.lines = append(s.lines, `{"type":"user","x":`+strings.Repeat(`{"a":`, 1<<20)+`1`+strings.Repeat("}", 1<<20)+`}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := s.read()
	runtime.ReadMemStats(&after)
	if got.Unknown != 2 {
		t.Errorf("unknown %d, want 2", got.Unknown)
	}
	if grown := int64(after.Sys) - int64(before.Sys); grown > 256<<20 {
		t.Errorf("the reader took %d MiB more from the system", grown>>20)
	}
	if got.Lookup("go test ./...") == nil {
		t.Error("the run before the nested lines is lost")
	}
}

// TestAttackEditThroughLink (R35): an Edit of a path inside the work tree whose directory is a
// symbolic link to a folder outside it writes outside the repository.
func TestAttackEditThroughLink(t *testing.T) {
	s := newSession(t)
	outside := t.TempDir()
	home := filepath.Join(outside, "home")
	os.MkdirAll(home, 0o755)
	os.Symlink(home, filepath.Join(s.root, "h"))
	s.run(s.root, tool{"Edit", map[string]any{"file_path": filepath.Join(s.root, "h", ".bashrc")}}, 0)
	got, err := Read(context.Background(), Options{Harness: Claude, Path: s.write(), Root: s.root, TempDirs: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Outside) != 1 || got.Outside[0].Path != filepath.Join(home, ".bashrc") {
		t.Errorf("outside %+v, inside %v", got.Outside, got.Inside)
	}
}

// TestAttackEmptyAndVersion (R36): an empty file is no transcript; a version whose suffix is not
// a semver pre-release (it reaches audit.md) is not a known version.
func TestAttackEmptyAndVersion(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(t.TempDir(), "empty.jsonl")
	os.WriteFile(p, nil, 0o644)
	if _, err := Read(context.Background(), Options{Harness: Claude, Path: p, Root: root}); ReasonOf(err) != ReasonNotTranscript {
		t.Errorf("empty: %v", err)
	}
	s := newSession(t)
	s.run(s.root, bash("go test ./..."), 0)
	text := strings.ReplaceAll(strings.Join(s.lines, "\n"), `"version":"2.1.39"`, `"version":"2.1.39-x\u001b[2J\n## Held"`)
	p = filepath.Join(t.TempDir(), "v.jsonl")
	os.WriteFile(p, []byte(text+"\n"), 0o644)
	if _, err := Read(context.Background(), Options{Harness: Claude, Path: p, Root: s.root}); ReasonOf(err) != ReasonUnknownVersion {
		t.Errorf("a version with control characters: %v", err)
	}
}

// TestAttackPartial (R37): a subagent file that could not be read leaves the session partial:
// run: witnessed does not stand on it.
func TestAttackPartial(t *testing.T) {
	s := newSession(t)
	s.run(s.root, bash("go test ./..."), 0)
	path := s.write()
	sub := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
	os.MkdirAll(sub, 0o755)
	os.Symlink("/nonexistent", filepath.Join(sub, "agent-a.jsonl"))
	got := read(t, Claude, path, s.root, time.Time{})
	if !got.Partial() {
		t.Error("a session with a skipped subagent file is not partial")
	}
	if w, _ := got.Stand("go test ./...", nil); w != nil {
		t.Error("the witness stands on a partial session")
	}
}

// TestAttackMaskedFailure (R38): a failing run followed by the same command in a pipeline (status
// unknown) keeps the failure in view.
func TestAttackMaskedFailure(t *testing.T) {
	s := newSession(t)
	s.run(s.root, bash("go test ./..."), 1)
	s.run(s.root, bash("go test ./... 2>&1 | tail -5"), 0)
	r := s.read().Lookup("go test ./...")
	if r == nil || r.Status != StatusUnknown || r.LastKnown == nil || r.LastKnown.Status != StatusFailed || r.LastKnown.ExitCode != 1 {
		t.Fatalf("last run %+v", r)
	}
}

// TestAttackMountedDir (R33): a directory of another file system mounted over a changed path's
// directory after the run (FUSE lets an unprivileged user do it, and reports its own times).
// The test needs mount(8) and the privilege to use it; a tmpfs prepared before the run and
// bind-mounted after it stands in for a FUSE file system.
func TestAttackMountedDir(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to mount")
	}
	root, fs := t.TempDir(), t.TempDir()
	if err := exec.Command("mount", "-t", "tmpfs", "none", fs).Run(); err != nil {
		t.Skipf("mount: %v", err)
	}
	t.Cleanup(func() { exec.Command("umount", fs).Run() })
	os.WriteFile(filepath.Join(fs, "a.go"), []byte("package pkg\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "pkg"), 0o755)
	time.Sleep(20 * time.Millisecond)
	run := time.Now()
	time.Sleep(20 * time.Millisecond)
	if err := exec.Command("mount", "--bind", fs, filepath.Join(root, "pkg")).Run(); err != nil {
		t.Skipf("bind mount: %v", err)
	}
	t.Cleanup(func() { exec.Command("umount", filepath.Join(root, "pkg")).Run() })
	if p, changed := ChangedAfter(root, []string{"pkg/a.go"}, run); !changed {
		t.Errorf("a file on a file system mounted after the run is unchanged (%q)", p)
	}
}

// rollout builds a Codex rollout file line by line, one millisecond apart.
type rollout struct {
	t     *testing.T
	root  string
	at    time.Time
	lines []string
	n     int
}

func newRollout(t *testing.T) *rollout {
	root := filepath.Join(t.TempDir(), "repo")
	os.MkdirAll(root, 0o755)
	o := &rollout{t: t, root: root, at: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	o.add("session_meta", map[string]any{"cwd": root, "cli_version": "0.104.0"})
	return o
}

func (o *rollout) add(typ string, payload map[string]any) {
	o.at = o.at.Add(time.Millisecond)
	b, _ := json.Marshal(map[string]any{"timestamp": o.at.Format("2006-01-02T15:04:05.000Z"), "type": typ, "payload": payload})
	o.lines = append(o.lines, string(b))
}

// call writes a function_call of name with args and its output, and returns the call id.
func (o *rollout) call(name string, args map[string]any, output string) string {
	o.n++
	id := "call_" + itoa(o.n)
	a, _ := json.Marshal(args)
	o.add("response_item", map[string]any{"type": "function_call", "name": name, "arguments": string(a), "call_id": id})
	o.add("response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": output})
	return id
}

func (o *rollout) read() *Session {
	p := filepath.Join(o.t.TempDir(), "rollout.jsonl")
	os.WriteFile(p, []byte(strings.Join(o.lines, "\n")+"\n"), 0o644)
	return read(o.t, Codex, p, o.root, time.Time{})
}

// TestAttackArgvJoin (R39): the Codex shell tool runs an argv; joined with bare spaces, an
// argument holding shell syntax reads as another command: `cargo test '#'` (a test filter that
// matches nothing: exit 0, no test run) as `cargo test` with a comment, a program at the path
// `go test ./...` (a directory "go test ." holding a script "...") as `go test ./...`, and a
// script run by another program named bash as the script.
func TestAttackArgvJoin(t *testing.T) {
	o := newRollout(t)
	o.call("shell", map[string]any{"command": []string{"cargo", "test", "#"}, "workdir": o.root}, "Exit code: 0\nWall time: 1 seconds\nOutput:\nrunning 0 tests\n")
	o.call("shell", map[string]any{"command": []string{"go test ./..."}, "workdir": o.root}, "Exit code: 0\nWall time: 1 seconds\nOutput:\n")
	o.call("shell", map[string]any{"command": []string{"pytest", "tests/", "2>&1"}, "workdir": o.root}, "Exit code: 0\nWall time: 1 seconds\nOutput:\n")
	o.call("shell", map[string]any{"command": []string{"/tmp/x/bash", "-lc", "go mod tidy"}, "workdir": o.root}, "Exit code: 0\nWall time: 1 seconds\nOutput:\n")
	o.call("shell", map[string]any{"command": []string{"go", "vet", "-tags=x", "./..."}, "workdir": o.root}, "Exit code: 0\nWall time: 1 seconds\nOutput:\n")
	o.call("shell", map[string]any{"command": []string{"bash", "-lc", "go build ./..."}, "workdir": o.root}, "Exit code: 0\nWall time: 1 seconds\nOutput:\n")
	got := o.read()
	for _, cmd := range []string{"cargo test", "go test ./...", "pytest tests/", "go mod tidy"} {
		if r := got.Lookup(cmd); r != nil {
			t.Errorf("%q witnessed by an argv that ran another command: %+v", cmd, r)
		}
	}
	for _, cmd := range []string{"go vet -tags=x ./...", "go build ./..."} {
		if r := got.Lookup(cmd); r == nil || r.Status != StatusPassed {
			t.Errorf("%q: %+v", cmd, r)
		}
	}
}

// TestAttackExecShell (R40): exec_command takes the shell to run cmd with from the model; a
// program of the agent's named bash, or sh (where `set -o pipefail;` may fail and the pipeline's
// exit is its last stage's), is not the shell the witness rules read.
func TestAttackExecShell(t *testing.T) {
	o := newRollout(t)
	out := "Chunk ID: 1\nWall time: 1 seconds\nProcess exited with code 0\nOutput:\n"
	o.call("exec_command", map[string]any{"cmd": "go test ./...", "shell": "/tmp/x/bash", "workdir": o.root}, out)
	o.call("exec_command", map[string]any{"cmd": "set -o pipefail; go vet ./... | tail -3", "shell": "sh", "workdir": o.root}, out)
	o.call("shell", map[string]any{"command": []string{"sh", "-c", "set -o pipefail; go mod tidy | tail -3"}, "workdir": o.root}, "Exit code: 0\nWall time: 1 seconds\nOutput:\n")
	o.call("exec_command", map[string]any{"cmd": "go build ./...", "shell": "/bin/bash", "workdir": o.root}, out)
	o.call("exec_command", map[string]any{"cmd": "go list ./...", "shell": "zsh", "workdir": o.root}, out)
	got := o.read()
	for _, cmd := range []string{"go test ./...", "go vet ./...", "go mod tidy"} {
		if r := got.Lookup(cmd); r != nil && r.Status == StatusPassed {
			t.Errorf("%q witnessed passing through another shell: %+v", cmd, r)
		}
	}
	for _, cmd := range []string{"go build ./...", "go list ./..."} {
		if r := got.Lookup(cmd); r == nil || r.Status != StatusPassed {
			t.Errorf("%q: %+v", cmd, r)
		}
	}
}

// TestAttackWrappers (R41): a failing go test ./... wrapped so that the call exits 0 never
// witnesses go test ./... passing.
func TestAttackWrappers(t *testing.T) {
	for _, cmd := range []string{
		"! go test ./...",
		"go test ./... || true",
		"go test ./... || exit 0",
		"go test ./...; true",
		"go test ./... 2>&1 || :",
		"{ go test ./...; } || true",
		"(go test ./...) || true",
		"alias go=true; go test ./...",
		"go() { :; }; go test ./...",
		"function go { :; } && go test ./...",
		"true && go test ./... || true",
		"cd . && go test ./... || true",
		"set -o pipefail && go test ./... || true",
		"time go test ./... || true",
		"GOFLAGS=-run=NONE go test ./...",
		"trap 'exit 0' EXIT && go test ./...",
		"go test ./... # \n true",
		"cd /tmp && go test ./...",
		"cd $HOME/clone && go test ./...",
		"bash -c 'go test ./... || true'",
		"go test ./... &",
		"go test ./... > >(cat) || true",
	} {
		s := newSession(t)
		s.run(s.root, bash(cmd), 0)
		if r := s.read().Lookup("go test ./..."); r != nil && r.Status == StatusPassed {
			t.Errorf("%q witnesses go test ./... passing", cmd)
		}
	}
	s := newSession(t)
	s.run(s.root, bash("cd "+s.root+" && go test ./... 2>&1"), 0)
	if r := s.read().Lookup("go test ./..."); r == nil || r.Status != StatusPassed {
		t.Errorf("the plain run is not witnessed: %+v", r)
	}
}

// TestStandNamesFirstLaterRun: with several commands after the witnessed run, the reason names
// the earliest, the same on every call, since it reaches audit.md.
func TestStandNamesFirstLaterRun(t *testing.T) {
	s := newSession(t)
	s.run(s.root, bash("go test ./..."), 0)
	for _, cmd := range []string{"make a", "make b", "make c", "make d"} {
		s.run(s.root, bash(cmd), 0)
	}
	got := s.read()
	for range 50 {
		if _, why := got.Stand("go test ./...", nil); !strings.HasPrefix(why, `"make a" ran after`) {
			t.Fatalf("why = %q, want the earliest later run, make a", why)
		}
	}
}
