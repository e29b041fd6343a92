package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// UsageError is a command-line usage mistake: unknown flag, wrong argument count, conflicting
// flags. It maps to exit 2 and is the only error that prints the usage hint.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// usageErrorf builds a *UsageError.
func usageErrorf(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// exactArgs is cobra.ExactArgs returning a *UsageError.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s takes %d argument(s), got %d", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}

// rangeArgs is cobra.RangeArgs returning a *UsageError.
func rangeArgs(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || len(args) > max {
			return usageErrorf("%s takes %d to %d argument(s), got %d", cmd.CommandPath(), min, max, len(args))
		}
		return nil
	}
}

// noArgs is cobra.NoArgs returning a *UsageError.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) != 0 {
		if cmd.HasSubCommands() {
			return usageErrorf("unknown command %q for %q", args[0], cmd.CommandPath())
		}
		return usageErrorf("%s takes no arguments, got %q", cmd.CommandPath(), args[0])
	}
	return nil
}

// mutuallyExclusive returns a *UsageError when more than one of the named flags was set.
func mutuallyExclusive(cmd *cobra.Command, names ...string) error {
	var set []string
	for _, n := range names {
		if f := cmd.Flags().Lookup(n); f != nil && f.Changed {
			set = append(set, "--"+n)
		}
	}
	if len(set) > 1 {
		return usageErrorf("flags %v cannot be used together", set)
	}
	return nil
}
