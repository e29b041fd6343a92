package cli

import (
	"path/filepath"

	"github.com/mastermind-controller/mastermind/internal/harness"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/transcript"
)

// hookTranscriptArgs are the run-task arguments that hand the hook input's transcript_path to
// the post-flight (docs/design/transcripts.md §1), and a note for the hook's output when the
// transcript is left out because it is inside the work tree. A relative path is taken against
// the hook's cwd.
func hookTranscriptArgs(root string, in harness.Input, h string) (args []string, note string) {
	p := in.TranscriptPath
	if p == "" {
		return nil, ""
	}
	if !filepath.IsAbs(p) && in.Cwd != "" {
		p = filepath.Join(in.Cwd, p)
	}
	if err := transcript.CheckPath(root, p); err != nil {
		return nil, "mastermind: the hook's transcript_path is ignored: " + textsafe.Escape(err.Error()) + "."
	}
	return []string{"--transcript", p, "--harness", h}, ""
}
