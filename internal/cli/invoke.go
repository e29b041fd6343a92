package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
)

// invocation is the result of running one mastermind command in-process.
type invocation struct {
	Stdout, Stderr []byte
	Code           int
}

// invoke runs `mastermind args...` in this process as Main would, with stdin in and buffered
// stdout and stderr, colour off and no pointer to --help. The MCP server uses it, so every call
// goes through the same command, envelope and exit-code table as the command line.
func invoke(in io.Reader, args ...string) invocation {
	return invokeContext(context.Background(), in, args...)
}

// invokeContext is invoke with the command's context: cancelling it stops the command as Ctrl-C
// would, killing a verify command's process group.
func invokeContext(ctx context.Context, in io.Reader, args ...string) invocation {
	if in == nil {
		in = strings.NewReader("")
	}
	var out, errOut bytes.Buffer
	code := run(ctx, append(append([]string(nil), args...), "--color", "never"), in, &out, &errOut, false)
	return invocation{Stdout: out.Bytes(), Stderr: errOut.Bytes(), Code: code}
}
