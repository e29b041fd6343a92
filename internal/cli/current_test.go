package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestNewCmdHookRun parses hook run flags without running anything.
func TestNewCmdHookRun(t *testing.T) {
	tests := []struct {
		args    []string
		want    HookRunOptions
		wantErr string
	}{
		{args: []string{"--harness", "claude"}, want: HookRunOptions{Harness: "claude", FailOn: "broken"}},
		{args: []string{"--harness", "codex", "--task", "001-a", "--fail-on", "drift", "--fail-open", "--root", "r"},
			want: HookRunOptions{Harness: "codex", Task: "001-a", FailOn: "drift", FailOpen: true, Root: "r"}},
		{args: nil, wantErr: "--harness is required"},
		{args: []string{"--harness", "git"}, wantErr: `--harness must be claude or codex, got "git"`},
		{args: []string{"--harness", "claude", "--fail-on", "held"}, wantErr: `--fail-on must be broken or drift`},
		{args: []string{"--harness", "claude", "x"}, wantErr: "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var got *HookRunOptions
			err := execArgs(NewCmdHookRun(testIO(), func(o *HookRunOptions) error { got = o; return nil }), tt.args)
			if checkUsage(t, err, tt.wantErr) {
				return
			}
			if d := cmp.Diff(tt.want, *got, cmpopts.IgnoreFields(HookRunOptions{}, "IO", "Now")); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}
