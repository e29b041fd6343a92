// Command mastermind is a git-aware, fail-closed post-flight controller for AI coding agents.
// See internal/cli for the command tree and the exit-code table.
package main

import (
	"os"

	"github.com/mastermind-controller/mastermind/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
