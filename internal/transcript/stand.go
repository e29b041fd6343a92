package transcript

import (
	"path/filepath"
	"strings"
	"time"
)

// Stand returns the last witnessed run of cmd when it may stand in for mastermind's own run of
// a run: witnessed command by transcripts.md §6 conditions 1–3, or the reason it may not. Only a
// run of cmd itself counts. others are the spec's other run: witnessed commands, whose passing
// runs may come after it; condition 4 is ChangedAfter's.
func (s *Session) Stand(cmd string, others []string) (*Run, string) {
	if s == nil {
		return nil, "no transcript was read"
	}
	switch {
	case s.Truncated || s.Unpaired > 0:
		return nil, "the transcript was only partly kept (too many commands or calls without a result)"
	case s.Partial():
		return nil, "a subagent file of the session was not read"
	case s.UnknownAfter > 0:
		return nil, "the transcript has entries after pre-flight that mastermind cannot read"
	}
	w := s.lookupExact(cmd)
	switch {
	case w == nil:
		if s.Lookup(cmd) != nil {
			return nil, "the transcript shows runs of an equivalent command only, not of it"
		}
		return nil, "the transcript shows no run of it"
	case w.Status != StatusPassed:
		return nil, "its last run in the transcript ended with " + w.Describe()
	case !s.LastBackground.At.IsZero():
		return nil, "a command ran in the background, or may have left a process running, after pre-flight"
	case !s.LastEdit.At.IsZero() && s.LastEdit.After(w.Order):
		return nil, "an edit tool wrote after its last run"
	case !s.LastElsewhere.At.IsZero() && s.LastElsewhere.After(w.Order):
		return nil, "a command ran outside the repository root after its last run"
	case !s.LastOther.At.IsZero() && s.LastOther.After(w.Order):
		return nil, "a tool whose effect mastermind does not read ran after its last run"
	}
	allowed := map[*Run]bool{w: true}
	for _, o := range others {
		if r := s.lookupExact(o); r != nil && r.Status == StatusPassed {
			allowed[r] = true
		}
	}
	var first *Run // the earliest, so that the reason does not depend on map order
	for k, r := range s.runs {
		if allowed[r] || !(r.Order.After(w.Order) || r.until.After(w.Order)) || readOnly(k, r) {
			continue
		}
		if first == nil || first.Order.After(r.Order) || !r.Order.After(first.Order) && r.Key < first.Key {
			first = r
		}
	}
	if first != nil {
		return nil, "\"" + first.Cmd + "\" ran after its last run, or was still running when it started"
	}
	return w, ""
}

// readOnly reports whether the witnessed command key only reads the work tree: git status, diff,
// log or show without --output or --ext-diff, ls, cat or pwd, each by its bare name.
func readOnly(key string, r *Run) bool {
	if r.Redirected {
		return false
	}
	sh := parseShape(key, "", "")
	if !sh.parsed || sh.pipeline || sh.background || sh.redirected || sh.core != key || strings.ContainsAny(key, ";&|<>`$") {
		return false
	}
	f := strings.Fields(key)
	switch f[0] {
	case "ls", "cat", "pwd":
		return true
	case "git":
		if len(f) < 2 || (f[1] != "status" && f[1] != "diff" && f[1] != "log" && f[1] != "show") {
			return false
		}
		for _, a := range f[2:] {
			if strings.HasPrefix(a, "--output") || strings.HasPrefix(a, "--ext-diff") {
				return false
			}
		}
		return true
	}
	return false
}

// ChangedAfter returns the first of paths under root that may have changed at or after t, by the
// status change times of transcripts.md §6 condition 4, and "" when none did. A directory above a
// path and a path on another file system count against it.
func ChangedAfter(root string, paths []string, t time.Time) (string, bool) {
	rootDev, ok := statDev(root)
	if !ok {
		return "", len(paths) > 0
	}
	dirs := map[string]bool{}
	stable := func(abs string) bool {
		ct, dev, ok := statTimes(abs)
		return ok && dev == rootDev && ct.Before(t)
	}
	for _, p := range paths {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if _, _, ok := statTimes(abs); ok {
			if !stable(abs) {
				return p, true
			}
		} else if !stable(filepath.Dir(abs)) {
			return p, true
		}
		for d := filepath.Dir(abs); d != root && strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
			if dirs[d] {
				break // checked with its ancestors
			}
			if !stable(d) {
				return p, true
			}
			dirs[d] = true
		}
	}
	return "", false
}
