package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"
)

// TestForgeFlags parses every forge-report subcommand's flags and arguments without running
// it: the options it would run with, or the forge usage failure (exit 1, the usage line on
// stderr) for wrong arguments and flags.
func TestForgeFlags(t *testing.T) {
	cases := []struct {
		name      string
		build     func(*IOStreams, func(*ForgeOptions) error) *cobra.Command
		args      string
		want      ForgeOptions
		wantUsage string // the usage line printed on stderr for a refused command line
	}{
		{"validate", NewCmdForgeValidate, "reply.md", ForgeOptions{Sub: "validate", Input: "reply.md"}, ""},
		{"validate", NewCmdForgeValidate, "- --json --since main --root /r",
			ForgeOptions{Sub: "validate", Input: "-", JSON: true, Since: "main", Root: "/r"}, ""},
		{"validate", NewCmdForgeValidate, "", ForgeOptions{}, forgeUsageValidate},
		{"validate", NewCmdForgeValidate, "a b", ForgeOptions{}, forgeUsageValidate},
		{"validate", NewCmdForgeValidate, "a --agent x", ForgeOptions{}, forgeUsageValidate},
		{"ingest", NewCmdForgeIngest, "run-1 reply.md --agent Builder",
			ForgeOptions{Sub: "ingest", RunID: "run-1", Input: "reply.md", Agent: "Builder"}, ""},
		{"ingest", NewCmdForgeIngest, "run-1 - --agent B --root /r --since v1 --json",
			ForgeOptions{Sub: "ingest", RunID: "run-1", Input: "-", Agent: "B", Root: "/r", Since: "v1", JSON: true}, ""},
		{"ingest", NewCmdForgeIngest, "run-1 reply.md", ForgeOptions{}, forgeUsageIngest},
		{"ingest", NewCmdForgeIngest, "run-1 reply.md --agent", ForgeOptions{}, forgeUsageIngest},
		{"ingest", NewCmdForgeIngest, "run-1 --agent B", ForgeOptions{}, forgeUsageIngest},
		{"verify", NewCmdForgeVerify, "run-1", ForgeOptions{Sub: "verify", RunID: "run-1"}, ""},
		{"verify", NewCmdForgeVerify, "run-1 --root /r --json", ForgeOptions{Sub: "verify", RunID: "run-1", Root: "/r", JSON: true}, ""},
		{"verify", NewCmdForgeVerify, "", ForgeOptions{}, forgeUsageVerify},
		{"verify", NewCmdForgeVerify, "run-1 --since main", ForgeOptions{}, forgeUsageVerify},
	}
	for _, tc := range cases {
		t.Run(tc.name+" "+tc.args, func(t *testing.T) {
			var errOut bytes.Buffer
			io := &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &errOut}
			var got *ForgeOptions
			err := execCmd(tc.build(io, func(o *ForgeOptions) error { got = o; return nil }), tc.args)
			if tc.wantUsage != "" {
				var ee *ExitError
				if !errors.As(err, &ee) || ee.Code != forgeExitFailed || !strings.Contains(errOut.String(), tc.wantUsage) {
					t.Fatalf("err %v, stderr %q; want exit %d with %q", err, errOut.String(), forgeExitFailed, tc.wantUsage)
				}
				if got != nil {
					t.Fatal("a refused command line ran")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, *got, cmpopts.IgnoreFields(ForgeOptions{}, "IO", "Getwd", "Now", "Ctx")); d != "" {
				t.Fatal(d)
			}
		})
	}
}
