package gitscope

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxObjectBytes bounds one blob the audit reads, and maxTreeBytes one tree or commit: a tree of
// a million entries in one directory is about 40 MiB.
const (
	maxObjectBytes = maxBlobBytes
	maxTreeBytes   = 64 << 20
)

// limitFor is the read limit of an object of type typ.
func limitFor(typ string) int64 {
	if typ == "blob" {
		return maxObjectBytes
	}
	return maxTreeBytes
}

// errObjectMissing: the object store has no object of that id, as in a partial clone. It is not
// ErrObjectStoreModified, because nothing read was forged.
var errObjectMissing = errors.New("is not in the object store")

// catFile is one long-lived, pinned `git cat-file --batch` process that hashes each object as it
// reads it, so a forged object is ErrObjectStoreModified (trust-model.md §4.5). It starts on the
// first read and after a failure, and reads are serialized.
type catFile struct {
	r     *Repo
	env   []string
	where string // names the store in messages: "" for the repository's, "pack <name>"

	mu     sync.Mutex
	closed bool
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *cappedBuffer
	waited chan struct{}
}

// start runs the process; c.mu is held.
func (c *catFile) start() error {
	gitPath, err := c.r.gitBinary()
	if err != nil {
		return &ErrGitFailed{Cmd: "cat-file", Exit: -1, Stderr: "no git binary on PATH"}
	}
	argv := slices.Concat([]string{"-C", c.r.root}, c.r.pinArgs(), globalArgs, []string{"cat-file", "--batch"})
	cmd := exec.Command(gitPath, argv...)
	cmd.Env = append(gitEnv(), c.env...)
	stderr := &cappedBuffer{}
	cmd.Stderr = stderr
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return &ErrGitFailed{Cmd: "cat-file", Exit: -1, Stderr: err.Error()}
	}
	c.cmd, c.stdin, c.out, c.stderr = cmd, stdin, bufio.NewReaderSize(stdout, 64<<10), stderr
	c.waited = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { _ = cmd.Wait(); close(done) }(cmd, c.waited)
	return nil
}

// stop ends the process; c.mu is held.
func (c *catFile) stop() {
	if c.cmd == nil {
		return
	}
	_ = c.stdin.Close()
	select {
	case <-c.waited:
	case <-time.After(2 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.waited
	}
	c.cmd = nil
}

// kill ends the process at once; c.mu is held.
func (c *catFile) kill() {
	if c.cmd == nil {
		return
	}
	_ = c.cmd.Process.Kill()
	_ = c.stdin.Close()
	<-c.waited
	c.cmd = nil
}

// close stops the process; later reads fail.
func (c *catFile) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	c.stop()
}

// read returns the type and content of oid, verified by hashing. A missing object wraps
// errObjectMissing, and an object over limit bytes is an error after it is hashed, so that a
// forged one is reported as such. A negative limit returns the type alone.
func (c *catFile) read(ctx context.Context, oid string, limit int64) (string, []byte, error) {
	if !IsFullOID(oid) {
		return "", nil, fmt.Errorf("object id %q is not a full 40-hex object id", oid)
	}
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return "", nil, fmt.Errorf("reading object %s: the object reader is closed", oid)
	}
	if c.cmd == nil {
		if err := c.start(); err != nil {
			return "", nil, err
		}
	}
	proc := c.cmd.Process
	stop := context.AfterFunc(ctx, func() { _ = proc.Kill() })
	typ, data, err := c.request(oid, limit)
	if !stop() {
		// The context ended during the request: the process is gone.
		c.kill()
		return "", nil, fmt.Errorf("reading object %s: %w", oid, ctx.Err())
	}
	if err != nil {
		var keep *objectError
		if errors.As(err, &keep) && keep.inSync {
			return "", nil, err
		}
		c.kill()
		if msg := strings.TrimSpace(c.stderr.String()); msg != "" {
			return "", nil, c.failure(oid, msg)
		}
		return "", nil, err
	}
	return typ, data, nil
}

// objectError is a read that failed with the process still usable (inSync) or not.
type objectError struct {
	err    error
	inSync bool
}

func (e *objectError) Error() string { return e.err.Error() }
func (e *objectError) Unwrap() error { return e.err }

// failure turns git's complaint about oid into an error naming it; an object that cannot be
// inflated or does not match its pack entry is ErrObjectStoreModified.
func (c *catFile) failure(oid, stderr string) error {
	line := firstLine(stderr)
	for _, w := range []string{"corrupt", "inflate", "unable to unpack", "bad object", "packed object", "delta"} {
		if strings.Contains(stderr, w) {
			if c.where != "" {
				return fmt.Errorf("%w: object %s (%s) cannot be read (%s)", ErrObjectStoreModified, oid, c.where, line)
			}
			return fmt.Errorf("%w: object %s cannot be read (%s)", ErrObjectStoreModified, oid, line)
		}
	}
	return &ErrGitFailed{Cmd: "cat-file", Exit: -1, Stderr: fmt.Sprintf("reading object %s: %s", oid, stderr)}
}

// request writes one id and reads its record; c.mu is held.
func (c *catFile) request(oid string, limit int64) (string, []byte, error) {
	if _, err := io.WriteString(c.stdin, oid+"\n"); err != nil {
		return "", nil, fmt.Errorf("reading object %s: %w", oid, err)
	}
	hdr, err := c.out.ReadString('\n')
	if err != nil {
		return "", nil, fmt.Errorf("reading object %s: git cat-file ended (%v)", oid, err)
	}
	f := strings.Fields(hdr)
	if len(f) == 2 && f[0] == oid && f[1] == "missing" {
		return "", nil, &objectError{err: fmt.Errorf("object %s %w", oid, errObjectMissing), inSync: true}
	}
	if len(f) != 3 || f[0] != oid {
		return "", nil, &ErrGitFailed{Cmd: "cat-file", Exit: -1, Stderr: fmt.Sprintf("unexpected output: header %q for %s", truncateForMessage([]byte(hdr)), oid)}
	}
	typ := f[1]
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return "", nil, &ErrGitFailed{Cmd: "cat-file", Exit: -1, Stderr: fmt.Sprintf("unexpected output: size %q for %s", f[2], oid)}
	}
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", typ, size)
	var data []byte
	if 0 <= size && size <= limit {
		data = make([]byte, size)
		if _, err := io.ReadFull(c.out, data); err != nil {
			return "", nil, fmt.Errorf("reading object %s: git cat-file ended (%v)", oid, err)
		}
		h.Write(data)
	} else if _, err := io.CopyN(h, c.out, size); err != nil {
		return "", nil, fmt.Errorf("reading object %s: git cat-file ended (%v)", oid, err)
	}
	if b, err := c.out.ReadByte(); err != nil || b != '\n' {
		return "", nil, &ErrGitFailed{Cmd: "cat-file", Exit: -1, Stderr: "unexpected output: record of " + oid + " not terminated"}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != oid {
		where := ""
		if c.where != "" {
			where = " (" + c.where + ")"
		}
		return "", nil, &objectError{err: fmt.Errorf("%w: object %s%s holds object %s", ErrObjectStoreModified, oid, where, got), inSync: true}
	}
	if limit >= 0 && size > limit {
		return "", nil, &objectError{err: fmt.Errorf("object %s is %d bytes, over the %d-byte limit", oid, size, limit), inSync: true}
	}
	return typ, data, nil
}
