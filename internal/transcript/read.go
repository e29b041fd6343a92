package transcript

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/tidwall/gjson"
)

// Options say which transcript to read and for which task.
type Options struct {
	Harness Harness
	// Path is the transcript file: a Claude Code session's JSONL or a Codex rollout file.
	Path string
	// Root is the work tree root, absolute and clean.
	Root string
	// After is the task's pre-flight time: entries at or before it do not count.
	After time.Time
	// Home is the user's home directory, "" for os.UserHomeDir. An edit in HarnessDirs or
	// TempDirs is never "outside the repository"; nil takes the defaults of transcripts.md §4.
	Home        string
	HarnessDirs []string
	TempDirs    []string
}

// Refusal reasons: the transcript is not read, and the audit says so in an info line. For
// ReasonInsideWorkTree run-task exits 1 and hook run ignores the transcript.
const (
	ReasonInsideWorkTree = "inside_work_tree"
	ReasonMissing        = string(fsx.ReasonMissing)
	ReasonSymlink        = string(fsx.ReasonSymlink)
	ReasonNotRegular     = string(fsx.ReasonNotRegular)
	ReasonUnreadable     = "unreadable"
	ReasonUnknownVersion = "unknown_version"
	ReasonNotTranscript  = "not_a_transcript"
)

// Refusal is a transcript that is not read.
type Refusal struct {
	Path   string
	Reason string
	// Detail is the version found (ReasonUnknownVersion) or the error text (ReasonUnreadable).
	Detail string
}

func (e *Refusal) Error() string {
	switch e.Reason {
	case ReasonInsideWorkTree:
		return fmt.Sprintf("transcript %s is inside the work tree, where the executor can write it; pass the harness's own transcript (outside the repository)", e.Path)
	case ReasonMissing:
		return fmt.Sprintf("transcript %s does not exist", e.Path)
	case ReasonSymlink:
		return fmt.Sprintf("transcript %s is a symbolic link and is not followed", e.Path)
	case ReasonNotRegular:
		return fmt.Sprintf("transcript %s is not a regular file", e.Path)
	case ReasonUnknownVersion:
		return fmt.Sprintf("transcript %s was written by a harness version this mastermind does not know (%s)", e.Path, e.Detail)
	case ReasonNotTranscript:
		return fmt.Sprintf("transcript %s holds no entry of a known shape", e.Path)
	}
	return fmt.Sprintf("transcript %s could not be read: %s", e.Path, e.Detail)
}

// ReasonOf returns the refusal reason of err, "" when err is not a *Refusal.
func ReasonOf(err error) string {
	var r *Refusal
	if errors.As(err, &r) {
		return r.Reason
	}
	return ""
}

// CheckPath refuses a transcript inside the work tree root, where the executor can write, by its
// path as written or its real path.
func CheckPath(root, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return &Refusal{Path: path, Reason: ReasonUnreadable, Detail: err.Error()}
	}
	if _, err := fsx.RelReal(root, abs); err == nil {
		return &Refusal{Path: path, Reason: ReasonInsideWorkTree}
	}
	return nil
}

// Read reads the transcript of opts and, for Claude Code, the subagent files beside it
// (<session>/subagents/*.jsonl). A transcript that cannot be used is a *Refusal: inside the work
// tree, missing, a symlink, not a regular file, unreadable, or of an unknown harness version. A
// subagent file that is a symlink is skipped and counted. Each file is read up to the size it
// had when opened, so a harness still appending to it is read as it was then. ctx cancels the
// read, and its error is returned as it is.
func Read(ctx context.Context, opts Options) (*Session, error) {
	if opts.Harness != Claude && opts.Harness != Codex {
		return nil, fmt.Errorf("unknown harness %q", opts.Harness)
	}
	path, err := filepath.Abs(opts.Path)
	if err != nil {
		return nil, &Refusal{Path: opts.Path, Reason: ReasonUnreadable, Detail: err.Error()}
	}
	if err := CheckPath(opts.Root, path); err != nil {
		return nil, err
	}
	r := newReader(opts)
	if err := r.readFile(ctx, path, 0); err != nil {
		return nil, err
	}
	if opts.Harness == Claude {
		subs, symlinked := subagentFiles(path)
		r.sess.SymlinkedSubagents = symlinked
		for i, p := range subs {
			if CheckPath(opts.Root, p) != nil {
				r.sess.UnreadSubagents++
				continue
			}
			if err := r.readFile(ctx, p, i+1); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				if ReasonOf(err) == ReasonUnknownVersion {
					return nil, err
				}
				r.sess.UnreadSubagents++ // an unreadable subagent file is skipped and counted
			}
		}
	}
	r.finish()
	if r.badVersion != "" {
		return nil, &Refusal{Path: opts.Path, Reason: ReasonUnknownVersion, Detail: r.badVersion}
	}
	if r.known == 0 {
		return nil, &Refusal{Path: opts.Path, Reason: ReasonNotTranscript}
	}
	return r.sess, nil
}

// subagentFiles lists <session>/subagents/*.jsonl beside the Claude Code session file path, in
// name order, and counts the entries that are symlinks (not read).
func subagentFiles(path string) (files []string, symlinked int) {
	dir := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return nil, 0
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		if e.Type()&os.ModeSymlink != 0 {
			symlinked++
			continue
		}
		if e.Type().IsRegular() {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(files)
	return files, symlinked
}

// readFile streams one file into the reader, idx 0 the main file.
func (r *reader) readFile(ctx context.Context, path string, idx int) error {
	f, err := fsx.OpenNoFollow(path)
	if err != nil {
		switch reason := fsx.ReasonOf(err); reason {
		case fsx.ReasonMissing, fsx.ReasonSymlink, fsx.ReasonNotRegular:
			return &Refusal{Path: path, Reason: string(reason)}
		}
		return &Refusal{Path: path, Reason: ReasonUnreadable, Detail: err.Error()}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return &Refusal{Path: path, Reason: ReasonUnreadable, Detail: err.Error()}
	}
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(io.LimitReader(f, fi.Size()), h), 64<<10)
	r.file, r.line, r.cwd, r.codexCwd = idx, 0, "", ""
	var buf []byte
	for {
		line, long, err := readLine(br, &buf)
		if len(line) > 0 || long {
			r.line++
			r.sess.Entries++
			if long {
				r.unknown(time.Time{}, false)
			} else if l := bytes.TrimSpace(line); len(l) > 0 && !shallow(l) {
				r.unknown(time.Time{}, false)
			} else if len(l) > 0 {
				if r.opts.Harness == Claude {
					r.claudeLine(l)
				} else {
					r.codexLine(l)
				}
			}
			if r.line%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return &Refusal{Path: path, Reason: ReasonUnreadable, Detail: err.Error()}
		}
	}
	r.sess.Files = append(r.sess.Files, FileRead{Path: path, Bytes: fi.Size(), SHA256: hex.EncodeToString(h.Sum(nil))})
	// A file's pending calls have their results in the same file.
	r.settleAll("no result")
	return nil
}

// maxDepth bounds the nesting of arrays and objects in a line: the JSON reader recurses once per
// level, and a line of a few million brackets would exhaust the stack.
const maxDepth = 512

// shallow reports whether the JSON text b nests arrays and objects at most maxDepth deep
// (brackets inside strings do not count).
func shallow(b []byte) bool {
	if bytes.Count(b, []byte("[")) <= maxDepth-bytes.Count(b, []byte("{")) {
		return true // too few brackets to nest deeper (the counts are vectorised)
	}
	depth, inStr, esc := 0, false, false
	for _, c := range b {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			if depth++; depth > maxDepth {
				return false
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return true
}

// readLine returns the next line (without its newline) in *buf's storage; a line longer than
// MaxLineBytes is read through and reported as long, with no bytes.
func readLine(br *bufio.Reader, buf *[]byte) (line []byte, long bool, err error) {
	*buf = (*buf)[:0]
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			if len(*buf)+len(chunk) > MaxLineBytes {
				long, *buf = true, (*buf)[:0]
			} else {
				*buf = append(*buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if long {
			return nil, true, err
		}
		return bytes.TrimSuffix(*buf, []byte("\n")), false, err
	}
}

// parseTime reads an entry's ISO-8601 timestamp.
func parseTime(v gjson.Result) (time.Time, bool) {
	if v.Type != gjson.String {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, v.Str)
	return t, err == nil
}

// finish computes the digest and the sorted evidence once every file is read.
func (r *reader) finish() {
	h := sha256.New()
	for _, f := range r.sess.Files {
		fmt.Fprintf(h, "file %q %d %s\n", f.Path, f.Bytes, f.SHA256)
	}
	r.sess.Digest = hex.EncodeToString(h.Sum(nil))
	for p := range r.sess.inside {
		r.sess.Inside = append(r.sess.Inside, p)
	}
	slices.Sort(r.sess.Inside)
	slices.SortFunc(r.sess.Outside, func(a, b Edit) int { return strings.Compare(a.Path, b.Path) })
}
