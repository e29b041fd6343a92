package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// callKind is what a pending tool call does.
type callKind int

const (
	callShell callKind = iota
	callEdit
)

// call is a tool call waiting for its result.
type call struct {
	id    string
	kind  callKind
	order Order
	sub   bool
	// before is true for a call at or before the pre-flight time (paired, then dropped).
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
	// ok is false for an edit that failed (it wrote nothing).
	ok bool
	// running is the Codex unified-exec session a command still runs in (0: none).
	running int64
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
	// running Codex commands by unified-exec session id (settled by a later write_stdin).
	running map[int64]*call
	// the file being read, its line, and the working directory the harness last recorded.
	file, line    int
	cwd, codexCwd string
	known         int
	badVersion    string
	// shapes caches parseShape by directory and command (sessions repeat their commands).
	shapes map[[2]string]shape
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

// knownVersion: Claude Code 2.0.x from 2.0.76 and 2.1.x (the published schemas cover 2.0.76 to
// 2.1.144, and 2.1.97+ share one schema), Codex 0.x (the codex-rs/protocol rollout types).
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

// semver reads "MAJOR.MINOR.PATCH" with an optional -suffix.
func semver(v string) (major, minor, patch int, ok bool) {
	v, _, _ = strings.Cut(v, "-")
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

// counts reports whether an entry at t is after the pre-flight time (and counts it if not).
func (r *reader) counts(t time.Time) bool {
	if t.After(r.opts.After) {
		return true
	}
	r.sess.Before++
	return false
}

// addPending queues c for its result, settling the oldest call when the table is full.
func (r *reader) addPending(c *call) {
	if old, dup := r.pending[c.id]; dup {
		r.settle(old, result{note: "no result"})
	}
	for len(r.pending) >= MaxPending && len(r.fifo) > 0 {
		id := r.fifo[0]
		r.fifo = r.fifo[1:]
		if old := r.pending[id]; old != nil {
			delete(r.pending, id)
			r.sess.Unpaired++
			r.settle(old, result{note: "no result"})
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

// take removes and returns the pending call id (nil when there is none).
func (r *reader) take(id string) *call {
	c := r.pending[id]
	if c != nil {
		delete(r.pending, id)
	}
	return c
}

// settleAll settles every pending and running call (end of a file).
func (r *reader) settleAll(note string) {
	for _, id := range r.fifo {
		if c := r.pending[id]; c != nil {
			r.settle(c, result{note: note})
		}
	}
	r.pending, r.fifo = map[string]*call{}, nil
	for id, c := range r.running {
		r.settle(c, result{note: "background"})
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
			r.recordEdit(c)
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
	if background {
		if s.LastBackground.At.IsZero() || c.order.After(s.LastBackground) {
			s.LastBackground = c.order
		}
	}
	for _, g := range sh.git {
		if gitRewrite(g) && len(s.Rewrites) < MaxEvidence {
			s.Rewrites = append(s.Rewrites, run)
			break
		}
	}
	if sh.dir == "" || !r.atRoot(sh.dir) {
		if s.LastElsewhere.At.IsZero() || c.order.After(s.LastElsewhere) {
			s.LastElsewhere = c.order
		}
		return
	}
	run.AtRoot, run.Key, run.Redirected = true, keyOf(sh.core), sh.redirected
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
		n, redir := prev.Runs+1, prev.Redirected || run.Redirected
		if run.Order.After(prev.Order) {
			*prev = run
		}
		prev.Runs, prev.Redirected = n, redir
	}
	rk := runnerKey(sh.core)
	run.runner = rk
	put(s.runs, run.Key)
	if rk != "" {
		put(s.runners, rk)
	}
}

// recordEdit records a successful edit: inside the work tree by repository-relative path,
// outside it unless in the harness's folders or a temporary directory.
func (r *reader) recordEdit(c *call) {
	s := r.sess
	if s.LastEdit.At.IsZero() || c.order.After(s.LastEdit) {
		s.LastEdit = c.order
	}
	for _, p := range c.paths {
		if rel, ok := r.relToRoot(p); ok {
			if len(s.inside) < MaxEvidence {
				s.inside[rel] = true
			}
			continue
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

// atRoot reports whether dir is the repository root (as written, or its real path).
func (r *reader) atRoot(dir string) bool {
	d := filepath.Clean(dir)
	if d == r.opts.Root || d == r.rootReal {
		return true
	}
	real, err := filepath.EvalSymlinks(d)
	return err == nil && (real == r.opts.Root || real == r.rootReal)
}

// relToRoot returns p (absolute) relative to the root when it is inside the work tree.
func (r *reader) relToRoot(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	for _, root := range []string{r.opts.Root, r.rootReal} {
		if rel, err := fsx.Rel(root, p); err == nil && rel != "." {
			return rel, true
		}
	}
	if rel, err := fsx.RelReal(r.opts.Root, p); err == nil && rel != "." {
		return rel, true
	}
	return "", false
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

// absIn resolves p against dir ("" when p is relative and dir unknown).
func absIn(p, dir string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, p)
}
