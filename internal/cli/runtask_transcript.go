package cli

import (
	"path/filepath"

	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/transcript"
	"github.com/spf13/cobra"
)

// transcriptFlags checks --transcript and --harness: post-flight only, and a known harness.
func transcriptFlags(cmd *cobra.Command, opts *RunTaskOptions) error {
	if opts.Harness != "" && opts.Transcript == "" {
		return usageErrorf("--harness names the format of --transcript; give --transcript PATH too")
	}
	if opts.Transcript == "" {
		return nil
	}
	if opts.PreOnly || opts.Reset {
		return usageErrorf("--transcript belongs to post-flight and cannot be used with --pre-only or --reset")
	}
	switch transcript.Harness(opts.Harness) {
	case "":
		opts.Harness = string(transcript.Claude)
	case transcript.Claude, transcript.Codex:
	default:
		return usageErrorf("--harness must be claude or codex, got %q", opts.Harness)
	}
	return nil
}

// transcriptOption resolves --transcript against the current directory. One inside the work tree
// under root is refused, since the executor can write it (transcripts.md §1).
func transcriptOption(root string, opts *RunTaskOptions) (*postflight.TranscriptOption, error) {
	if opts.Transcript == "" {
		return nil, nil
	}
	abs, err := filepath.Abs(opts.Transcript)
	if err != nil {
		return nil, err
	}
	if err := transcript.CheckPath(root, abs); err != nil {
		return nil, &NotPassedError{Msg: err.Error()}
	}
	return &postflight.TranscriptOption{Path: abs, Harness: transcript.Harness(opts.Harness)}, nil
}
