// Command kill9 is the kill -9 fault loop of docs/hardening.md ("Faults and concurrency"). For
// each scenario it starts a mastermind command N times, kills it with SIGKILL after a random
// delay of 0–50 ms, and checks every file mastermind writes: each is the old or a new complete
// version (state.json parses with postflight.ParseState, the events chain verifies, the dispatch
// counter decodes strictly, audit.md, release notes, history reviews and _lessons.md are whole),
// never a mix; and the same command run to completion afterwards succeeds with its usual exit
// code despite any temporary file or lock the kill left behind.
//
// Usage (scripts/faults/kill9.sh builds the binary and runs this):
//
//	go run ./scripts/faults/kill9 -bin /path/to/mastermind [-n 50] [-seed 1] [-keep DIR]
//
// Exit status: 0 when every check passed, 1 when one failed, 2 on a set-up error.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mastermind-controller/mastermind/internal/contracts/forge"
)

// scenario is one command the loop kills.
type scenario struct {
	name string
	// args returns the command of iteration i and the exit codes a complete run may give.
	args func(i int) ([]string, []int)
	// prepare changes the inputs before iteration i (nil: nothing).
	prepare func(dir string, i int) error
	// deterministic lists files whose content after the kill must be byte-equal to the old or
	// to the recovered version (the run's output depends only on its inputs).
	deterministic []string
}

var heldOutputs = []string{taskHeld + "/audit.md", taskHeld + "/history-review.md", ".mastermind/releases/001-greet.md"}

var scenarios = []scenario{
	{name: "run-task", prepare: func(dir string, i int) error { return helperVersion(dir, i) },
		args: func(i int) ([]string, []int) {
			if i%3 == 2 { // a re-pre-flight: revoke, then approve (two state writes)
				return []string{"run-task", taskHeld + "/spec.md", "--pre-only", "--max-iterations", "0"}, []int{0}
			}
			return []string{"run-task", taskHeld + "/spec.md", "--post-only"}, []int{0}
		}, deterministic: heldOutputs},
	{name: "run-task broken (lessons)", args: func(int) ([]string, []int) {
		return []string{"run-task", taskBroken + "/spec.md", "--post-only"}, []int{1}
	}},
	{name: "gate --record", prepare: func(dir string, i int) error { return helperVersion(dir, 1000+i) },
		args:          func(int) ([]string, []int) { return []string{"gate", "--record"}, []int{1} },
		deterministic: heldOutputs},
	{name: "forge-report ingest", args: func(int) ([]string, []int) {
		return []string{"forge-report", "ingest", "run1", "in/report.md", "--agent", "a"}, []int{0}
	}},
	{name: "filter --dispatch", args: func(i int) ([]string, []int) {
		if i%4 == 3 {
			return []string{"filter", "--brief", "in/brief.md", "--dispatch", dispatchID, "in/good.txt"}, []int{0}
		}
		return []string{"filter", "--brief", "in/brief.md", "--dispatch", dispatchID, "in/bad.txt"}, []int{1, 4}
	}},
}

// figures are one scenario's counts.
type figures struct {
	Scenario                 string
	Iterations, Killed, Done int // killed mid-run, or finished before the signal
	Old, New, Intermediate   int // file versions found after the kills
	Temps, WALs, Locks       int // stray temporary files, WALs recovered, forge locks taken over
	Busy                     int // reruns refused as busy right after a kill (then retried)
	Failures                 []string
}

// config runs the loop: Bin is the mastermind binary, Env is added to its environment.
type config struct {
	Bin   string
	Env   []string
	N     int
	Seed  uint64
	Dir   string
	Log   io.Writer
	Delay time.Duration // the maximum random delay before SIGKILL (50 ms)
}

func run(cfg config) ([]figures, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	env, err := setupRepo(cfg.Dir, cfg.Bin, cfg.Env)
	if err != nil {
		return nil, err
	}
	reviews := map[string]bool{}
	var all []figures
	for _, sc := range scenarios {
		f := figures{Scenario: sc.name, Iterations: cfg.N}
		var lastRun time.Duration
		for i := 0; i < cfg.N; i++ {
			if sc.prepare != nil {
				if err := sc.prepare(cfg.Dir, i); err != nil {
					return all, err
				}
			}
			args, codes := sc.args(i)
			old, err := takeSnapshot(cfg.Dir)
			if err != nil {
				return all, err
			}
			noteReviews(old, reviews)
			cmd := exec.Command(cfg.Bin, args...)
			cmd.Dir, cmd.Env = cfg.Dir, env
			if err := cmd.Start(); err != nil {
				return all, err
			}
			// Half the kills land anywhere in 0–Delay; the other half within the time a complete
			// run took last (at most Delay), where the writes are.
			window := cfg.Delay
			if i%2 == 1 && lastRun > 0 && lastRun < window {
				window = lastRun
			}
			time.Sleep(time.Duration(rng.Int64N(int64(window) + 1)))
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				f.Killed++
			} else {
				f.Done++
			}
			after, err := takeSnapshot(cfg.Dir)
			if err != nil {
				return all, err
			}
			noteReviews(after, reviews)
			for _, p := range checkComplete(after, reviews) {
				f.Failures = append(f.Failures, fmt.Sprintf("iteration %d after the kill: %s", i, p))
			}
			f.Temps += len(after.temps) - len(old.temps)
			if _, ok := after.files[forgeRun+"/"+forge.WALFile]; ok {
				f.WALs++
			}
			if lock := filepath.Join(cfg.Dir, forgeRun, forge.LockFile); exists(lock) {
				// The killed writer's pid is dead: age its lock past the 10 s stale limit so the
				// next ingest takes it over now (the protocol of agent-contracts.md §1.7).
				f.Locks++
				t := time.Now().Add(-20 * time.Second)
				_ = os.Chtimes(lock, t, t)
			}
			// The same command to completion: it must not be broken by what the kill left. A
			// child the killed process was forking (to run git) shares its flock descriptor until
			// it execs, so the controller lock can stay busy for a moment after the kill: that
			// refusal (exit 3, "busy") is retried for up to 5 s and counted.
			var out []byte
			var code int
			for deadline := time.Now().Add(5 * time.Second); ; {
				rec := exec.Command(cfg.Bin, args...)
				rec.Dir, rec.Env = cfg.Dir, env
				start := time.Now()
				out, _ = rec.CombinedOutput()
				lastRun = time.Since(start)
				code = rec.ProcessState.ExitCode()
				if code != 3 || !bytes.Contains(out, []byte("is busy")) || time.Now().After(deadline) {
					break
				}
				f.Busy++
				time.Sleep(50 * time.Millisecond)
			}
			if !slices.Contains(codes, code) {
				f.Failures = append(f.Failures, fmt.Sprintf("iteration %d: the run after the kill exited %d, want %v:\n%s", i, code, codes, out))
			}
			final, err := takeSnapshot(cfg.Dir)
			if err != nil {
				return all, err
			}
			noteReviews(final, reviews)
			for _, p := range checkComplete(final, reviews) {
				f.Failures = append(f.Failures, fmt.Sprintf("iteration %d after the recovery run: %s", i, p))
			}
			classify(&f, i, old, after, final, sc.deterministic)
		}
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "%-26s %4d runs: %3d killed mid-run, %3d done first; files: %4d old, %4d new, %3d intermediate; %3d stray temp files, %2d WALs, %2d stale locks, %2d busy reruns; %d failures\n",
				f.Scenario, f.Iterations, f.Killed, f.Done, f.Old, f.New, f.Intermediate, f.Temps, f.WALs, f.Locks, f.Busy, len(f.Failures))
			for _, p := range f.Failures {
				fmt.Fprintln(cfg.Log, "  FAIL", p)
			}
		}
		all = append(all, f)
	}
	return all, nil
}

// classify counts, for each file the run writes anew in this iteration, whether the version
// left by the kill is the old one, the one a complete run writes, or another complete version
// (an intermediate state, or a count a complete run advanced twice). A deterministic file must
// be the old or the new version.
func classify(f *figures, i int, old, after, final snapshot, deterministic []string) {
	for rel, got := range after.files {
		prev, hadOld := old.files[rel]
		next := final.files[rel]
		if hadOld && string(prev) == string(next) && string(got) == string(prev) {
			continue // a file this run does not change
		}
		switch {
		case hadOld && string(got) == string(prev):
			f.Old++
		case string(got) == string(next):
			f.New++
		case slices.Contains(deterministic, rel):
			f.Failures = append(f.Failures, fmt.Sprintf("iteration %d: %s is neither the old nor the new version", i, rel))
		default:
			f.Intermediate++
		}
	}
	for rel := range old.files {
		// The store prunes mirror copies no record names any more (internal/store pruneCopies).
		pruned := strings.HasPrefix(rel, storeTop+"/") && strings.Contains(rel, "/mirrors/")
		if _, ok := after.files[rel]; !ok && !pruned && filepath.Base(rel) != forge.WALFile && filepath.Base(rel) != forge.LockFile {
			f.Failures = append(f.Failures, fmt.Sprintf("iteration %d: %s disappeared", i, rel))
		}
	}
}

func noteReviews(s snapshot, reviews map[string]bool) {
	if data, ok := s.files[taskHeld+"/history-review.md"]; ok {
		reviews[string(data)] = true
	}
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func main() {
	bin := flag.String("bin", "", "the mastermind binary (required)")
	n := flag.Int("n", 50, "iterations per scenario")
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()), "random seed for the kill delays")
	keep := flag.String("keep", "", "build the repository in this directory and keep it")
	flag.Parse()
	if *bin == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: kill9 -bin MASTERMIND [-n N] [-seed S] [-keep DIR]")
		os.Exit(2)
	}
	dir := *keep
	if dir == "" {
		tmp, err := os.MkdirTemp("", "mastermind-kill9-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer os.RemoveAll(tmp)
		defer os.RemoveAll(storeDir(tmp))
		dir = tmp
	}
	abs, _ := filepath.Abs(*bin)
	fmt.Printf("kill9: seed %d, %d iterations per scenario, SIGKILL after 0–50 ms, repository %s\n", *seed, *n, dir)
	figs, err := run(config{Bin: abs, N: *n, Seed: *seed, Dir: dir, Log: os.Stdout, Delay: 50 * time.Millisecond})
	if err != nil {
		fmt.Fprintln(os.Stderr, "kill9: set-up failed:", err)
		os.Exit(2)
	}
	failed := 0
	for _, f := range figs {
		failed += len(f.Failures)
	}
	if failed > 0 {
		fmt.Printf("kill9: %d failures\n", failed)
		os.Exit(1)
	}
	fmt.Println("kill9: every file was the old or a new complete version; every run after a kill succeeded")
}
