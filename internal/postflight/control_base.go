package postflight

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/contracts/filter"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// committedRule is the repopath.ControlRule of gate --base (trust-model.md §5, I3): there is no
// store, so a controller name changed in the range is left out of the changed set only when its
// committed bytes at the head have the one form the controller writes there (trust-model.md I3
// lists each name's form). Free text inside those forms stays the reviewer's to read.
type committedRule struct {
	dir string // the head tree
	// tasks are the task folders present at the head.
	tasks map[string]bool

	decisions
}

// Controller implements repopath.ControlRule.
func (r *committedRule) Controller(p string, c repopath.ControlName) bool {
	return r.once(p, func() bool { return r.decide(p, c) })
}

// newCommittedRule is the committed-content rule over the head tree dir, whose task folders
// are infos.
func newCommittedRule(dir string, infos []TaskInfo) *committedRule {
	r := &committedRule{dir: dir, tasks: map[string]bool{}}
	for _, in := range infos {
		r.tasks[in.Task.Name] = true
	}
	return r
}

// rangeRule is the rule of a range's ownership check (trust-model.md §5 step 2): every task's
// contract files and report are left out (the task whose folder the range touches is re-audited
// from them), and every other controller name is decided by rule.
type rangeRule struct{ rule repopath.ControlRule }

// Controller implements repopath.ControlRule.
func (r rangeRule) Controller(p string, c repopath.ControlName) bool {
	return c.Kind == repopath.ControlReport || c.Kind == repopath.ControlContract || r.rule.Controller(p, c)
}

// rangeRule is the gate's rule for the range's ownership check: gate --base's committed-content
// rule, else the store's with no task of its own.
func (g *gater) rangeRule(root string) repopath.ControlRule {
	if g.rule != nil {
		return rangeRule{g.rule}
	}
	return rangeRule{g.view.controlRule(Task{Root: root}, nil)}
}

// auditFirstLine is the first line of audit.md (writeAuditText) for a spec path and baseline.
var auditFirstLine = regexp.MustCompile("^(✅ Held|⚠️ Drift|❌ Broken) — (\\S+) \\(vs git ref `[0-9a-f]{40,64}`\\)$")

func (r *committedRule) decide(p string, c repopath.ControlName) bool {
	if c.Kind == repopath.ControlReport || c.Kind == repopath.ControlContract {
		return true
	}
	data, err := fsx.ReadInRoot(r.dir, p, MaxAuditBytes)
	if fsx.ReasonOf(err) == fsx.ReasonMissing {
		return true
	}
	if err != nil {
		return false
	}
	switch {
	case p == CurrentRel:
		task, ok := strings.CutSuffix(string(data), "\n")
		return ok && repopath.TaskNamePattern.MatchString(task) && r.tasks[task]
	case strings.HasPrefix(p, repopath.ControlDir+"/dispatch/"):
		return filter.IsCounterFile(strings.TrimSuffix(c.Name, ".json"), data)
	case p == TasksDir+"/"+lessonsName:
		return IsLessonsShaped(data)
	case strings.HasPrefix(p, repopath.ControlDir+"/releases/"):
		return r.tasks[c.Task] && isReleaseNotes(data)
	case c.Name == mirrorState:
		st, err := ParseState(data)
		if err != nil || st.SpecPath != TasksDir+"/"+c.Task+"/spec.md" {
			return false
		}
		want, err := MarshalState(st)
		return err == nil && bytes.Equal(want, data)
	case c.Name == mirrorAudit:
		first, rest, _ := bytes.Cut(data, []byte("\n"))
		m := auditFirstLine.FindSubmatch(first)
		return m != nil && string(m[2]) == TasksDir+"/"+c.Task+"/spec.md" &&
			bytes.Contains(rest, []byte("\nStructured audit evidence (JSON; null means not evaluated):\n"))
	case repopath.IsArchivedReview(c.Name):
		// A name that is its bytes' own SHA-256 is no form at all: the review's own Audit
		// snapshot must name it (hardening.md A-N2).
		return reviewSnapshot(data) == strings.TrimSuffix(strings.TrimPrefix(c.Name, "history-review."), ".md")
	}
	return false
}

// isReleaseNotes reports whether data has the form of §8.1 release notes: a title, the Summary,
// Tests and Diff sections and the audit trailer last.
func isReleaseNotes(data []byte) bool {
	s := string(data)
	if !strings.HasPrefix(s, "# ") || !strings.Contains(s, "\n\n## Summary\n\n") || !strings.Contains(s, "\n\n## Diff\n\n```text\n") {
		return false
	}
	i := strings.LastIndex(s, "```\n\n---\n")
	if i < 0 {
		return false
	}
	trailer := s[i+len("```\n\n---\n"):]
	return trailer == "Audit: ✅ Held\n" || (strings.HasPrefix(trailer, "Audit: ⚠️ Drift, accepted by the planner: ") &&
		strings.Count(trailer, "\n") == 1 && strings.HasSuffix(trailer, "\n"))
}
