package cli

import (
	"fmt"
	"io"
	"runtime/debug"
)

// Main runs the mastermind command line with args (without the program name) and returns the exit
// code. It is the only entry point: nothing else calls os.Exit. A panic is recovered, its stack
// printed to stderr, and 3 returned.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "mastermind: internal error (a bug; please report it): %v\n%s", r, debug.Stack())
			code = ExitOperational
		}
	}()
	streams := systemStreams(stdin, stdout, stderr)
	root := NewRootCmd(streams)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	if !silent(err) {
		fmt.Fprintf(stderr, "mastermind: %s\n", err)
		if _, ok := err.(*UsageError); ok {
			fmt.Fprintln(stderr, "Run 'mastermind --help' for usage.")
		}
	}
	return exitCodeFor(err)
}
