package cli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/harness"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/transcript"
)

// hookTranscript is the hook input's transcript_path as the post-flight's transcript
// as run-task --transcript with --harness h takes it (transcripts.md §1), and a note for the
// hook's output when the transcript is left out because it is inside the work tree. A leading
// ~/ is the home directory, another relative path is taken against the hook's cwd. A path
// inside the work tree where no file is has nothing to leave out: it is dropped without a note.
func hookTranscript(root string, in harness.Input, h string) (tr *postflight.TranscriptOption, note string) {
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
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, ""
	}
	return &postflight.TranscriptOption{Path: abs, Harness: transcript.Harness(h)}, ""
}
