package cli

import (
	"github.com/mastermind-controller/mastermind/internal/buildinfo"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/spf13/cobra"
)

// VersionOptions holds the flags of `mastermind version`.
type VersionOptions struct {
	IO   *IOStreams
	JSON bool
}

// NewCmdVersion builds `mastermind version [--json]`. runF replaces the run function in tests.
func NewCmdVersion(io *IOStreams, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print version and build information",
		Long: `Print mastermind's version, commit, build date, Go version and whether cgo (tree-sitter
claims for non-Go languages) is compiled in. Values not stamped at build time print "unknown".

Exit status: 0.`,
		Example: "  mastermind version\n  mastermind version --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runVersion(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {schema_version, version, commit, date, go, cgo} as JSON")
	return cmd
}

func runVersion(opts *VersionOptions) error {
	info := buildinfo.Get()
	return show(opts.IO, outputFormat(opts.JSON, ""), render.Plain{Envelope: info, Text: func(t *render.Text) {
		cgo := "off"
		if info.CGO {
			cgo = "on"
		}
		t.Printf("mastermind %s (commit %s, built %s, %s, cgo %s)\n", info.Version, info.Commit, info.Date, info.Go, cgo)
	}})
}
