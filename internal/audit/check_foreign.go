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

// HashForeignRecord returns the lowercase hex SHA-256 of root/rel, "" when it does not exist
// and ForeignUnreadable when it is not a small regular file. Pre-flight snapshots other tasks'
// records with it, and checkForeignArtifacts compares with it.
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

// checkForeignArtifacts applies the foreign check of trust-model.md I3: a record of another task
// that existed at pre-flight and has changed or gone is a foreign_task_artifact_changed error.
// What it leaves unreported, and why, is listed there.
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
// before: the records of another task that existed at pre-flight. They are outside D, so the
// inputs fingerprint of a repeated post-flight hashes them itself.
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

// ForeignRecordID identifies the content of the record p as far as checkForeignArtifacts tells
// versions apart: ForeignControllerWritten for a version its task's controller wrote, otherwise
// HashForeignRecord. It keeps another task's post-flights from changing this task's inputs
// fingerprint.
func ForeignRecordID(root, p string, wrote func(task, name, sha string) bool) string {
	task, name, _ := repopath.TaskArtifact(p)
	now := HashForeignRecord(root, p)
	if foreignByController(task, name, now, wrote) {
		return ForeignControllerWritten
	}
	return now
}

// foreignByController reports whether the content sha of task's state.json or audit.md is one
// that task's controller wrote, which I3 does not report.
func foreignByController(task, name, sha string, wrote func(task, name, sha string) bool) bool {
	return (name == "state.json" || name == "audit.md") && sha != "" && sha != ForeignUnreadable &&
		wrote != nil && wrote(task, name, sha)
}
