package filter

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Fault tests (docs/hardening.md, "Faults and concurrency") for the dispatch counter: several
// processes recording at once, and SIGKILL during a record.

// TestHelperCounterProcess is the child of the tests below: it records FILTER_HELPER_N
// rejections (forever when 0) on dispatch t1. It does nothing in a normal run.
func TestHelperCounterProcess(t *testing.T) {
	root := os.Getenv("FILTER_HELPER_ROOT")
	if root == "" {
		t.Skip("helper process only")
	}
	n, _ := strconv.Atoi(os.Getenv("FILTER_HELPER_N"))
	for i := 0; n == 0 || i < n; i++ {
		if _, _, err := Record(root, "t1", []byte(fmt.Sprint(i)), &Result{Variant: VariantComplete}, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func helper(root string, n int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCounterProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FILTER_HELPER_ROOT="+root, "FILTER_HELPER_N="+strconv.Itoa(n))
	return cmd
}

func readCounter(t *testing.T, root string) Counter {
	t.Helper()
	data, err := os.ReadFile(CounterPath(root, "t1"))
	if err != nil {
		t.Fatal(err)
	}
	var c Counter
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("the counter does not parse: %v\n%s", err, data)
	}
	return c
}

// TestConcurrentRecordFault: four processes record ten rejections each on one dispatch at once;
// the lock serialises them, so no update is lost: total_rejections is 40 and the kept attempts
// are numbered 21..40 without a gap.
func TestConcurrentRecordFault(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	root := t.TempDir()
	var wg sync.WaitGroup
	for p := 0; p < 4; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := helper(root, 10).CombinedOutput(); err != nil {
				t.Errorf("%v\n%s", err, out)
			}
		}()
	}
	wg.Wait()
	c := readCounter(t, root)
	if c.TotalRejections != 40 || c.ConsecutiveRejections != 40 || len(c.Attempts) != MaxAttempts {
		t.Fatalf("lost updates: %+v", c)
	}
	for i, a := range c.Attempts {
		if a.N != 21+i {
			t.Fatalf("attempt %d is numbered %d", i, a.N)
		}
	}
}

// TestKillDuringRecordFault kills a recording process with SIGKILL after a random 0–50 ms: the
// counter always parses, its attempts stay contiguous, and the next record (over any stray
// temporary file, with the lock released by the kill) adds exactly one rejection.
func TestKillDuringRecordFault(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	root := t.TempDir()
	if _, _, err := Record(root, "t1", nil, &Result{Variant: VariantComplete}, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		cmd := helper(root, 0)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(51)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		before := readCounter(t, root)
		c, _, err := Record(root, "t1", nil, &Result{Variant: VariantComplete}, nil)
		if err != nil {
			t.Fatalf("kill %d: the record after the kill failed: %v", i, err)
		}
		if c.TotalRejections != before.TotalRejections+1 {
			t.Fatalf("kill %d: total %d after %d", i, c.TotalRejections, before.TotalRejections)
		}
		for j := 1; j < len(c.Attempts); j++ {
			if c.Attempts[j].N != c.Attempts[j-1].N+1 {
				t.Fatalf("kill %d: attempts not contiguous: %+v", i, c.Attempts)
			}
		}
	}
}
