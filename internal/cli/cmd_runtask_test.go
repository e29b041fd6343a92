package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestNewCmdRunTask parses flags into RunTaskOptions without running anything.
func TestNewCmdRunTask(t *testing.T) {
	const spec = ".mastermind/tasks/001-x/spec.md"
	tests := []struct {
		args    string
		want    RunTaskOptions
		wantErr string
	}{
		{args: spec, want: RunTaskOptions{Spec: spec, MaxIterations: 3, FailOn: "broken", Timeout: DefaultTimeout}},
		{args: spec + " --pre-only --max-iterations 0", want: RunTaskOptions{Spec: spec, PreOnly: true, FailOn: "broken", Timeout: DefaultTimeout}},
		{args: spec + " --reset --force-iteration", want: RunTaskOptions{Spec: spec, Reset: true, ForceIteration: true, MaxIterations: 3, FailOn: "broken", Timeout: DefaultTimeout}},
		{args: spec + " --post-only --fail-on drift --json --root /r --timeout 5m", want: RunTaskOptions{Spec: spec, PostOnly: true, FailOn: "drift", JSON: true, Root: "/r", MaxIterations: 3, Timeout: 5 * time.Minute}},
		{args: spec + " --timeout 0s", wantErr: "--timeout must be a positive duration"},
		{args: spec + " --post-only --wait 1m30s", want: RunTaskOptions{Spec: spec, PostOnly: true, FailOn: "broken", MaxIterations: 3, Wait: 90 * time.Second, Timeout: DefaultTimeout}},
		{args: spec + " --wait -1s", wantErr: "--wait must not be negative"},
		{args: spec + " --post-only --pre-only", wantErr: "cannot be used together"},
		{args: spec + " --post-only --reset", wantErr: "cannot be used together"},
		{args: spec + " --post-only --force-iteration", wantErr: "cannot be used together"},
		{args: spec + " --fail-on warning", wantErr: "--fail-on must be broken or drift"},
		{args: spec + " --max-iterations -1", wantErr: "--max-iterations must be 0 or more"},
		{args: "", wantErr: "takes 1 argument(s), got 0"},
		{args: spec + " other", wantErr: "takes 1 argument(s), got 2"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			var got *RunTaskOptions
			err := execCmd(NewCmdRunTask(testIO(), func(o *RunTaskOptions) error { got = o; return nil }), tt.args)
			if checkUsage(t, err, tt.wantErr) {
				return
			}
			if d := cmp.Diff(tt.want, *got, cmpopts.IgnoreFields(RunTaskOptions{}, "IO", "Now")); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// TestNewCmdAccept parses flags into AcceptOptions without running anything.
func TestNewCmdAccept(t *testing.T) {
	const spec = ".mastermind/tasks/001-x/spec.md"
	tests := []struct {
		args    []string
		want    AcceptOptions
		wantErr string
	}{
		{args: []string{spec, "--reason", "extra helper is wanted"}, want: AcceptOptions{Spec: spec, Reason: "extra helper is wanted"}},
		{args: []string{spec, "--reason", "ok", "--json", "--root", "/r", "--wait", "5s"}, want: AcceptOptions{Spec: spec, Reason: "ok", JSON: true, Root: "/r", Wait: 5 * time.Second}},
		{args: []string{spec}, wantErr: "--reason is required"},
		{args: []string{spec, "--reason", " \t"}, wantErr: "--reason is required"},
		{args: []string{spec, "--reason", strings.Repeat("x", 4097)}, wantErr: "the limit is 4096"},
		{args: []string{spec, "--reason", "ok", "--wait", "-1s"}, wantErr: "--wait must not be negative"},
		{args: []string{"--reason", "ok"}, wantErr: "takes 1 argument(s), got 0"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var got *AcceptOptions
			err := execArgs(NewCmdAccept(testIO(), func(o *AcceptOptions) error { got = o; return nil }), tt.args)
			if checkUsage(t, err, tt.wantErr) {
				return
			}
			if d := cmp.Diff(tt.want, *got, cmpopts.IgnoreFields(AcceptOptions{}, "IO", "Now")); d != "" {
				t.Fatal(d)
			}
		})
	}
}
