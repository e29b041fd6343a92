// Package cli is mastermind's command line: one cmd_<name>.go per command, which turns its
// flags into an Options struct, calls the package that does the work and renders the result as
// a render.View. It is the only package that prints to the terminal and picks exit codes
// (exitcode.go).
package cli
