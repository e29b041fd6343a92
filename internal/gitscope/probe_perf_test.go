//go:build perfprobe

package gitscope

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

func cpuNow() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

func TestProbe(t *testing.T) {
	dir, base := os.Getenv("PROBE_DIR"), os.Getenv("PROBE_BASE")
	r, err := Open(dir)
	must(t, err)
	st, err := r.GitDirStore("probe")
	must(t, err)
	ctx := context.Background()
	must(t, r.TakeSnapshot(ctx, base, st))
	for i := 0; i < 8; i++ {
		for _, mode := range []string{"plain", "since"} {
			r, _ := Open(dir)
			c0, w0 := cpuNow(), time.Now()
			var err error
			if mode == "plain" {
				_, err = r.ChangedSet(ctx, base)
			} else {
				_, err = r.ChangedSetSince(ctx, base, st)
			}
			must(t, err)
			t.Logf("%s cpu %v wall %v", mode, cpuNow()-c0, time.Since(w0))
		}
	}
}
