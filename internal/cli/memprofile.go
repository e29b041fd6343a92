package cli

import (
	"os"
	"runtime"
	"runtime/pprof"
)

// DebugMemProfileEnv names a file to which Main writes a pprof heap profile just before exit. It is
// a developer's tool for the performance work of gitscope.md §8; unset, nothing is written.
const DebugMemProfileEnv = "MASTERMIND_DEBUG_MEMPROFILE"

// DebugCPUProfileEnv names a file to which Main writes a pprof CPU profile of the whole run, a
// developer's tool like DebugMemProfileEnv.
const DebugCPUProfileEnv = "MASTERMIND_DEBUG_CPUPROFILE"

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

// startCPUProfile starts the CPU profile when DebugCPUProfileEnv names a file and returns the
// function that stops it; errors are ignored, as the profile is never part of the result.
func startCPUProfile() (stop func()) {
	p := os.Getenv(DebugCPUProfileEnv)
	if p == "" {
		return func() {}
	}
	f, err := os.Create(p)
	if err != nil {
		return func() {}
	}
	if pprof.StartCPUProfile(f) != nil {
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
