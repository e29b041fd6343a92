package verifyrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/verification"
)

// Options configure Run.
type Options struct {
	// Dir is the repository root, absolute; the command runs there.
	Dir string
	// Env is the base environment; nil means os.Environ(). GIT_* and MASTERMIND_* are removed
	// from it either way (Environ).
	Env []string
	// Output receives the whole interleaved stdout and stderr stream as it arrives; nil discards
	// it. A write error does not stop the run: Run reports it after the command ended, beside the
	// receipt.
	Output io.Writer
	// Progress, when set, is called about every ProgressEvery (default 1 s) while the command
	// runs, and once with Done set when it ended. It is called from another goroutine.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// InputsFingerprint is copied into the receipt (lifecycle-v2.md §5).
	InputsFingerprint string
	// Grace bounds how long Run waits for the output pipe to close after the process group was
	// killed (a process that left the group can keep it open); default 2 s.
	Grace time.Duration
}

// Progress is one progress report for a terminal: the command and the elapsed wall-clock time.
type Progress struct {
	Cmd     string
	Elapsed time.Duration
	Done    bool
}

// ErrCanceled, wrapping the context's error, is returned when the context ended a run. The receipt
// of such a run is not evidence: callers must neither store nor audit it.
var ErrCanceled = errors.New("verification run canceled")

// Plan returns the declared commands of sp that post-flight runs, in declaration order: those
// with run: true, or every declared command when all is set. These are the only commands Run is
// meant to receive.
func Plan(sp *spec.Spec, all bool) []spec.DeclaredCommand {
	if sp == nil {
		return nil
	}
	var out []spec.DeclaredCommand
	for _, d := range sp.VerifyDeclared {
		if d.Run || all {
			out = append(out, d)
		}
	}
	return out
}

func effectiveTimeout(d spec.DeclaredCommand) time.Duration {
	if d.Timeout <= 0 {
		return spec.DefaultVerifyTimeout
	}
	return d.Timeout
}

// Run executes one declared command as verification-receipts.md §2 says and returns its receipt;
// a non-zero exit or a timeout is a receipt, not an error. An error without a receipt means the
// shell could not start; ErrCanceled and a failed opts.Output come with the receipt.
func Run(ctx context.Context, d spec.DeclaredCommand, opts Options) (*Receipt, error) {
	if d.Cmd == "" {
		return nil, errors.New("verifyrun: empty command")
	}
	if opts.Dir == "" {
		return nil, errors.New("verifyrun: no directory")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCanceled, err)
	}
	timeout := effectiveTimeout(d)
	grace := opts.Grace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	base := opts.Env
	if base == nil {
		base = os.Environ()
	}
	runner, _ := verification.Recognize(d.Cmd)
	rec := newRecorder(opts.Output, newCounter(runner, d.Cmd))

	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("verifyrun: output pipe: %w", err)
	}
	cmd := shellCommand(d.Cmd)
	cmd.Dir = opts.Dir
	cmd.Env = Environ(base, opts.Dir)
	cmd.Stdin = nil // os/exec connects the null device
	cmd.Stdout, cmd.Stderr = pw, pw

	started := time.Now()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("verifyrun: start %q: %w", d.Cmd, err)
	}
	pw.Close() // the children hold the write end now
	grp, gerr := startGroup(cmd)
	if gerr != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		pr.Close()
		return nil, fmt.Errorf("verifyrun: process group for %q: %w", d.Cmd, gerr)
	}
	defer grp.close()

	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		_, _ = io.Copy(rec, pr)
	}()

	progressDone := make(chan struct{})
	var progressWG sync.WaitGroup
	if opts.Progress != nil {
		every := opts.ProgressEvery
		if every <= 0 {
			every = time.Second
		}
		progressWG.Add(1)
		go func() {
			defer progressWG.Done()
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-progressDone:
					return
				case now := <-t.C:
					opts.Progress(Progress{Cmd: d.Cmd, Elapsed: now.Sub(started)})
				}
			}
		}()
	}

	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var timedOut, canceled bool
	var waitErr error
	select {
	case waitErr = <-waitDone:
	case <-timer.C:
		timedOut = true
		_ = grp.kill()
		waitErr = <-waitDone
	case <-ctx.Done():
		canceled = true
		_ = grp.kill()
		waitErr = <-waitDone
	}
	elapsed := time.Since(started)
	// The shell has ended; whatever it left behind in its group goes with it. SIGKILL is
	// delivered asynchronously, so Run waits (at most grace) until no member is alive: when it
	// returns, no process of the run is left.
	_ = grp.kill()
	for deadline := time.Now().Add(grace); grp.alive() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		_ = grp.kill()
	}
	select {
	case <-readDone:
	case <-time.After(grace):
		pr.Close() // a process outside the group still holds the pipe
		<-readDone
	}
	pr.Close()
	close(progressDone)
	progressWG.Wait()
	rec.finish()
	if opts.Progress != nil {
		opts.Progress(Progress{Cmd: d.Cmd, Elapsed: elapsed, Done: true})
	}

	r := &Receipt{
		SchemaVersion:     SchemaVersion,
		Cmd:               d.Cmd,
		StartedAt:         started.UTC().Truncate(time.Millisecond),
		DurationMS:        elapsed.Milliseconds(),
		TimeoutMS:         timeout.Milliseconds(),
		ExitCode:          -1,
		TimedOut:          timedOut,
		Runner:            string(runner),
		OutputTail:        strings.ToValidUTF8(string(rec.tailBytes()), "\uFFFD"),
		OutputSHA256:      rec.sha256Hex(),
		OutputBytes:       rec.n,
		InputsFingerprint: opts.InputsFingerprint,
	}
	if ps := cmd.ProcessState; ps != nil {
		r.ExitCode = ps.ExitCode()
		r.Signal = endSignal(ps)
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !timedOut && !canceled {
		return r, fmt.Errorf("verifyrun: wait for %q: %w", d.Cmd, waitErr)
	}
	c := Counts{}
	if rec.counter != nil {
		c = rec.counter.counts()
	}
	r.TestsRun, r.TestsFailed = c.TestsRun, c.TestsFailed
	if canceled {
		return r, fmt.Errorf("%w: %w", ErrCanceled, ctx.Err())
	}
	if rec.sinkErr != nil {
		return r, fmt.Errorf("verifyrun: store the output of %q: %w", d.Cmd, rec.sinkErr)
	}
	return r, nil
}
