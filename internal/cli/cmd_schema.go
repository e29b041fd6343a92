package cli

import (
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/schemas"
	"github.com/spf13/cobra"
)

// SchemaOptions holds the arguments of `mastermind schema`.
type SchemaOptions struct {
	IO   *IOStreams
	Name string // "" lists the embedded schema names
}

// NewCmdSchema builds `mastermind schema [NAME]`. runF replaces the run function in tests.
func NewCmdSchema(io *IOStreams, runF func(*SchemaOptions) error) *cobra.Command {
	opts := &SchemaOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "schema [NAME]",
		Short: "Print an embedded JSON Schema",
		Long: `Print one of the JSON Schemas embedded in mastermind, byte for byte: executor-report-v1 (the
executor report contract) or state-v1 (state.json). Without NAME, list the embedded names, one per
line.

Exit status:
  0  printed
  2  usage error, including an unknown NAME`,
		Example: "  mastermind schema\n  mastermind schema executor-report-v1 > executor-report-v1.schema.json",
		Args:    rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Name = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return runSchema(opts)
		},
	}
	return cmd
}

func runSchema(opts *SchemaOptions) error {
	if opts.Name == "" {
		for _, n := range schemas.Names() {
			if _, err := fmt.Fprintln(opts.IO.Out, n); err != nil {
				return err
			}
		}
		return nil
	}
	data, ok := schemas.Get(opts.Name)
	if !ok {
		return usageErrorf("unknown schema %q; embedded schemas: %s", opts.Name, strings.Join(schemas.Names(), ", "))
	}
	_, err := opts.IO.Out.Write(data)
	return err
}
