package gitscope

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Process limits of gitscope.md §4.2.
const (
	gitTimeout   = 60 * time.Second // per git command; a timeout is ErrGitFailed
	stderrCap    = 64 << 10         // bytes of stderr kept for messages
	maxPathBytes = 256 << 20        // path-byte ceiling of one changed-set computation (§1 Size)
	maxSmallOut  = 16 << 20         // stdout ceiling of the small commands (rev-parse, log, ls-tree)
)

// minGitMajor/minGitMinor: the minimum git, 2.24, for --end-of-options (§4.3).
const (
	minGitMajor = 2
	minGitMinor = 24
)

// globalArgs are the hardening flags of §4.2 that every command but the diff stat carries:
// baseGlobalArgs plus hooksOffArgs.
var globalArgs = slices.Concat(baseGlobalArgs, hooksOffArgs)

// baseGlobalArgs are globalArgs without the hooks pin. Only the hooks-directory query
// (hooks.go) uses them alone.
var baseGlobalArgs = []string{
	"--no-optional-locks", "--no-pager", "--literal-pathspecs",
	"-c", "core.quotepath=off", "-c", "core.fsmonitor=false",
}

// hooksOffArgs point core.hooksPath at the null device, so no hook from the agent-editable
// configuration or .git/hooks can run: git diff's stat-cache refresh writes an index, and
// writing an index runs the post-index-change hook.
var hooksOffArgs = []string{"-c", "core.hooksPath=" + os.DevNull}

// diffConfigArgs are the extra -c settings of the diff commands (§4.1, §4.5).
var diffConfigArgs = []string{"-c", "diff.external=", "-c", "color.ui=never"}

// gitEnv builds the child environment explicitly by the rules of §4.2 "Environment".
func gitEnv() []string {
	env := []string{
		"LC_ALL=C",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_NO_LAZY_FETCH=1",
		"GIT_ALLOW_PROTOCOL=",
	}
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "SystemRoot", "TEMP", "TMP"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// cappedBuffer keeps the first stderrCap bytes written to it and discards the rest.
type cappedBuffer struct{ bytes.Buffer }

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := stderrCap - c.Len(); room > 0 {
		if len(p) > room {
			c.Buffer.Write(p[:room])
		} else {
			c.Buffer.Write(p)
		}
	}
	return len(p), nil
}

// shapeError is a parser's complaint about git's output; it becomes ErrGitFailed.
type shapeError struct{ msg string }

func (e *shapeError) Error() string { return e.msg }

func shapef(format string, a ...any) error { return &shapeError{fmt.Sprintf(format, a...)} }

// run executes git in dir with the pins, args, the hardened environment and the process rules of
// §4.2. stdout is streamed into parse, which must consume it until EOF or return an error, which
// kills the process; sub names the subcommand in errors.
func (r *Repo) run(ctx context.Context, dir, sub string, args []string, parse func(io.Reader) error) error {
	return r.runEnv(ctx, dir, sub, args, nil, parse)
}

// runEnv is run with extra environment entries, such as GIT_INDEX_FILE, appended to the hardened
// environment.
func (r *Repo) runEnv(ctx context.Context, dir, sub string, args, extraEnv []string, parse func(io.Reader) error) error {
	return r.runIn(ctx, dir, sub, args, extraEnv, nil, parse)
}

// runIn is runEnv with stdin (nil: the null device).
func (r *Repo) runIn(ctx context.Context, dir, sub string, args, extraEnv []string, stdin io.Reader, parse func(io.Reader) error) error {
	gitPath, err := r.gitBinary()
	if err != nil {
		return &ErrGitFailed{Cmd: sub, Exit: -1, Stderr: "no git binary on PATH"}
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	argv := make([]string, 0, len(args)+2)
	if dir != "" {
		argv = append(argv, "-C", dir)
		argv = append(argv, r.pinArgs()...)
	}
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, gitPath, argv...)
	cmd.Env = append(gitEnv(), extraEnv...)
	cmd.Stdin = stdin // os/exec connects a nil Stdin to the null device
	var stderr cappedBuffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		if parent.Err() != nil {
			return fmt.Errorf("git %s: %w", sub, parent.Err())
		}
		return &ErrGitFailed{Cmd: sub, Exit: -1, Stderr: err.Error()}
	}
	perr := parse(stdout)
	if perr != nil {
		cancel()
		_, _ = io.Copy(io.Discard, stdout)
	}
	werr := cmd.Wait()
	if msg := stderr.String(); strings.Contains(msg, "detected dubious ownership") {
		return &ErrDubiousOwnership{Path: r.root}
	}
	if perr == nil && parent.Err() != nil {
		// The caller's deadline or a cancellation, not this command's own timeout.
		return fmt.Errorf("git %s: %w", sub, parent.Err())
	}
	if ctx.Err() == context.DeadlineExceeded && perr == nil {
		return &ErrGitFailed{Cmd: sub, Exit: -1, Stderr: fmt.Sprintf("timed out after %s", gitTimeout)}
	}
	if werr != nil && perr == nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			code = ee.ExitCode()
		}
		msg := stderr.String()
		if strings.TrimSpace(msg) == "" {
			msg = werr.Error()
		}
		return &ErrGitFailed{Cmd: sub, Exit: code, Stderr: msg}
	}
	if perr != nil {
		var se *shapeError
		if errors.As(perr, &se) {
			return &ErrGitFailed{Cmd: sub, Exit: -1, Stderr: "unexpected output: " + se.msg}
		}
		return perr
	}
	return nil
}

// runSimple runs a small command (globalArgs prepended) and returns its stdout, at most
// maxSmallOut bytes.
func (r *Repo) runSimple(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return r.runSmall(ctx, dir, globalArgs, nil, args...)
}

// runSmall is runSimple with explicit global flags and extra environment entries.
func (r *Repo) runSmall(ctx context.Context, dir string, global, extraEnv []string, args ...string) ([]byte, error) {
	var out []byte
	sub := args[0]
	full := slices.Concat(global, args)
	err := r.runEnv(ctx, dir, sub, full, extraEnv, func(rd io.Reader) error {
		b, err := io.ReadAll(io.LimitReader(rd, maxSmallOut+1))
		if err != nil {
			return err
		}
		if len(b) > maxSmallOut {
			return shapef("more than %d bytes", maxSmallOut)
		}
		out = b
		return nil
	})
	return out, err
}

// versionResult is the cached outcome of `git version` for one binary path.
type versionResult struct {
	once sync.Once
	ok   bool   // version >= 2.24
	ver  string // e.g. "2.39.5"
	err  error  // the command failed
}

var versionCache sync.Map // git binary path -> *versionResult

// gitVersion runs `git version` once per process and binary (§4.3) and reports whether it is at
// least 2.24.
func (r *Repo) gitVersion(ctx context.Context) (ok bool, ver string, err error) {
	path, err := r.gitBinary()
	if err != nil {
		return false, "", err
	}
	v, _ := versionCache.LoadOrStore(path, &versionResult{})
	vr := v.(*versionResult)
	vr.once.Do(func() {
		var out []byte
		// Detached from ctx's cancellation: the cached answer must not be a cancelled run.
		vr.err = r.run(context.WithoutCancel(ctx), "", "version", []string{"version"}, func(rd io.Reader) error {
			b, err := io.ReadAll(io.LimitReader(rd, 4096))
			out = b
			return err
		})
		if vr.err == nil {
			vr.ver, vr.ok = parseGitVersion(out)
		}
	})
	return vr.ok, vr.ver, vr.err
}

// parseGitVersion reads "git version X.Y[.Z...]" and reports whether X.Y >= 2.24.
func parseGitVersion(out []byte) (string, bool) {
	line, _, _ := bytes.Cut(out, []byte("\n"))
	s, ok := strings.CutPrefix(string(line), "git version ")
	if !ok {
		return "", false
	}
	fields := strings.SplitN(strings.Fields(s + " ")[0], ".", 3)
	if len(fields) < 2 {
		return s, false
	}
	major, err1 := strconv.Atoi(fields[0])
	minor, err2 := strconv.Atoi(fields[1])
	if err1 != nil || err2 != nil {
		return s, false
	}
	return s, major > minGitMajor || (major == minGitMajor && minor >= minGitMinor)
}

// gitUsable reports whether a git >= 2.24 is on PATH, running `git version` once if needed.
func (r *Repo) gitUsable() bool {
	ok, _, err := r.gitVersion(context.Background())
	return err == nil && ok
}

// nulReader reads NUL-terminated tokens from a stream without per-token string conversion.
type nulReader struct {
	br    *bufio.Reader
	buf   []byte
	total *int64 // shared path-byte counter for the §1 ceiling
}

// newNulReader reads rd through a 64 KiB buffer: a pipe returns at most its default capacity of
// 64 KiB per read, so a larger buffer saves no read.
func newNulReader(rd io.Reader, total *int64) *nulReader {
	return &nulReader{br: bufio.NewReaderSize(rd, 64<<10), total: total}
}

// eachRecord calls fn with every NUL-terminated record of rd, counting path bytes in total
// (the §1 ceiling), until EOF or the first error of the reader or fn. The record's bytes are
// valid only during the call.
func eachRecord(rd io.Reader, total *int64, fn func(rec []byte) error) error {
	nr := newNulReader(rd, total)
	for {
		rec, err := nr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// next returns the next token without its NUL; the slice is valid until the following call.
// io.EOF means a clean end; a final token without a NUL is a shape error.
func (n *nulReader) next() ([]byte, error) {
	n.buf = n.buf[:0]
	line, err := n.br.ReadSlice(0)
	if err == nil {
		*n.total += int64(len(line))
		if *n.total > maxPathBytes {
			return nil, shapef("output exceeds %d MiB of path bytes", maxPathBytes>>20)
		}
		return line[:len(line)-1], nil
	}
	if err == bufio.ErrBufferFull {
		n.buf = append(n.buf[:0], line...)
		for {
			line, err = n.br.ReadSlice(0)
			n.buf = append(n.buf, line...)
			if int64(len(n.buf))+*n.total > maxPathBytes {
				return nil, shapef("output exceeds %d MiB of path bytes", maxPathBytes>>20)
			}
			if err == nil {
				*n.total += int64(len(n.buf))
				return n.buf[:len(n.buf)-1], nil
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
	}
	if err == io.EOF {
		if len(line) > 0 || len(n.buf) > 0 {
			return nil, shapef("missing trailing NUL")
		}
		return nil, io.EOF
	}
	return nil, err
}
