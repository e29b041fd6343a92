package postflight

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Fault tests (docs/hardening.md, "Faults and concurrency"): a read-only task folder, a full
// disk, two controllers on one task and concurrent lesson upserts. The mount-based tests need
// root and mount(2); elsewhere they skip and say why. As root, chmod does not stop writes, so a
// read-only bind mount stands in for a read-only folder.

// heldTask builds the cache task, runs a held post-flight, then changes the work so that the
// next post-flight has a new history snapshot (every artifact is rewritten and the review
// archived). It returns the repository root, the options and the task folder.
func heldTask(t *testing.T) (string, Options, string) {
	t.Helper()
	root, opts := newTaskRepo(t)
	writeFile(t, root, "internal/cache/cache.go", "package cache\n\nfunc Get() {}\n")
	writeFile(t, root, "internal/cache/lru.go", "package cache\n")
	writeFile(t, root, "docs/cache.md", "# Cache\n\nLRU.\n")
	writeFile(t, root, reportRel, reportText([]string{"docs/cache.md", "internal/cache/cache.go", "internal/cache/lru.go"}, ""))
	if res := run(t, opts, ModePostOnly); res.Outcome != OutcomePostHeld {
		t.Fatalf("post-flight: %s\n%s", res.Outcome, res.Message)
	}
	writeFile(t, root, "internal/cache/lru.go", "package cache\n\n// v2\n")
	return root, opts, filepath.Join(root, ".mastermind", "tasks", "020-cache")
}

// readTree returns every file under dir by relative path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, want, got map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s changed", k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s appeared", k)
		}
	}
}

// mountOrSkip runs mount(2) and skips the test when it is not permitted here.
func mountOrSkip(t *testing.T, source, target, fstype string, flags uintptr, data string) {
	t.Helper()
	if err := syscall.Mount(source, target, fstype, flags, data); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
			t.Skipf("mount %s on %s is not permitted here (%v); run as root to test this fault", fstype, target, err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(target, syscall.MNT_DETACH) })
}

// TestReadOnlyTaskFolderFault: with the task folder read-only (a read-only bind mount), every
// phase fails with an operational error (exit 3) naming state.json, and the folder is unchanged
// byte for byte — no state, audit or temporary file is half-written.
func TestReadOnlyTaskFolderFault(t *testing.T) {
	_, opts, dir := heldTask(t)
	before := readTree(t, dir)
	mountOrSkip(t, dir, dir, "", syscall.MS_BIND, "")
	mountOrSkip(t, "", dir, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, "")
	if err := os.WriteFile(filepath.Join(dir, "probe"), nil, 0o644); err == nil {
		t.Skip("the read-only bind mount still accepts writes here")
	}
	for _, mode := range []Mode{ModePostOnly, ModePreOnly, ModeAuto} {
		opts.Mode = mode
		res, err := Run(context.Background(), opts)
		if err == nil || res.Outcome != OutcomeError {
			t.Fatalf("mode %d: outcome %s, err %v; want an operational error", mode, res.Outcome, err)
		}
		if !strings.Contains(err.Error(), "state.json") || !strings.Contains(err.Error(), "read-only file system") {
			t.Errorf("mode %d: the error does not say what failed: %v", mode, err)
		}
	}
	sameTree(t, before, readTree(t, dir))
}

var tempName = regexp.MustCompile(`(^|/)\.[^/]+([0-9]+|\.[0-9a-f]{32})$`)

// TestFullDiskFault: the task folder on a 64 KiB tmpfs with 0, 1 or 2 pages left. A post-flight
// either completes (held, exit 0) or fails with an operational error (exit 3); either way
// state.json is a complete, valid state (the old one, or the audit_required state post-flight
// persists first, §4 step 1), no temporary file is left, and with no space at all the folder is
// unchanged byte for byte. After space is freed, the same post-flight completes.
func TestFullDiskFault(t *testing.T) {
	for _, free := range []int64{0, 4096, 8192} {
		t.Run(fmt.Sprintf("%d bytes free", free), func(t *testing.T) {
			root, opts, dir := heldTask(t)
			saved := readTree(t, dir)
			// The tmpfs is mounted outside the work tree and its subfolder bound onto the task
			// folder: the filler must be on the task folder's file system but not in the work
			// tree, where any file is a changed path (trust-model.md I3: no name is left out
			// for a filler) and would turn the held verdict broken.
			fsDir := t.TempDir()
			mountOrSkip(t, "tmpfs", fsDir, "tmpfs", 0, "size=64k")
			if err := os.Mkdir(filepath.Join(fsDir, "task"), 0o755); err != nil {
				t.Fatal(err)
			}
			mountOrSkip(t, filepath.Join(fsDir, "task"), dir, "", syscall.MS_BIND, "")
			for rel, text := range saved {
				writeFile(t, dir, rel, text)
			}
			var fs syscall.Statfs_t
			if err := syscall.Statfs(dir, &fs); err != nil {
				t.Fatal(err)
			}
			filler := filepath.Join(fsDir, "filler.bin")
			if n := int64(fs.Bavail)*fs.Bsize - free; n > 0 {
				f, err := os.Create(filler)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = f.Write(make([]byte, n)) // fills the disk; ENOSPC at the end is expected
				f.Close()
			}
			before := readTree(t, dir)
			res, err := Run(context.Background(), Options{Git: opts.Git, SpecArg: taskSpec, MaxIterations: DefaultMaxIterations, Now: fixedNow, Mode: ModePostOnly})
			if err != nil && (res.Outcome != OutcomeError || !strings.Contains(err.Error(), "no space left on device")) {
				t.Fatalf("outcome %s, err %v; want an operational error naming the full disk", res.Outcome, err)
			}
			if err == nil && res.Outcome != OutcomePostHeld {
				t.Fatalf("outcome %s", res.Outcome)
			}
			after := readTree(t, dir)
			for rel := range after {
				if tempName.MatchString(rel) {
					t.Errorf("temporary file %s left behind", rel)
				}
			}
			st, lerr := LoadState(filepath.Join(dir, "state.json"), "state.json", taskSpec)
			if lerr != nil || st == nil {
				t.Fatalf("state after the fault: %v", lerr)
			}
			if err != nil && after["state.json"] != before["state.json"] && st.Status != StatusAuditRequired {
				t.Fatalf("state after a failed post-flight is %s, want the old state or audit_required", st.Status)
			}
			if free == 0 {
				sameTree(t, before, after)
			}
			os.Remove(filler)
			if res := run(t, Options{Git: opts.Git, SpecArg: taskSpec, MaxIterations: DefaultMaxIterations, Now: fixedNow}, ModePostOnly); res.Outcome != OutcomePostHeld {
				t.Fatalf("after freeing space: %s\n%s", res.Outcome, res.Message)
			}
			_ = root
		})
	}
}

// TestTwoControllersFault runs two post-flights of one task at once, many times: each run either
// completes or fails at once with the busy-lock error (exit 3), and the state always validates.
func TestTwoControllersFault(t *testing.T) {
	_, opts, dir := heldTask(t)
	busy, done := 0, 0
	for i := 0; i < 20; i++ {
		writeFile(t, opts.Git.Root(), "internal/cache/lru.go", fmt.Sprintf("package cache\n\n// v%d\n", i))
		var wg sync.WaitGroup
		errs := make([]error, 2)
		outcomes := make([]OutcomeKind, 2)
		for g := 0; g < 2; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				o := opts
				o.Mode = ModePostOnly
				res, err := Run(context.Background(), o)
				errs[g], outcomes[g] = err, res.Outcome
			}(g)
		}
		wg.Wait()
		for g, err := range errs {
			var lb *LockBusyError
			switch {
			case err == nil && outcomes[g] == OutcomePostHeld:
				done++
			case errors.As(err, &lb) && outcomes[g] == OutcomeError && strings.Contains(err.Error(), "task controller is busy"):
				busy++
			default:
				t.Fatalf("round %d: outcome %s, err %v", i, outcomes[g], err)
			}
		}
		if _, err := LoadState(filepath.Join(dir, "state.json"), "state.json", taskSpec); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
	}
	if done < 20 {
		t.Fatalf("only %d of 40 runs completed (each round must complete at least one)", done)
	}
	t.Logf("40 runs: %d completed, %d refused as busy", done, busy)
}

// TestConcurrentLessonsFault runs post-flights of four tasks whose reports are missing at the
// same time, five rounds: every run upserts its own _lessons.md entry under the lessons lock, and
// no update is lost (each entry counts exactly five occurrences).
func TestConcurrentLessonsFault(t *testing.T) {
	root, opts := newTaskRepo(t)
	tasks := []string{"031-a", "032-b", "033-c", "034-d"}
	for _, name := range tasks {
		writeFile(t, root, ".mastermind/tasks/"+name+"/spec.md", strings.Replace(specText, "id: '020'", "id: '"+name[:3]+"'", 1))
	}
	for _, name := range tasks {
		o := opts
		o.SpecArg = ".mastermind/tasks/" + name + "/spec.md"
		if res := run(t, o, ModePreOnly); res.Outcome != OutcomePreReady {
			t.Fatalf("%s pre-flight: %s\n%s", name, res.Outcome, res.Message)
		}
	}
	const rounds = 5
	for r := 0; r < rounds; r++ {
		// Each round changes the work, so that every post-flight audits (unchanged inputs are a
		// read, lifecycle-v2.md §5).
		writeFile(t, root, "round.txt", fmt.Sprintf("round %d\n", r))
		var wg sync.WaitGroup
		for _, name := range tasks {
			wg.Add(1)
			go func(name string) {
				defer wg.Done()
				o := opts
				o.SpecArg, o.Mode = ".mastermind/tasks/"+name+"/spec.md", ModePostOnly
				res, err := Run(context.Background(), o)
				if err != nil || res.Outcome != OutcomePostBroken || len(res.Warnings) > 0 {
					t.Errorf("%s: %v %s %v", name, err, res.Outcome, res.Warnings)
				}
			}(name)
		}
		wg.Wait()
	}
	data, err := os.ReadFile(filepath.Join(root, ".mastermind", "tasks", "_lessons.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range tasks {
		entry := regexp.MustCompile(`(?s)## ` + LessonID(name, LessonAuditContractFailure) + `\n.*?- \*\*Occurrences:\*\* ([0-9]+)\n`).FindSubmatch(data)
		if entry == nil || string(entry[1]) != fmt.Sprint(rounds) {
			t.Errorf("%s: occurrences %q, want %d\n%s", name, entry, rounds, data)
		}
	}
}
