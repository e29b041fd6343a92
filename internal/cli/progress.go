package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// verifyProgress draws one self-rewriting stderr line for a running verify command on a
// terminal: `mastermind: running "go test ./..." — 12 s`. Off a terminal it draws nothing, so
// logs and --json consumers see no progress noise (verification-receipts.md §2).
type verifyProgress struct {
	mu    sync.Mutex
	w     io.Writer
	drawn bool
}

// newVerifyProgress returns the progress line for io's stderr; its report is nil off a terminal.
func newVerifyProgress(s *IOStreams) *verifyProgress {
	if s == nil || !s.IsStderrTTY {
		return &verifyProgress{}
	}
	return &verifyProgress{w: s.ErrOut}
}

// callback is the postflight.Options.VerifyProgress callback: nil when nothing is drawn.
func (p *verifyProgress) callback() func(verifyrun.Progress) {
	if p.w == nil {
		return nil
	}
	return p.report
}

func (p *verifyProgress) report(pr verifyrun.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cmd := textsafe.Escape(pr.Cmd)
	if r := []rune(cmd); len(r) > 60 {
		cmd = string(r[:57]) + "..."
	}
	secs := pr.Elapsed.Round(time.Second) / time.Second
	if pr.Done {
		fmt.Fprintf(p.w, "\r\x1b[Kmastermind: ran \"%s\" in %.1f s\n", cmd, pr.Elapsed.Seconds())
		p.drawn = false
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[Kmastermind: running \"%s\" — %d s", cmd, secs)
	p.drawn = true
}

// finish ends a line left open (an interrupted run).
func (p *verifyProgress) finish() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
