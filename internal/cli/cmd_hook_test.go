package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNewCmdHookInstall parses hook install flags without running anything (practice 11).
func TestNewCmdHookInstall(t *testing.T) {
	tests := []struct {
		args    []string
		want    HookInstallOptions
		wantErr string
	}{
		{args: nil, want: HookInstallOptions{FailOn: "drift", Harness: "git"}},
		{args: []string{"--fail-on", "broken", "--force", "--root", "r"}, want: HookInstallOptions{FailOn: "broken", Force: true, Root: "r", Harness: "git"}},
		{args: []string{"--harness", "claude"}, want: HookInstallOptions{FailOn: "broken", Harness: "claude"}},
		{args: []string{"--harness", "codex", "--subagent", "--fail-on", "drift", "--fail-open"}, want: HookInstallOptions{FailOn: "drift", Harness: "codex", Subagent: true, FailOpen: true}},
		{args: []string{"--harness", "cursor"}, wantErr: `--harness must be git, claude or codex, got "cursor"`},
		{args: []string{"--subagent"}, wantErr: "--subagent applies to --harness claude or codex, not git"},
		{args: []string{"--harness", "claude", "--force"}, wantErr: "--force applies to --harness git only"},
		{args: []string{"--fail-on", "held"}, wantErr: `--fail-on must be broken or drift, got "held"`},
		{args: []string{"extra"}, wantErr: "takes no arguments"},
		{args: []string{"--json"}, wantErr: "unknown flag: --json"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var got *HookInstallOptions
			cmd := NewCmdHookInstall(testIO(), func(o *HookInstallOptions) error { got = o; return nil })
			cmd.SetFlagErrorFunc(usageFlagError)
			err := execArgs(cmd, tt.args)
			if checkUsage(t, err, tt.wantErr) {
				return
			}
			got.IO = nil
			if d := cmp.Diff(tt.want, *got); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}
