package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
)

// TestNewCmdNewSpec parses new-spec flags without running anything (conventions.md practice 11).
func TestNewCmdNewSpec(t *testing.T) {
	tests := []struct {
		args    []string
		want    NewSpecOptions
		wantErr string // substring of a *UsageError
	}{
		{args: []string{"Add retry helper"}, want: NewSpecOptions{Title: "Add retry helper", Mode: "standard"}},
		{args: []string{"T", "--mode", "strict", "--root", "../r", "--json"}, want: NewSpecOptions{Title: "T", Mode: "strict", Root: "../r", JSON: true}},
		{args: []string{"--mode=lite", "--", "-dash title"}, want: NewSpecOptions{Title: "-dash title", Mode: "lite"}},
		{args: []string{}, wantErr: "takes 1 argument(s), got 0"},
		{args: []string{"a", "b"}, wantErr: "takes 1 argument(s), got 2"},
		{args: []string{"a", "--nope"}, wantErr: "unknown flag: --nope"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var got *NewSpecOptions
			io := &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
			cmd := NewCmdNewSpec(io, func(o *NewSpecOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Msg: err.Error()} })
			err := cmd.Execute()
			if tt.wantErr != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(ue.Msg, tt.wantErr) {
					t.Fatalf("err = %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got == nil {
				t.Fatalf("err = %v, options %v", err, got)
			}
			got.IO = nil
			if d := cmp.Diff(tt.want, *got); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}

// TestNewSpecUsageBeforeRepo: invalid input is a usage error even outside a repository, and
// nothing is opened or created.
func TestNewSpecUsageBeforeRepo(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []NewSpecOptions{{Title: "", Mode: "standard"}, {Title: "ok", Mode: "bogus"}} {
		o.Root, o.IO = dir, &IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
		err := runNewSpec(&o)
		if exitCodeFor(err) != ExitUsage {
			t.Errorf("%+v: exit %d (%v), want 2", o, exitCodeFor(err), err)
		}
	}
}
