package cli

import (
	"os"
	"runtime"
	"runtime/pprof"
)

// DebugMemProfileEnv names a file to which Main writes a heap profile (pprof format; its
// alloc_space view lists every allocation of the run) just before exit. It is a developer's
// tool for the performance work of gitscope.md §8; unset, nothing is written or printed.
const DebugMemProfileEnv = "MASTERMIND_DEBUG_MEMPROFILE"

// writeMemProfile writes the heap profile when DebugMemProfileEnv names a file; errors are
// ignored, as the profile is never part of the command's result.
func writeMemProfile() {
	p := os.Getenv(DebugMemProfileEnv)
	if p == "" {
		return
	}
	f, err := os.Create(p)
	if err != nil {
		return
	}
	defer f.Close()
	runtime.GC()
	_ = pprof.Lookup("allocs").WriteTo(f, 0)
}
