package cli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/harness"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/transcript"
)

// hookTranscriptArgs are the run-task arguments that hand the hook input's transcript_path to
// the post-flight (docs/design/transcripts.md §1), and a note for the hook's output when the
// transcript is left out because it is inside the work tree. A leading ~/ is the home directory,
// another relative path is taken against the hook's cwd. A path inside the work tree where no
// file is has nothing to leave out: it is dropped without a note.
func hookTranscriptArgs(root string, in harness.Input, h string) (args []string, note string) {
	p := in.TranscriptPath
	if p == "" {
		return nil, ""
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, rest)
		}
	}
	if !filepath.IsAbs(p) && in.Cwd != "" {
		p = filepath.Join(in.Cwd, p)
	}
	if err := transcript.CheckPath(root, p); err != nil {
		if _, serr := os.Lstat(p); serr != nil {
			return nil, ""
		}
		return nil, "mastermind: the hook's transcript_path is ignored: " + textsafe.Escape(err.Error()) + "."
	}
	return []string{"--transcript", p, "--harness", h}, ""
}
