package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

func TestVerifyProgress(t *testing.T) {
	var b bytes.Buffer
	p := newVerifyProgress(&IOStreams{ErrOut: &b, IsStderrTTY: true})
	cb := p.callback()
	cb(verifyrun.Progress{Cmd: "go test ./...", Elapsed: 1400 * time.Millisecond})
	cb(verifyrun.Progress{Cmd: "go test ./...", Elapsed: 12300 * time.Millisecond, Done: true})
	p.finish()
	want := "\r\x1b[Kmastermind: running \"go test ./...\" — 1 s\r\x1b[Kmastermind: ran \"go test ./...\" in 12.3 s\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	// An interrupted run leaves the line open; finish ends it. Commands are escaped and cut.
	b.Reset()
	p.callback()(verifyrun.Progress{Cmd: "x\x1b[2J" + strings.Repeat("y", 100), Elapsed: time.Second})
	p.finish()
	if s := b.String(); strings.Contains(s, "\x1b[2J") || !strings.HasSuffix(s, "...\" — 1 s\n") {
		t.Errorf("got %q", s)
	}
	// Off a terminal nothing is drawn and the callback is nil (no progress goroutine work).
	if newVerifyProgress(&IOStreams{ErrOut: &b}).callback() != nil {
		t.Error("progress off a terminal")
	}
}
