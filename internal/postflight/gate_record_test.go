package postflight

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mastermind-controller/mastermind/internal/finding"
)

// TestGateRecordKeepsPathFindings: gate --record runs the normal post-flight, which holds the
// per-path findings (unexpected_file, report_missing_changed_file) as runs; the task's row still
// lists them, with the same reason and counts as the read-only gate's audit of the same work.
func TestGateRecordKeepsPathFindings(t *testing.T) {
	root, opts := newTaskRepo(t)
	driftWith(t, root, "internal/cache/shard.go")
	rows := map[bool]GateTask{}
	for _, record := range []bool{false, true} {
		res, err := Gate(context.Background(), GateOptions{Git: opts.Git, Record: record, Now: fixedNow, StateDir: opts.StateDir})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tasks) != 1 {
			t.Fatalf("record %v: %d tasks", record, len(res.Tasks))
		}
		rows[record] = res.Tasks[0]
	}
	for record, row := range rows {
		found := false
		for _, f := range row.Findings {
			found = found || f.Rule == finding.KindUnexpectedFile && f.FieldString("file") == "internal/cache/shard.go"
		}
		if row.Status != GateDrift || !found || row.Counts == nil || *row.Counts != (Counts{Warnings: 1}) {
			t.Errorf("record %v: %s counts %v, findings %v", record, row.Status, row.Counts, row.Findings)
		}
	}
	if d := cmp.Diff(rows[false].Reason, rows[true].Reason); d != "" {
		t.Errorf("reason differs with --record (-audit +record):\n%s", d)
	}
}
