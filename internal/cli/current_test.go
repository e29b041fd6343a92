package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mastermind-controller/mastermind/internal/postflight"
)

func TestCurrentTaskPointer(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".mastermind"), 0o755); err != nil {
		t.Fatal(err)
	}
	if task, err := readCurrentTask(root); task != "" || err != nil {
		t.Fatalf("no pointer: %q %v", task, err)
	}
	var warn bytes.Buffer
	updateCurrentTask(root, &postflight.Outcome{Outcome: postflight.OutcomePreReady, Task: postflight.Task{Name: "001-a"}}, &warn)
	if task, err := readCurrentTask(root); task != "001-a" || err != nil {
		t.Fatalf("after pre-flight: %q %v", task, err)
	}
	// Completing another task leaves the pointer alone; completing this one removes it.
	updateCurrentTask(root, &postflight.Outcome{Outcome: postflight.OutcomeCompleted, Task: postflight.Task{Name: "002-b"}}, &warn)
	if task, _ := readCurrentTask(root); task != "001-a" {
		t.Fatalf("another task's completion changed the pointer: %q", task)
	}
	// Other outcomes do not touch it.
	updateCurrentTask(root, &postflight.Outcome{Outcome: postflight.OutcomePostBroken, Task: postflight.Task{Name: "002-b"}}, &warn)
	updateCurrentTask(root, &postflight.Outcome{Outcome: postflight.OutcomeCompleted, Task: postflight.Task{Name: "001-a"}}, &warn)
	if _, err := os.Lstat(filepath.Join(root, ".mastermind", "current")); !os.IsNotExist(err) {
		t.Fatalf("pointer not removed on completion: %v", err)
	}
	if warn.Len() != 0 {
		t.Errorf("warnings: %s", warn.String())
	}
	// A symlinked pointer is refused, not followed.
	target := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(target, []byte("001-a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(root, ".mastermind", "current")); err != nil {
		t.Fatal(err)
	}
	if _, err := readCurrentTask(root); err == nil || !strings.Contains(err.Error(), "current-task pointer") {
		t.Errorf("symlinked pointer: %v", err)
	}
}

// TestNewCmdHookRun parses hook run flags without running anything. A usage mistake is never
// an error (exit 2): it prints the allow decision naming it, and nothing runs.
func TestNewCmdHookRun(t *testing.T) {
	tests := []struct {
		args    []string
		want    HookRunOptions
		wantMsg string
	}{
		{args: []string{"--harness", "claude"}, want: HookRunOptions{Harness: "claude", FailOn: "broken", Timeout: 600 * time.Second}},
		{args: []string{"--harness", "codex", "--task", "001-a", "--fail-on", "drift", "--fail-open", "--root", "r", "--timeout", "1390s"},
			want: HookRunOptions{Harness: "codex", Task: "001-a", FailOn: "drift", FailOpen: true, Root: "r", Timeout: 1390 * time.Second}},
		{args: nil, wantMsg: "--harness is required"},
		{args: []string{"--harness", "git"}, wantMsg: `--harness must be claude or codex, got \"git\"`},
		{args: []string{"--harness", "claude", "--fail-on", "held"}, wantMsg: `--fail-on must be broken or drift`},
		{args: []string{"--harness", "claude", "x"}, wantMsg: "takes no arguments"},
		{args: []string{"--harness", "claude", "--nope"}, wantMsg: "unknown flag: --nope"},
		{args: []string{"--harness", "claude", "--timeout", "-5s"}, wantMsg: "--timeout must be at least 1s"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var got *HookRunOptions
			io := testIO()
			err := execArgs(NewCmdHookRun(io, func(o *HookRunOptions) error { got = o; return nil }), tt.args)
			if err != nil {
				t.Fatalf("error %v: hook run never fails on its command line", err)
			}
			out := io.Out.(*bytes.Buffer).String()
			if tt.wantMsg != "" {
				if got != nil || !strings.HasPrefix(out, `{"systemMessage":"mastermind: the stop hook's command line is wrong (`) || !strings.Contains(out, tt.wantMsg) {
					t.Fatalf("ran %v; stdout %s, want the usage decision naming %q", got != nil, out, tt.wantMsg)
				}
				return
			}
			if got == nil {
				t.Fatalf("did not run; stdout %s", out)
			}
			if d := cmp.Diff(tt.want, *got, cmpopts.IgnoreFields(HookRunOptions{}, "IO", "Now")); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}

// TestCurrentPointerNeverWrittenThroughASymlinkedAncestor: the executor can turn .mastermind into
// a symbolic link (or swap it for one while a re-pre-flight runs, after the task folder was
// opened); the pointer is written and removed through a handle of .mastermind opened without
// following links, so nothing is written or removed outside the repository
// (docs/hardening.md A4).
func TestCurrentPointerNeverWrittenThroughASymlinkedAncestor(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, ".mastermind")); err != nil {
		t.Fatal(err)
	}
	if err := writeCurrentTask(root, "001-greet"); err == nil {
		t.Error("writeCurrentTask through a symlinked .mastermind succeeded")
	}
	if err := os.WriteFile(filepath.Join(outside, "current"), []byte("001-greet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, ".mastermind")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".mastermind"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeCurrentTask(root, "001-greet"); err != nil {
		t.Fatalf("honest control: %v", err)
	}
	if got, err := readCurrentTask(root); err != nil || got != "001-greet" {
		t.Fatalf("honest control: read %q, %v", got, err)
	}
	if err := os.Remove(filepath.Join(root, ".mastermind")); err == nil {
		t.Fatal("removed a non-empty .mastermind")
	}
	if err := os.Rename(filepath.Join(root, ".mastermind"), filepath.Join(root, ".mm-real")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".mastermind")); err != nil {
		t.Fatal(err)
	}
	_ = clearCurrentTask(root, "001-greet")
	names, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0].Name() != "current" {
		t.Errorf("outside the repository now holds %v, want only the planted current", names)
	}
}
