// Command mastermind is a git-aware, fail-closed post-flight controller for AI coding agents.
// See internal/cli for the command tree and the exit-code table.
package main

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/mastermind-controller/mastermind/internal/cli"
)

func main() {
	delayFirstGC()
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// delayFirstGC makes the collector's first cycle wait for about 12 MiB of heap instead of 4 MiB
// and then restores the usual pacing, so a run that allocates less, as most do, never collects
// and a larger one collects as before (gitscope.md §8.3). A GOGC the user set is kept.
func delayFirstGC() {
	const usual, first = 100, 300 // Go's first goal is 4 MiB times GOGC/100
	if old := debug.SetGCPercent(first); old != usual {
		debug.SetGCPercent(old) // GOGC was set: keep it
		return
	}
	// The sentinel is unreachable at once: the first cycle queues its cleanup.
	runtime.AddCleanup(new([64]byte), func(int) { debug.SetGCPercent(usual) }, 0)
}
