package postflight

import (
	"context"
	"time"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/transcript"
)

// TranscriptOption names the harness transcript a post-flight reads (transcripts.md §1).
type TranscriptOption struct {
	// Path is the transcript, absolute; the caller has refused one inside the work tree.
	Path    string
	Harness transcript.Harness
}

// readTranscript reads the run's transcript for state st, counting only entries after the last
// approving pre-flight. A transcript that cannot be used comes back with its refusal, to be an
// info line; an error is operational.
func (c *controller) readTranscript(ctx context.Context, st *State) (*audit.TranscriptInputs, error) {
	t := c.opts.Transcript
	ti := &audit.TranscriptInputs{Path: t.Path, Harness: t.Harness}
	after := time.UnixMilli((st.StartedAt + 1) * 1000)
	if c.files != nil && c.files.rec != nil && c.files.rec.PreflightAtMs > 0 {
		after = time.UnixMilli(c.files.rec.PreflightAtMs)
	}
	s, err := transcript.Read(ctx, transcript.Options{Harness: t.Harness, Path: t.Path, Root: c.task.Root, After: after})
	if err != nil && transcript.ReasonOf(err) == "" {
		return nil, err
	}
	ti.Session, ti.Refusal = s, err
	return ti, nil
}

// transcriptID is the transcript's line of the inputs fingerprint: the harness and the digest of
// the files read, or "-<reason>" when it was not read.
func transcriptID(ti *audit.TranscriptInputs) string {
	if ti.Session != nil {
		return string(ti.Harness) + " " + ti.Session.Digest
	}
	return string(ti.Harness) + " -" + transcript.ReasonOf(ti.Refusal)
}
