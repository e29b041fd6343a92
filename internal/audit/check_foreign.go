package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// MaxForeignRecordBytes bounds the read of another task's record; a larger or unreadable one
// hashes as ForeignUnreadable.
const MaxForeignRecordBytes = 16 << 20

// ForeignUnreadable is the hash checkForeignArtifacts and HashForeignRecord give a record that
// exists but cannot be read as a regular file of at most MaxForeignRecordBytes.
const ForeignUnreadable = "unreadable"

// HashForeignRecord returns the SHA-256 (lowercase hex) of root/rel, "" when it does not exist,
// ForeignUnreadable when it cannot be read (a symlink, a special file, too large). Pre-flight
// snapshots other tasks' records with it, and checkForeignArtifacts compares with it.
func HashForeignRecord(root, rel string) string {
	data, err := fsx.ReadInRoot(root, rel, MaxForeignRecordBytes)
	if err != nil {
		if fsx.ReasonOf(err) == fsx.ReasonMissing {
			return ""
		}
		return ForeignUnreadable
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// checkForeignArtifacts applies trust-model.md I3: a record of another task (its spec.md,
// executor-report.md, history-review*.md, state.json or audit.md, repopath.TaskArtifact) that
// existed at pre-flight (a key of in.ForeignBefore) and is in the changed set cs with other
// content now, or deleted, is a foreign_task_artifact_changed error. These names stay out of D,
// so no other check sees them. Not reported: the task's own records (the folder of
// in.SpecPath); another task's state.json or audit.md whose content in.ControllerWrote says that
// task's controller wrote (its own post-flight, run beside this task's); and records that
// appeared after pre-flight — the planner writing the next task's spec, another task's executor
// writing its first report — which cannot be told from this executor's writes, while a copied-in
// task has no controller record and is refused by I2. The entries are read in path order; a
// path that is not valid UTF-8 is never a task record.
func checkForeignArtifacts(in *Inputs, cs *gitscope.ChangedSet) []finding.Finding {
	var fs []finding.Finding
	for _, p := range ForeignRecords(in.SpecPath, in.ForeignBefore, cs) {
		task, name, _ := repopath.TaskArtifact(p)
		before := in.ForeignBefore[p]
		now := HashForeignRecord(in.Root, p)
		if now == before || foreignByController(task, name, now, in.ControllerWrote) {
			continue
		}
		fs = append(fs, newFinding(finding.KindForeignTaskArtifactChanged,
			fmt.Sprintf("%s is a record of task %s and changed since this task's pre-flight; an executor may change only its own task's records", p, task),
			"file", p, "task", task))
	}
	return fs
}

// ForeignRecords returns, in path order, the paths of cs that checkForeignArtifacts compares with
// before (Inputs.ForeignBefore): the records of a task other than the one of specPath that existed
// at pre-flight. They are controller artifacts, so outside D: the inputs fingerprint of a repeated
// post-flight hashes them itself (lifecycle-v2.md §5).
func ForeignRecords(specPath string, before map[string]string, cs *gitscope.ChangedSet) []string {
	own := strings.TrimSuffix(specPath, "spec.md")
	var out []string
	for _, e := range cs.Entries {
		p := string(e.Path)
		if strings.HasPrefix(p, own) {
			continue
		}
		if _, _, ok := repopath.TaskArtifact(p); !ok {
			continue
		}
		if _, existed := before[p]; existed {
			out = append(out, p)
		}
	}
	return out
}

// ForeignControllerWritten is the content id ForeignRecordID gives a record that its own task's
// controller wrote.
const ForeignControllerWritten = "controller"

// ForeignRecordID identifies the content of the record p (one of ForeignRecords) as far as
// checkForeignArtifacts can tell versions apart: ForeignControllerWritten for a state.json or
// audit.md that wrote says its task's controller wrote (never a finding, whichever version),
// otherwise HashForeignRecord. The inputs fingerprint of a repeated post-flight is built from it,
// so another task's own post-flights do not make this task's inputs look changed.
func ForeignRecordID(root, p string, wrote func(task, name, sha string) bool) string {
	task, name, _ := repopath.TaskArtifact(p)
	now := HashForeignRecord(root, p)
	if foreignByController(task, name, now, wrote) {
		return ForeignControllerWritten
	}
	return now
}

// foreignByController reports whether the content sha of task's record name is one that task's
// controller wrote (its state.json or audit.md), which trust-model.md I3 does not report.
func foreignByController(task, name, sha string, wrote func(task, name, sha string) bool) bool {
	return (name == "state.json" || name == "audit.md") && sha != "" && sha != ForeignUnreadable &&
		wrote != nil && wrote(task, name, sha)
}
