package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/agnivade/levenshtein"
	"github.com/mastermind-controller/mastermind/internal/verification"
)

// Harness names a transcript format, the value of run-task --harness.
type Harness string

// The harnesses whose transcripts are read.
const (
	Claude Harness = "claude"
	Codex  Harness = "codex"
)

// Status is how a witnessed run ended, as far as the transcript shows it.
type Status int

// Run statuses: a known exit code of 0, a known non-zero exit code, or unknown, such as a
// background run or one whose result the transcript lacks.
const (
	StatusUnknown Status = iota
	StatusPassed
	StatusFailed
)

// Limits of what one Read holds, so a 200 MB transcript is read in bounded memory
// (docs/design/transcripts.md §2).
const (
	// MaxLineBytes bounds one JSONL line; a longer line is skipped and counted.
	MaxLineBytes = 8 << 20
	// MaxPending bounds the tool calls waiting for their result. When it is full, the oldest
	// call is settled with status unknown, and a result that comes later is counted as
	// unpaired.
	MaxPending = 4096
	// MaxCommands bounds the distinct witness keys kept with their last run; past it the
	// session is Truncated and no command is reported as never witnessed.
	MaxCommands = 20000
	// MaxEvidence bounds the edits outside the work tree, the edited paths inside it and the
	// git-rewriting commands kept as evidence.
	MaxEvidence = 200
	// maxKeyBytes: a longer witness key is kept as its SHA-256.
	maxKeyBytes = 1024
	// maxCmdBytes bounds the command text kept for display.
	maxCmdBytes = 2048
)

// Order places an entry in transcript order: the main file and the subagent files merged by
// timestamp, ties broken by file (the main file first) and by line.
type Order struct {
	At   time.Time
	File int
	Line int
}

// After reports whether o comes after p in transcript order.
func (o Order) After(p Order) bool {
	if !o.At.Equal(p.At) {
		return o.At.After(p.At)
	}
	if o.File != p.File {
		return o.File > p.File
	}
	return o.Line > p.Line
}

// Run is one witnessed shell command: the last run of its witness key, or a git-rewriting one.
type Run struct {
	// Cmd is the command as the tool call gave it, at most 2 KiB; Key is its witness form.
	Cmd, Key string
	// AtRoot is true when the command ran in the repository root, a leading cd included.
	AtRoot bool
	Status Status
	// ExitCode is the exit code when Status is not StatusUnknown.
	ExitCode int
	// Note says why the status is unknown: "pipeline", "background", "cancelled", "no result",
	// "interrupted", "error without exit code".
	Note string
	// Order is the tool call's place in the transcript; Subagent is true for a run from a
	// subagent file or a sidechain entry.
	Order    Order
	Subagent bool
	// Runs counts the runs of this key after pre-flight; Redirected is true when any of them
	// wrote through an output redirection or a pipeline the key leaves out.
	Runs       int
	Redirected bool
	// runner is the recognised test runner and its arguments, "" when not recognised.
	runner string
	// LastKnown is the latest run of this key with an exit code when the last run has none;
	// nil otherwise.
	LastKnown *Known
	// known is the latest run with an exit code; until is the latest place any run of this key
	// may still have been running: its result, or forever without one.
	known *Known
	until Order
}

// Known is a run with an exit code: its status, code and place.
type Known struct {
	Status   Status
	ExitCode int
	Order    Order
}

// Describe is the run's status for audit.md: "exit 0", "exit 1", "status unknown (pipeline)".
func (r *Run) Describe() string {
	switch r.Status {
	case StatusPassed, StatusFailed:
		return "exit " + strconv.Itoa(r.ExitCode)
	}
	if r.Note == "" {
		return "status unknown"
	}
	return "status unknown (" + r.Note + ")"
}

// Edit is a file an edit tool wrote, such as Claude Code's Write or Codex's apply_patch.
type Edit struct {
	// Path is the repository-relative slash path for an edit inside the work tree, else the
	// absolute path as the transcript gives it.
	Path  string
	Tool  string
	Order Order
}

// FileRead is one transcript file that was read: its path, the bytes read and their SHA-256.
type FileRead struct {
	Path   string
	Bytes  int64
	SHA256 string
}

// Session is what Read found in one transcript.
type Session struct {
	Harness Harness
	// Version is the harness version the entries name.
	Version string
	// Files are the files read, the main file first; Digest identifies their bytes for the
	// inputs fingerprint of lifecycle-v2.md §5.
	Files  []FileRead
	Digest string
	// Entries counts the lines read, Before the entries at or before the pre-flight time,
	// Unknown the entries of an unknown shape (skipped) and UnknownAfter those of them not
	// known to be at or before it, Unpaired the tool results without their call,
	// SymlinkedSubagents the subagent files skipped for being symlinks and UnreadSubagents
	// those that could not be read.
	Entries, Before, Unknown, UnknownAfter, Unpaired, SymlinkedSubagents, UnreadSubagents int
	// Calls counts the shell commands after pre-flight.
	Calls int
	// Truncated is true when more than MaxCommands distinct commands were seen.
	Truncated bool
	// Rewrites are the git commands that rewrite what git shows, in transcript order, at most
	// MaxEvidence.
	Rewrites []Run
	// Outside are the edits to paths outside the work tree, the harness's own folders and the
	// temporary directories, the last per path, at most MaxEvidence. Inside are the
	// repository-relative paths edited in the work tree, at most MaxEvidence, sorted.
	Outside []Edit
	Inside  []string
	// LastEdit is the latest place an edit tool call may have been writing, LastBackground the
	// last run that may have left a process running, LastElsewhere the latest for a command
	// outside the repository root, LastOther for a tool call whose effect is not read.
	LastEdit, LastBackground, LastElsewhere, LastOther Order

	root    string          // the work tree root the keys are relative to
	runs    map[string]*Run // witness key -> last run at the root
	runners map[string]*Run // runner key -> last run at the root
	inside  map[string]bool
}

// Partial reports whether a subagent file of the session was not read, so a run may be in the
// part left out.
func (s *Session) Partial() bool {
	return s != nil && (s.SymlinkedSubagents > 0 || s.UnreadSubagents > 0)
}

// lookupExact returns the last witnessed run at the root whose witness key is cmd's, without the
// runner equivalence, or nil. It is what run: witnessed stands on.
func (s *Session) lookupExact(cmd string) *Run {
	var last *Run
	for _, c := range s.claimForms(cmd) {
		if r := s.runs[keyOf(c)]; r != nil && (last == nil || r.Order.After(last.Order)) {
			last = r
		}
	}
	return last
}

// Lookup returns the last witnessed run of cmd, a report row's or a spec's command: the last
// run at the repository root whose witness key equals cmd's, or that is the same recognised
// test runner with the same arguments (transcripts.md §3). cmd is read by the same rules as a
// witnessed command; nil when the session shows none.
func (s *Session) Lookup(cmd string) *Run {
	if s == nil {
		return nil
	}
	var last *Run
	consider := func(r *Run) {
		if r != nil && (last == nil || r.Order.After(last.Order)) {
			last = r
		}
	}
	for _, c := range s.claimForms(cmd) {
		consider(s.runs[keyOf(c)])
		if rk := runnerKey(c); rk != "" {
			consider(s.runners[rk])
		}
	}
	return last
}

// claimForms are the forms a claimed command is looked up by: as written with whitespace
// collapsed, and its witness form when it runs at the root.
func (s *Session) claimForms(cmd string) []string {
	forms := []string{verification.MatchKey(cmd)}
	if s.root != "" {
		if sh := parseShape(cmd, s.root, ""); sh.dir == s.root && sh.core != forms[0] {
			forms = append(forms, sh.core)
		}
	}
	return forms
}

// maxNearRunes bounds the commands compared by edit distance.
const maxNearRunes = 512

// Closest returns the witnessed command run at the root nearest to cmd: the same recognised
// runner, or the smallest edit distance when it is at most a third of the longer command; ""
// when none is near.
func (s *Session) Closest(cmd string) string {
	if s == nil {
		return ""
	}
	c := verification.MatchKey(cmd)
	if len([]rune(c)) > maxNearRunes {
		return ""
	}
	cr, _, cok := verification.RunArgs(c)
	cn := len([]rune(c))
	best, bestD := "", -1
	for k, r := range s.runs {
		kn := len([]rune(k))
		if strings.HasPrefix(k, "#") || kn > maxNearRunes {
			continue
		}
		same := cok && r.runner != "" && strings.HasPrefix(r.runner, string(cr)+"\x00")
		// The edit distance is at least the length difference: skip what cannot be near.
		if !same && abs(cn-kn) > max(cn, kn)/3 {
			continue
		}
		d := levenshtein.ComputeDistance(c, k)
		if d > max(cn, kn)/3 && !same {
			continue
		}
		if bestD < 0 || d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Commands returns the number of distinct witness keys run at the root.
func (s *Session) Commands() int { return len(s.runs) }

// Runs returns the last run of every witness key run at the root, in any order.
func (s *Session) Runs() []*Run {
	out := make([]*Run, 0, len(s.runs))
	for _, r := range s.runs {
		out = append(out, r)
	}
	return out
}

// keyOf is a witness key as stored: k itself, or its SHA-256 when longer than maxKeyBytes.
func keyOf(k string) string {
	if len(k) <= maxKeyBytes {
		return k
	}
	h := sha256.Sum256([]byte(k))
	return "#" + hex.EncodeToString(h[:])
}

// runnerKey is the runner-equivalence key of cmd: "" when it is not a recognised runner, or
// when its launcher or runner is named by a path (./jest, /tmp/x/pytest, .venv/bin/pytest),
// which is another program than the one the bare name finds and matches only as written.
func runnerKey(cmd string) string {
	r, args, ok := verification.RunArgs(cmd)
	if !ok {
		return ""
	}
	toks := strings.Fields(cmd)
	for _, t := range toks[:len(toks)-len(args)] {
		if strings.ContainsAny(t, `/\`) {
			return ""
		}
	}
	return keyOf(string(r) + "\x00" + strings.Join(args, "\x00"))
}
