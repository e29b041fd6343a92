//go:build !windows

package verifyrun

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/spec"
)

// goModule writes a Go module into a new temporary directory: files maps a relative path to its
// content; go.mod is added.
func goModule(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	return writeFiles(t, files)
}

func run(t *testing.T, dir, cmd string, timeout time.Duration, opts Options) (*Receipt, error) {
	t.Helper()
	opts.Dir = dir
	return Run(context.Background(), spec.DeclaredCommand{Cmd: cmd, Timeout: timeout}, opts)
}

func mustRun(t *testing.T, dir, cmd string, timeout time.Duration, opts Options) *Receipt {
	t.Helper()
	r, err := run(t, dir, cmd, timeout, opts)
	if err != nil {
		t.Fatalf("Run(%q): %v", cmd, err)
	}
	return r
}

const passingTests = `package m

import "testing"

func TestA(t *testing.T) {}
func TestB(t *testing.T) { t.Run("sub", func(t *testing.T) {}) }
`

func TestGoTestHonestPass(t *testing.T) {
	dir := goModule(t, map[string]string{"m.go": "package m\n\nfunc F() int { return 1 }\n", "m_test.go": passingTests})
	var out bytes.Buffer
	r := mustRun(t, dir, "go test -count=1 -v ./...", time.Minute, Options{Output: &out, InputsFingerprint: "fp1"})
	if !r.Passed() || r.ExitCode != 0 || r.Runner != "go" || r.TestsRun == nil || *r.TestsRun != 3 || *r.TestsFailed != 0 {
		t.Fatalf("receipt %+v\n%s", r, out.String())
	}
	sum := sha256.Sum256(out.Bytes())
	if r.OutputSHA256 != hex.EncodeToString(sum[:]) || r.OutputBytes != int64(out.Len()) || r.OutputTail != out.String() {
		t.Errorf("output evidence differs from the stream: %d bytes, sha %s", r.OutputBytes, r.OutputSHA256)
	}
	if r.InputsFingerprint != "fp1" || r.SchemaVersion != 1 || r.TimeoutMS != 60000 || r.Cmd != "go test -count=1 -v ./..." {
		t.Errorf("receipt %+v", r)
	}
	if !strings.HasPrefix(r.Summary(), "ran by mastermind: exit 0, 3 tests, ") {
		t.Errorf("summary %q", r.Summary())
	}
	// Plain go test lists no passing test: the count is unknown, the failures are known (none).
	r = mustRun(t, dir, "go test -count=1 ./...", time.Minute, Options{})
	if !r.Passed() || r.TestsRun != nil || r.TestsFailed == nil || *r.TestsFailed != 0 {
		t.Errorf("plain receipt %+v", r)
	}
	// The receipt is JSON with the design's keys.
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"schema_version":1`, `"cmd":`, `"started_at":`, `"duration_ms":`, `"exit_code":0`,
		`"timed_out":false`, `"runner":"go"`, `"tests_failed":0`, `"output_tail":`, `"output_sha256":`, `"output_bytes":`, `"inputs_fingerprint":`} {
		if !strings.Contains(string(js), k) {
			t.Errorf("JSON lacks %s: %s", k, js)
		}
	}
	if strings.Contains(string(js), `"tests_run"`) || strings.Contains(string(js), `"signal"`) {
		t.Errorf("unknown fields must be absent: %s", js)
	}
}

func TestGoTestFailingSuite(t *testing.T) {
	dir := goModule(t, map[string]string{"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\nfunc TestBad(t *testing.T) { t.Fatal(\"boom\") }\n"})
	r := mustRun(t, dir, "go test -count=1 -json ./...", time.Minute, Options{})
	if r.Passed() || r.ExitCode != 1 || r.TestsRun == nil || *r.TestsRun != 2 || *r.TestsFailed != 1 {
		t.Fatalf("receipt %+v", r)
	}
	if !strings.Contains(r.OutputTail, "boom") {
		t.Errorf("tail lacks the failure: %q", r.OutputTail)
	}
}

func TestGoTestBuildFailure(t *testing.T) {
	dir := goModule(t, map[string]string{"m.go": "package m\n\nfunc F() int { return \"x\" }\n", "m_test.go": passingTests})
	r := mustRun(t, dir, "go test -count=1 ./...", time.Minute, Options{})
	if r.Passed() || r.ExitCode == 0 || !strings.Contains(r.LastLines(5), "FAIL") {
		t.Fatalf("receipt %+v", r)
	}
}

func TestGoTestCompilesButZeroTests(t *testing.T) {
	dir := goModule(t, map[string]string{"m.go": "package m\n\nfunc F() int { return 1 }\n",
		"sub/s_test.go": "package sub\n\nimport \"testing\"\n\nfunc helper(t *testing.T) {}\n"})
	for _, cmd := range []string{"go test -count=1 ./...", "go test -count=1 -v ./...", "go test -count=1 -json ./..."} {
		r := mustRun(t, dir, cmd, time.Minute, Options{})
		if !r.Passed() || r.TestsRun == nil || *r.TestsRun != 0 {
			t.Errorf("%s: receipt %+v", cmd, r)
		}
	}
}

// TestGoTestMainSkipsTheTests: a TestMain that exits 0 without m.Run() makes go test print "ok";
// with -v declared the receipt counts 0 tests (observed_zero_tests), with -json too.
func TestGoTestMainSkipsTheTests(t *testing.T) {
	dir := goModule(t, map[string]string{"m_test.go": "package m\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\n" +
		"func TestMain(m *testing.M) { os.Exit(0) }\n\nfunc TestA(t *testing.T) { t.Fatal(\"never runs\") }\n"})
	for _, cmd := range []string{"go test -count=1 -v ./...", "go test -count=1 -json ./..."} {
		r := mustRun(t, dir, cmd, time.Minute, Options{})
		if !r.Passed() || r.TestsRun == nil || *r.TestsRun != 0 {
			t.Errorf("%s: receipt %+v\n%s", cmd, r, r.OutputTail)
		}
	}
}

// pidAlive reports whether pid is a live (not zombie) process, from the process table.
func pidAlive(t *testing.T, pid int) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// groupMembers lists the live processes of process group pgid from /proc.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if n, cerr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && cerr == nil {
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// leaveChild is a command that starts a background sleeper, records the shell's pid (the group
// id) and the sleeper's, then does rest.
func leaveChild(dir, rest string) string {
	return "echo $$ > " + filepath.Join(dir, "group.pid") + "; sleep 300 & echo $! > " + filepath.Join(dir, "child.pid") + "; " + rest
}

func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	r := mustRun(t, dir, leaveChild(dir, "echo started; sleep 300"), 700*time.Millisecond, Options{})
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Run took %v", took)
	}
	if !r.TimedOut || r.Passed() || r.ExitCode != -1 || r.Signal != "SIGKILL" || !strings.Contains(r.OutputTail, "started") {
		t.Fatalf("receipt %+v", r)
	}
	if r.Outcome() != "timed out after 700ms" {
		t.Errorf("outcome %q", r.Outcome())
	}
	if pid := readPID(t, filepath.Join(dir, "child.pid")); pidAlive(t, pid) {
		t.Errorf("the background child %d outlived the timeout", pid)
	}
	if m := groupMembers(t, readPID(t, filepath.Join(dir, "group.pid"))); len(m) != 0 {
		t.Errorf("process group still has members %v", m)
	}
}

func TestNoOrphanAfterNormalExit(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	r := mustRun(t, dir, leaveChild(dir, "exit 0"), time.Minute, Options{})
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Run waited %v for a background child", took)
	}
	if !r.Passed() {
		t.Fatalf("receipt %+v", r)
	}
	if pid := readPID(t, filepath.Join(dir, "child.pid")); pidAlive(t, pid) {
		t.Errorf("the background child %d outlived the run", pid)
	}
}

func TestCancelKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		readPID(t, filepath.Join(dir, "child.pid"))
		cancel()
	}()
	start := time.Now()
	r, err := Run(ctx, spec.DeclaredCommand{Cmd: leaveChild(dir, "sleep 300"), Timeout: time.Minute}, Options{Dir: dir})
	if !errors.Is(err, ErrCanceled) || !errors.Is(err, context.Canceled) || r == nil {
		t.Fatalf("err %v, receipt %+v", err, r)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("cancel took %v", took)
	}
	if pid := readPID(t, filepath.Join(dir, "child.pid")); pidAlive(t, pid) {
		t.Errorf("the background child %d outlived the cancel", pid)
	}
	if m := groupMembers(t, readPID(t, filepath.Join(dir, "group.pid"))); len(m) != 0 {
		t.Errorf("process group still has members %v", m)
	}
	// A context that has ended already runs nothing.
	marker := filepath.Join(dir, "marker")
	if _, err := Run(ctx, spec.DeclaredCommand{Cmd: "touch " + marker}, Options{Dir: dir}); !errors.Is(err, ErrCanceled) {
		t.Errorf("err %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a canceled context still ran the command")
	}
}

func TestEnvironmentAndStdin(t *testing.T) {
	dir := goModule(t, map[string]string{"env_test.go": `package m

import (
	"os"
	"strings"
	"testing"
)

func TestNoGitOrMastermindEnv(t *testing.T) {
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") || strings.HasPrefix(name, "MASTERMIND_") {
			t.Errorf("%s is set", kv)
		}
	}
	if _, ok := os.LookupEnv("GIT_DIR"); ok {
		t.Error("GIT_DIR is set")
	}
	if os.Getenv("KEEP_ME") != "1" {
		t.Error("KEEP_ME lost")
	}
}
`})
	env := append(os.Environ(), "GIT_DIR=/nonexistent/.git", "GIT_WORK_TREE=/", "GIT_INDEX_FILE=/tmp/forged",
		"MASTERMIND_STATE_DIR=/tmp/store", "KEEP_ME=1")
	r := mustRun(t, dir, "go test -count=1 -v ./...", time.Minute, Options{Env: env})
	if !r.Passed() || r.TestsRun == nil || *r.TestsRun != 1 {
		t.Fatalf("receipt %+v\n%s", r, r.OutputTail)
	}
	// The shell sees the same environment, runs in the root, and reads stdin from the null
	// device (cat returns at once instead of waiting for a terminal).
	r = mustRun(t, dir, `cat; echo "dir=$(pwd) pwd=$PWD gitdir=${GIT_DIR-unset}"`, 10*time.Second, Options{Env: env})
	want := "dir=" + dir + " pwd=" + dir + " gitdir=unset\n"
	if !r.Passed() || r.OutputTail != want {
		t.Errorf("got %q, want %q", r.OutputTail, want)
	}
}

func TestEnviron(t *testing.T) {
	if got := Environ([]string{"PATH=.:/usr/bin::bin:/bin:"}, "/repo"); got[0] != "PATH=/usr/bin:/bin" {
		t.Errorf("relative PATH entries kept: %q", got)
	}
	got := Environ([]string{"PATH=/bin", "GIT_DIR=x", "git_dir=y", "Mastermind_X=1", "MASTERMIND=keep", "GITHUB_TOKEN=t", "PWD=/old", "noequals", "=C:=C:\\"}, "/repo")
	want := []string{"PATH=/bin", "MASTERMIND=keep", "GITHUB_TOKEN=t", "=C:=C:\\", "PWD=/repo"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestRelativePathEntryCannotShadowTheRunner: with "." first in PATH, a `go` the executor put in
// the repository root is not the one the declared command runs.
func TestRelativePathEntryCannotShadowTheRunner(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte("#!/bin/sh\necho forged\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	env := []string{"PATH=.:" + filepath.Dir(goBin) + ":/usr/bin:/bin", "HOME=" + os.Getenv("HOME")}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GOCACHE=") || strings.HasPrefix(kv, "GOPATH=") {
			env = append(env, kv)
		}
	}
	r := mustRun(t, dir, "go version", 30*time.Second, Options{Env: env})
	if strings.Contains(r.OutputTail, "forged") || !strings.HasPrefix(r.OutputTail, "go version go") {
		t.Errorf("output %q", r.OutputTail)
	}
}

// TestPathEntryInsideTheWorkTreeCannotShadowTheRunner: an absolute PATH entry inside the work
// tree (an activated .venv/bin, node_modules/.bin, a direnv PATH_add; usually ignored, so a file
// planted there is in no changed set), directly or through a symbolic link from outside, does not
// supply the runner; nor does an entry that does not exist.
func TestPathEntryInsideTheWorkTreeCannotShadowTheRunner(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "ignored", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/sh\necho forged\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "tools")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	for _, entry := range []string{bin, link, dir + "/ignored/../ignored/bin"} {
		env := []string{"PATH=" + entry + ":" + filepath.Dir(goBin) + ":/usr/bin:/bin", "HOME=" + os.Getenv("HOME")}
		for _, kv := range os.Environ() {
			if strings.HasPrefix(kv, "GOCACHE=") || strings.HasPrefix(kv, "GOPATH=") {
				env = append(env, kv)
			}
		}
		r := mustRun(t, dir, "go version", 30*time.Second, Options{Env: env})
		if strings.Contains(r.OutputTail, "forged") || !strings.HasPrefix(r.OutputTail, "go version go") {
			t.Errorf("PATH entry %s: output %q", entry, r.OutputTail)
		}
	}
	got := Environ([]string{"PATH=" + bin + ":/nonexistent/bin:" + link + ":/bin"}, dir)
	if got[0] != "PATH=/bin" {
		t.Errorf("got %q, want PATH=/bin", got[0])
	}
}

func TestTestWritesIntoTheWorkTree(t *testing.T) {
	dir := goModule(t, map[string]string{"w_test.go": "package m\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestWrite(t *testing.T) {\n\tif err := os.WriteFile(\"generated.txt\", []byte(\"x\"), 0o644); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n"})
	r := mustRun(t, dir, "go test -count=1 ./...", time.Minute, Options{})
	if !r.Passed() {
		t.Fatalf("receipt %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "generated.txt")); err != nil {
		t.Errorf("the run's write is not in the work tree (the runner must neither hide nor undo it): %v", err)
	}
}

func TestOutputBoundedTail(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	// 200,000 bytes of "a", then a multi-byte tail marker: the tail is the last 64 KiB.
	r := mustRun(t, dir, `head -c 200000 /dev/zero | tr '\0' a; printf 'é end\n' >&2`, 10*time.Second, Options{Output: &out})
	if r.OutputBytes != 200000+int64(len("é end\n")) || int64(out.Len()) != r.OutputBytes {
		t.Fatalf("bytes %d, stream %d", r.OutputBytes, out.Len())
	}
	if len(r.OutputTail) > TailBytes || !strings.HasSuffix(r.OutputTail, "é end\n") || len(r.OutputTail) < TailBytes-3 {
		t.Errorf("tail of %d bytes, ends %q", len(r.OutputTail), r.OutputTail[max(0, len(r.OutputTail)-10):])
	}
	sum := sha256.Sum256(out.Bytes())
	if r.OutputSHA256 != hex.EncodeToString(sum[:]) {
		t.Error("sha256 is not of the whole stream")
	}
}

func TestTailCutKeepsWholeRunes(t *testing.T) {
	r := newRecorder(nil, nil)
	_, _ = r.Write([]byte("x"))
	_, _ = r.Write(bytes.Repeat([]byte("é"), TailBytes)) // 2 bytes each: the cut falls mid-rune or not
	tail := r.tailBytes()
	if len(tail) > TailBytes || !strings.HasPrefix(string(tail), "é") {
		t.Errorf("tail of %d bytes starts %q", len(tail), tail[:4])
	}
	r = newRecorder(nil, nil)
	for i := 0; i < 3*TailBytes/7; i++ {
		_, _ = r.Write([]byte("abcdef\n"))
	}
	if len(r.tailBytes()) != TailBytes || r.n != int64(3*TailBytes/7*7) {
		t.Errorf("ring tail %d bytes of %d", len(r.tailBytes()), r.n)
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

func TestOutputWriteErrorIsReported(t *testing.T) {
	dir := t.TempDir()
	w := &failingWriter{}
	r, err := run(t, dir, "echo one; echo two", 10*time.Second, Options{Output: w})
	if err == nil || !strings.Contains(err.Error(), "disk full") || r == nil || !r.Passed() || r.OutputTail != "one\ntwo\n" {
		t.Fatalf("err %v, receipt %+v", err, r)
	}
	if w.n != 1 {
		t.Errorf("the failing writer was called %d times", w.n)
	}
}

func TestProgress(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var got []Progress
	mustRun(t, dir, "sleep 0.35", 10*time.Second, Options{ProgressEvery: 100 * time.Millisecond, Progress: func(p Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	}})
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 || !got[len(got)-1].Done || got[0].Done || got[0].Cmd != "sleep 0.35" || got[len(got)-1].Elapsed < 300*time.Millisecond {
		t.Errorf("progress %+v", got)
	}
}

func TestPlan(t *testing.T) {
	s, fs := spec.Parse([]byte("---\nmode: lite\nverify:\n  - cmd: go test ./...\n    run: true\n  - cmd: make e2e\n---\n# T\n\n## Goals\n\nG.\n\nVERIFY: `go vet ./...`\n"), "spec.md")
	if len(fs) != 0 {
		t.Fatal(fs)
	}
	names := func(ds []spec.DeclaredCommand) string {
		var n []string
		for _, d := range ds {
			n = append(n, d.Cmd)
		}
		return strings.Join(n, "|")
	}
	if got := names(Plan(s, false)); got != "go test ./..." {
		t.Errorf("run only: %q", got)
	}
	if got := names(Plan(s, true)); got != "go test ./...|make e2e|go vet ./..." {
		t.Errorf("all: %q", got)
	}
	if Plan(nil, true) != nil {
		t.Error("nil spec")
	}
}

func TestSignalEnded(t *testing.T) {
	r := mustRun(t, t.TempDir(), "kill -TERM $$", 10*time.Second, Options{})
	if r.Passed() || r.Signal != "SIGTERM" || r.ExitCode != -1 || r.Outcome() != "killed by SIGTERM" {
		t.Errorf("receipt %+v", r)
	}
	r = mustRun(t, t.TempDir(), "exit 7", 10*time.Second, Options{})
	if r.Passed() || r.ExitCode != 7 || r.Outcome() != "exit 7" {
		t.Errorf("receipt %+v", r)
	}
}
