//go:build unix

package report

import (
	"syscall"
	"time"
)

// cpuTime is the process's user plus system CPU time. The benchmarks report it per operation
// (cpu-ns/op) beside the wall time, because on a shared machine the wall time of one run mostly
// measures the other load; CPU time includes the garbage collector's background work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
