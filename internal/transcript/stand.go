package transcript

import (
	"path/filepath"
	"strings"
	"time"
)

// Stand returns the last witnessed run of cmd when it may stand in for mastermind's own run of
// a run: witnessed command (docs/design/transcripts.md §6 conditions 1–3), or the reason it may
// not. others are the spec's other run: witnessed commands: their passing last runs may come
// after it, as may the read-only commands of readOnly. Condition 4 (the changed paths' status
// change times) is ChangedAfter's.
func (s *Session) Stand(cmd string, others []string) (*Run, string) {
	if s == nil {
		return nil, "no transcript was read"
	}
	if s.Truncated || s.Unpaired > 0 {
		return nil, "the transcript was only partly kept (too many commands or calls without a result)"
	}
	w := s.Lookup(cmd)
	switch {
	case w == nil:
		return nil, "the transcript shows no run of it"
	case w.Status != StatusPassed:
		return nil, "its last run in the transcript ended with " + w.Describe()
	case !s.LastBackground.At.IsZero():
		return nil, "a command ran in the background after pre-flight"
	case !s.LastEdit.At.IsZero() && s.LastEdit.After(w.Order):
		return nil, "an edit tool wrote after its last run"
	case !s.LastElsewhere.At.IsZero() && s.LastElsewhere.After(w.Order):
		return nil, "a command ran outside the repository root after its last run"
	}
	allowed := map[*Run]bool{w: true}
	for _, o := range others {
		if r := s.Lookup(o); r != nil && r.Status == StatusPassed {
			allowed[r] = true
		}
	}
	for k, r := range s.runs {
		if allowed[r] || !r.Order.After(w.Order) || readOnly(k, r) {
			continue
		}
		return nil, "\"" + r.Cmd + "\" ran after its last run"
	}
	return w, ""
}

// readOnly reports whether the witnessed command key (never redirected) only reads the work
// tree: git status, diff, log or show, ls, cat, pwd.
func readOnly(key string, r *Run) bool {
	if r.Redirected {
		return false
	}
	sh := parseShape(key, "", "")
	if !sh.parsed || sh.pipeline || sh.background || sh.redirected || sh.core != key || strings.ContainsAny(key, ";&|<>`$") {
		return false
	}
	f := strings.Fields(key)
	switch filepath.Base(f[0]) {
	case "ls", "cat", "pwd":
		return true
	case "git":
		return len(f) > 1 && (f[1] == "status" || f[1] == "diff" || f[1] == "log" || f[1] == "show")
	}
	return false
}

// ChangedAfter returns the first of paths (repository-relative, slash-separated) under root whose
// status change time is not strictly before t; a missing path is judged by its parent directory
// (its removal changed the directory). "" when every path was last changed before t.
func ChangedAfter(root string, paths []string, t time.Time) (string, bool) {
	for _, p := range paths {
		abs := filepath.Join(root, filepath.FromSlash(p))
		ct, ok := ctime(abs)
		if !ok {
			ct, ok = ctime(filepath.Dir(abs))
		}
		if !ok || !ct.Before(t) {
			return p, true
		}
	}
	return "", false
}
