// Command mastermind is a git-aware, fail-closed post-flight controller for AI coding agents.
// See internal/cli for the command tree and the exit-code table.
package main

import (
	"os"
	"runtime"

	"github.com/mastermind-controller/mastermind/internal/cli"
)

func main() {
	// A never-touched 8 MiB floor raises Go's first heap goal from 4 to about 16 MiB, so most
	// runs collect only once, at start, over nothing (gitscope.md §8.3).
	floor := make([]byte, 8<<20)
	code := cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	runtime.KeepAlive(floor)
	os.Exit(code)
}
