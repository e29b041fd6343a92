package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestNewCmdHookRun parses hook run flags without running anything. A usage mistake is never
// an error (exit 2): it prints the allow decision naming it, and nothing runs.
func TestNewCmdHookRun(t *testing.T) {
	tests := []struct {
		args    []string
		want    HookRunOptions
		wantMsg string
	}{
		{args: []string{"--harness", "claude"}, want: HookRunOptions{Harness: "claude", FailOn: "broken", Timeout: 600 * time.Second}},
		{args: []string{"--harness", "codex", "--task", "001-a", "--fail-on", "drift", "--fail-open", "--root", "r", "--timeout", "1390s"},
			want: HookRunOptions{Harness: "codex", Task: "001-a", FailOn: "drift", FailOpen: true, Root: "r", Timeout: 1390 * time.Second}},
		{args: nil, wantMsg: "--harness is required"},
		{args: []string{"--harness", "git"}, wantMsg: `--harness must be claude or codex, got \"git\"`},
		{args: []string{"--harness", "claude", "--fail-on", "held"}, wantMsg: `--fail-on must be broken or drift`},
		{args: []string{"--harness", "claude", "x"}, wantMsg: "takes no arguments"},
		{args: []string{"--harness", "claude", "--nope"}, wantMsg: "unknown flag: --nope"},
		{args: []string{"--harness", "claude", "--timeout", "-5s"}, wantMsg: "--timeout must be at least 1s"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var got *HookRunOptions
			io := testIO()
			err := execArgs(NewCmdHookRun(io, func(o *HookRunOptions) error { got = o; return nil }), tt.args)
			if err != nil {
				t.Fatalf("error %v: hook run never fails on its command line", err)
			}
			out := io.Out.(*bytes.Buffer).String()
			if tt.wantMsg != "" {
				if got != nil || !strings.HasPrefix(out, `{"systemMessage":"mastermind: the stop hook's command line is wrong (`) || !strings.Contains(out, tt.wantMsg) {
					t.Fatalf("ran %v; stdout %s, want the usage decision naming %q", got != nil, out, tt.wantMsg)
				}
				return
			}
			if got == nil {
				t.Fatalf("did not run; stdout %s", out)
			}
			if d := cmp.Diff(tt.want, *got, cmpopts.IgnoreFields(HookRunOptions{}, "IO", "Now")); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}
