package cli

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHookRecordNeverWrittenOutside (#26 item 5, trust-model.md I4, docs/hardening.md N1): while
// `hook run` blocks again and again, the executor swaps the task folder for a symbolic link to a
// folder outside the repository and back. The hook's loop-guard record used to be written by path
// after a symlink check, and a swap between the two put hook-block.json outside (a race won in
// under a hundred runs); it now lives in the controller store, and every write of the post-flight
// the hook runs goes through the task folder's handle, so nothing ever lands outside.
func TestHookRecordNeverWrittenOutside(t *testing.T) {
	runs := 300
	if testing.Short() {
		runs = 40
	}
	root := scratchRepo(t)
	if res := invoke(nil, "run-task", filepath.Join(root, ".mastermind/tasks/001-greet/spec.md"), "--pre-only", "--root", root); res.Code != 0 {
		t.Fatalf("pre-flight: %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	outside := t.TempDir()
	task := filepath.Join(root, ".mastermind", "tasks", "001-greet")
	aside := task + ".real"
	in := `{"hook_event_name":"Stop","cwd":"` + root + `","stop_hook_active":false}`
	// The swapping starts close to each run's end, where the post-flight has finished and the
	// record is written: at a random point in the last few milliseconds of a run as long as the
	// previous one took.
	rng := rand.New(rand.NewPCG(1, 26))
	last := 30 * time.Millisecond
	blocked, swapped := 0, 0
	for i := 0; i < runs; i++ {
		done := make(chan invocation, 1)
		var took time.Duration
		go func() {
			start := time.Now()
			r := invoke(strings.NewReader(in), "hook", "run", "--harness", "codex", "--root", root)
			took = time.Since(start)
			done <- r
		}()
		lead := time.Duration(rng.Int64N(int64(4 * time.Millisecond)))
		time.Sleep(max(0, last-lead))
		var res invocation
		select {
		case res = <-done:
		default:
			// Toggle the folder and the link until the run ends, so that some check sees the
			// folder and the write that follows it the link.
			swapped++
		toggle:
			for {
				if os.Rename(task, aside) == nil {
					_ = os.Symlink(outside, task)
					time.Sleep(20 * time.Microsecond)
					_ = os.Remove(task)
					if err := os.Rename(aside, task); err != nil {
						t.Fatal(err)
					}
				}
				select {
				case res = <-done:
					break toggle
				case <-time.After(20 * time.Microsecond):
				}
			}
		}
		last = took
		if res.Code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", i, res.Code, res.Stdout, res.Stderr)
		}
		if strings.Contains(string(res.Stdout), `"decision":"block"`) {
			blocked++
		}
		if names, _ := os.ReadDir(outside); len(names) > 0 {
			t.Fatalf("run %d (%d swapped) wrote %s outside the repository", i, swapped, names[0].Name())
		}
	}
	if blocked == 0 {
		t.Fatal("no run blocked: the race was never run")
	}
	if _, err := os.Lstat(filepath.Join(task, "hook-block.json")); !os.IsNotExist(err) {
		t.Errorf("hook-block.json in the task folder: %v", err)
	}
	t.Logf("%d hook runs, %d swapped while running, %d blocked, nothing written outside", runs, swapped, blocked)
}
