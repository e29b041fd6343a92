package audit

import (
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// checkForeignArtifacts applies trust-model.md I3: a record of another task (its spec.md,
// executor-report.md, history-review*.md, state.json or audit.md, repopath.TaskArtifact) that
// differs from the baseline — modified, added, deleted or untracked — is a
// foreign_task_artifact_changed error. These names stay out of D, so no other check sees them.
// The task's own records (the folder of specPath) are the planner's and the controller's, and are
// never reported. The entries are read from the whole changed set cs, sorted by path; a path
// that is not valid UTF-8 is never a task record.
func checkForeignArtifacts(cs *gitscope.ChangedSet, specPath string) []finding.Finding {
	own := strings.TrimSuffix(specPath, "/spec.md") + "/"
	var fs []finding.Finding
	for _, e := range cs.Entries {
		p := string(e.Path)
		if strings.HasPrefix(p, own) {
			continue
		}
		if task, _, ok := repopath.TaskArtifact(p); ok {
			fs = append(fs, newFinding(finding.KindForeignTaskArtifactChanged,
				fmt.Sprintf("%s is a record of task %s and changed since this task's baseline; an executor may change only its own task's records", p, task),
				"file", p, "task", task))
		}
	}
	return fs
}
