package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// Main runs the mastermind command line with args, without the program name, and returns the exit
// code. It is the only entry point: nothing else calls os.Exit. A panic is recovered, its stack
// printed to stderr, and 3 returned.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(context.Background(), args, stdin, stdout, stderr, true)
}

// run is Main with the command's context; usageHint adds the line pointing at --help after a
// usage error, which the MCP server leaves out of what it relays.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, usageHint bool) (code int) {
	// With MASTERMIND_DEBUG_RSS=1, print the peak RSS just before exit (gitscope.md §8.2 item 5).
	defer gitscope.ReportPeakRSS(stderr)
	defer writeMemProfile()
	defer startCPUProfile()()
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "mastermind: internal error (a bug; please report it): %v\n%s", r, debug.Stack())
			code = ExitOperational
		}
	}()
	streams := systemStreams(stdin, stdout, stderr)
	root := NewRootCmd(streams)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	if !silent(err) {
		fmt.Fprintf(stderr, "mastermind: %s\n", textsafe.Escape(err.Error()))
		if _, ok := err.(*UsageError); ok && usageHint {
			// The hint names the command whose usage was wrong: its own help has its flags.
			path := root.Name()
			if cmd != nil {
				path = cmd.CommandPath()
			}
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", path)
		}
	}
	return exitCodeFor(err)
}
