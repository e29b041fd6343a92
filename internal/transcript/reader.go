package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/tidwall/gjson"
)

// callKind is what a pending tool call does.
type callKind int

const (
	callShell callKind = iota
	callEdit
	// callOther is a tool call whose effect is not read, such as an MCP tool; it may have
	// written anything.
	callOther
)

// forever is the end of a call that has no result: it may still be running.
var forever = Order{At: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}

// call is a tool call waiting for its result.
type call struct {
	id    string
	kind  callKind
	order Order
	sub   bool
	// before is true for a call at or before the pre-flight time, paired and then dropped.
	before bool
	// shell calls: the command, the directory it starts in, whether the harness ran it in the
	// background.
	cmd, dir   string
	background bool
	// edit calls: the tool and the absolute paths it writes.
	tool  string
	paths []string
	// exit, when set by a harness event (Codex exec_command_end), is the exit code.
	exit *int
}

// result is what a tool result says of its call.
type result struct {
	status Status
	code   int
	note   string
	// ok is false for an edit that failed and so wrote nothing.
	ok bool
	// running is the Codex unified-exec session a command still runs in (0: none).
	running int64
	// end is the result's place in the transcript, forever when there is none.
	end Order
}

// reader is one Read in progress.
type reader struct {
	opts     Options
	sess     *Session
	rootReal string
	home     string
	exempt   []string
	// pending calls by id, in arrival order for eviction.
	pending map[string]*call
	fifo    []string
	// running Codex commands by unified-exec session id, settled by a later write_stdin.
	running map[int64]*call
	// the file being read, its line, and the working directory the harness last recorded.
	file, line    int
	cwd, codexCwd string
	known         int
	badVersion    string
	// shapes caches parseShape by directory and command, since sessions repeat commands.
	shapes map[[2]string]shape
	// batchChdir: a Claude Code shell call of the current batch may move the shell's directory,
	// and a later call of the batch runs where it left the shell, which its entry's cwd does not
	// say.
	batchChdir bool
}

// maxShapes bounds the shape cache; a full cache is emptied.
const maxShapes = 4096

// shape is parseShape(cmd, dir, home), cached.
func (r *reader) shape(cmd, dir string) shape {
	k := [2]string{dir, cmd}
	if sh, ok := r.shapes[k]; ok {
		return sh
	}
	sh := parseShape(cmd, dir, r.home)
	if len(r.shapes) >= maxShapes || r.shapes == nil {
		r.shapes = map[[2]string]shape{}
	}
	r.shapes[k] = sh
	return sh
}

func newReader(opts Options) *reader {
	r := &reader{opts: opts, pending: map[string]*call{}, running: map[int64]*call{},
		sess: &Session{Harness: opts.Harness, root: filepath.Clean(opts.Root), runs: map[string]*Run{}, runners: map[string]*Run{}, inside: map[string]bool{}}}
	r.rootReal = opts.Root
	if real, err := filepath.EvalSymlinks(opts.Root); err == nil {
		r.rootReal = real
	}
	r.home = opts.Home
	if r.home == "" {
		r.home, _ = os.UserHomeDir()
	}
	dirs := opts.HarnessDirs
	if dirs == nil && r.home != "" {
		switch opts.Harness {
		case Claude:
			dirs = []string{filepath.Join(r.home, ".claude")}
			if d := os.Getenv("CLAUDE_CONFIG_DIR"); filepath.IsAbs(d) {
				dirs = append(dirs, d)
			}
		case Codex:
			dirs = []string{filepath.Join(r.home, ".codex")}
			if d := os.Getenv("CODEX_HOME"); filepath.IsAbs(d) {
				dirs = append(dirs, d)
			}
		}
	}
	temps := opts.TempDirs
	if temps == nil {
		temps = []string{os.TempDir(), "/tmp", "/var/tmp", "/private/tmp", "/var/folders", "/private/var/folders"}
	}
	for _, d := range append(dirs, temps...) {
		r.exempt = append(r.exempt, filepath.Clean(d))
		if real, err := filepath.EvalSymlinks(d); err == nil {
			r.exempt = append(r.exempt, real)
		}
	}
	return r
}

// version checks a harness version an entry names; the first unknown one is kept.
func (r *reader) version(v string) {
	if v == "" || v == r.sess.Version {
		return
	}
	if !knownVersion(r.opts.Harness, v) {
		if r.badVersion == "" {
			r.badVersion = v
		}
		return
	}
	if r.sess.Version == "" {
		r.sess.Version = v
	}
}

// knownVersion reports whether v is in the validated range of transcripts.md §1: Claude Code
// 2.0.x from 2.0.76 and 2.1.x, or Codex 0.x.
func knownVersion(h Harness, v string) bool {
	major, minor, patch, ok := semver(v)
	if !ok {
		return false
	}
	if h == Codex {
		return major == 0
	}
	return major == 2 && (minor == 1 || minor == 0 && patch >= 76)
}

// semver reads "MAJOR.MINOR.PATCH" with an optional pre-release suffix of at most 64 of
// [0-9A-Za-z.-], since the version reaches audit.md.
func semver(v string) (major, minor, patch int, ok bool) {
	v, suffix, _ := strings.Cut(v, "-")
	if len(suffix) > 64 {
		return 0, 0, 0, false
	}
	for _, c := range suffix {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '-') {
			return 0, 0, 0, false
		}
	}
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	var n [3]int
	for i, p := range parts {
		if p == "" || len(p) > 6 {
			return 0, 0, 0, false
		}
		for _, c := range p {
			if c < '0' || c > '9' {
				return 0, 0, 0, false
			}
			n[i] = n[i]*10 + int(c-'0')
		}
	}
	return n[0], n[1], n[2], true
}

// counts reports whether an entry at t is after the pre-flight time, counting it if not.
func (r *reader) counts(t time.Time) bool {
	if t.After(r.opts.After) {
		return true
	}
	r.sess.Before++
	return false
}

// unknown counts an entry of an unknown shape at ts; ok is false when it has no readable time.
// One not known to be at or before the pre-flight time also counts in UnknownAfter.
func (r *reader) unknown(ts time.Time, ok bool) {
	r.sess.Unknown++
	if !ok || ts.After(r.opts.After) {
		r.sess.UnknownAfter++
	}
}

// unknownEntry counts an entry of an unknown shape by its own timestamp.
func (r *reader) unknownEntry(e gjson.Result) {
	ts, ok := parseTime(e.Get("timestamp"))
	r.unknown(ts, ok)
}

// addPending queues c for its result, settling the oldest call when the table is full.
func (r *reader) addPending(c *call) {
	if old, dup := r.pending[c.id]; dup {
		r.settle(old, result{note: "no result", end: forever})
	}
	for len(r.pending) >= MaxPending && len(r.fifo) > 0 {
		id := r.fifo[0]
		r.fifo = r.fifo[1:]
		if old := r.pending[id]; old != nil {
			delete(r.pending, id)
			r.sess.Unpaired++
			r.settle(old, result{note: "no result", end: forever})
		}
	}
	r.pending[c.id] = c
	r.fifo = append(r.fifo, c.id)
	if len(r.fifo) > 2*MaxPending {
		live := r.fifo[:0]
		for _, id := range r.fifo {
			if r.pending[id] != nil {
				live = append(live, id)
			}
		}
		r.fifo = live
	}
}

// take removes and returns the pending call id, nil when there is none.
func (r *reader) take(id string) *call {
	c := r.pending[id]
	if c != nil {
		delete(r.pending, id)
	}
	return c
}

// settleAll settles every pending and running call at the end of a file.
func (r *reader) settleAll(note string) {
	for _, id := range r.fifo {
		if c := r.pending[id]; c != nil {
			r.settle(c, result{note: note, end: forever})
		}
	}
	r.pending, r.fifo, r.batchChdir = map[string]*call{}, nil, false
	for id, c := range r.running {
		r.settle(c, result{note: "background", end: forever})
		delete(r.running, id)
	}
}

// settle records a call with its result.
func (r *reader) settle(c *call, res result) {
	if c.before {
		return
	}
	if c.exit != nil && res.running == 0 {
		res.code, res.status, res.note = *c.exit, StatusFailed, ""
		if *c.exit == 0 {
			res.status = StatusPassed
		}
	}
	switch c.kind {
	case callShell:
		if res.running != 0 && len(r.running) < MaxPending {
			r.running[res.running] = c
			return
		}
		r.recordRun(c, res)
	case callEdit:
		if res.ok {
			r.recordEdit(c, res.end)
		}
	case callOther:
		later(&r.sess.LastOther, c.order, res.end)
	}
}

// later moves *last to the latest of itself, the call's place and its result's.
func later(last *Order, call, end Order) {
	for _, o := range []Order{call, end} {
		if !o.At.IsZero() && (last.At.IsZero() || o.After(*last)) {
			*last = o
		}
	}
}

// recordRun records a settled shell call under its witness key.
func (r *reader) recordRun(c *call, res result) {
	s := r.sess
	s.Calls++
	sh := r.shape(c.cmd, c.dir)
	status, code, note := res.status, res.code, res.note
	background := c.background || sh.background || res.note == "background"
	switch {
	case background:
		status, note = StatusUnknown, "background"
	case sh.pipeline && !(sh.pipefail && status == StatusPassed):
		// Under pipefail, exit 0 means every stage exited 0, the first included; any other
		// pipeline exit code is the last failing stage's (docs/design/transcripts.md §3).
		status, note = StatusUnknown, "pipeline"
	}
	if status == StatusUnknown && note == "" {
		note = "no exit code"
	}
	cmdText := c.cmd
	if len(cmdText) > maxCmdBytes {
		cmdText = cmdText[:maxCmdBytes]
	}
	run := Run{Cmd: cmdText, Status: status, ExitCode: code, Note: note, Order: c.order, Subagent: c.sub}
	if status == StatusUnknown {
		run.ExitCode = 0
	}
	if background || sh.detaches {
		later(&s.LastBackground, c.order, Order{})
	}
	for _, g := range sh.git {
		if gitRewrite(g) && len(s.Rewrites) < MaxEvidence {
			s.Rewrites = append(s.Rewrites, run)
			break
		}
	}
	if sh.dir == "" || !r.atRoot(sh.dir) {
		later(&s.LastElsewhere, c.order, res.end)
		return
	}
	run.AtRoot, run.Key, run.Redirected = true, keyOf(sh.core), sh.redirected
	run.until = c.order
	later(&run.until, c.order, res.end)
	if status != StatusUnknown {
		run.known = &Known{Status: status, ExitCode: run.ExitCode, Order: c.order}
	}
	put := func(m map[string]*Run, k string) {
		prev := m[k]
		if prev == nil {
			if len(m) >= MaxCommands {
				s.Truncated = true
				return
			}
			nr := run
			nr.Runs = 1
			m[k] = &nr
			return
		}
		n, redir, until, known := prev.Runs+1, prev.Redirected || run.Redirected, prev.until, prev.known
		later(&until, run.until, Order{})
		if run.known != nil && (known == nil || run.known.Order.After(known.Order)) {
			known = run.known
		}
		if run.Order.After(prev.Order) {
			*prev = run
		}
		prev.Runs, prev.Redirected, prev.until, prev.known = n, redir, until, known
		prev.LastKnown = nil
		if prev.Status == StatusUnknown && known != nil {
			prev.LastKnown = known
		}
	}
	rk := runnerKey(sh.core)
	run.runner = rk
	put(s.runs, run.Key)
	if rk != "" {
		put(s.runners, rk)
	}
}

// recordEdit records a successful edit that ended at end: inside the work tree by
// repository-relative path, outside it unless in the harness's folders or a temporary
// directory. A path inside the work tree through a symbolic link that now leads out of it is
// outside, at the link's target.
func (r *reader) recordEdit(c *call, end Order) {
	s := r.sess
	later(&s.LastEdit, c.order, end)
	for _, p := range c.paths {
		rel, ok := r.relToRoot(p)
		if ok {
			real, through := landed(p)
			if !through || r.insideReal(real) {
				if len(s.inside) < MaxEvidence {
					s.inside[rel] = true
				}
				continue
			}
			p = real
		}
		if r.isExempt(p) {
			continue
		}
		e := Edit{Path: p, Tool: c.tool, Order: c.order}
		replaced := false
		for i := range s.Outside {
			if s.Outside[i].Path == p {
				s.Outside[i], replaced = e, true
				break
			}
		}
		if !replaced && len(s.Outside) < MaxEvidence {
			s.Outside = append(s.Outside, e)
		}
	}
}

// atRoot reports whether dir is the repository root: as written, or its real path, or through
// symbolic links the executor cannot have retargeted since the call (stableReal).
func (r *reader) atRoot(dir string) bool {
	d := filepath.Clean(dir)
	if d == r.opts.Root || d == r.rootReal {
		return true
	}
	real, ok := stableReal(d)
	return ok && (real == r.opts.Root || real == r.rootReal)
}

// relToRoot returns p (absolute) relative to the root when it is inside the work tree: as
// written, or through symbolic links the executor cannot have retargeted (stableReal).
func (r *reader) relToRoot(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	for _, root := range []string{r.opts.Root, r.rootReal} {
		if rel, err := fsx.Rel(root, p); err == nil && rel != "." {
			return rel, true
		}
	}
	if dir, ok := stableReal(filepath.Dir(p)); ok {
		for _, root := range []string{r.opts.Root, r.rootReal} {
			if rel, err := fsx.Rel(root, filepath.Join(dir, filepath.Base(p))); err == nil && rel != "." {
				return rel, true
			}
		}
	}
	return "", false
}

// insideReal reports whether the real path p is inside the work tree.
func (r *reader) insideReal(p string) bool {
	for _, root := range []string{r.opts.Root, r.rootReal} {
		if _, err := fsx.Rel(root, p); err == nil {
			return true
		}
	}
	return false
}

// landed returns the real path where a write to p lands now, through its directory when p is
// gone, and whether a symbolic link on the way made it differ from p.
func landed(p string) (string, bool) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		dir, derr := filepath.EvalSymlinks(filepath.Dir(p))
		if derr != nil {
			return p, false
		}
		real = filepath.Join(dir, filepath.Base(p))
	}
	return real, real != filepath.Clean(p)
}

// maxLinks bounds the symbolic links stableReal follows.
const maxLinks = 40

// stableReal resolves the symbolic links of the absolute path p, each of which must sit where
// this process can write no directory, like macOS's /tmp link. A link the executor could have
// replaced says nothing about where a call ran, so ok is false for it or a missing component.
func stableReal(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	resolved := string(filepath.Separator)
	rest := strings.Split(filepath.Clean(p), string(filepath.Separator))
	links := 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", false
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		if links > maxLinks || writableChain(resolved) {
			return "", false
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", false
		}
		if filepath.IsAbs(target) {
			resolved = string(filepath.Separator)
		}
		rest = append(strings.Split(target, string(filepath.Separator)), rest...)
	}
	return resolved, true
}

// isExempt reports whether p is in a harness folder or a temporary directory.
func (r *reader) isExempt(p string) bool {
	p = filepath.Clean(p)
	for _, d := range r.exempt {
		if d == "" || d == "." {
			continue
		}
		if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// absIn resolves p against dir, "" when p is relative and dir unknown.
func absIn(p, dir string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, p)
}
