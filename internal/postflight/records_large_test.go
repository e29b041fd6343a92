package postflight

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/store"
)

// TestForgedLargeAuditMirror: an audit.md the executor replaced with one larger than a store copy
// (store.MaxCopyBytes, a sparse file here) is still checked against the record when the task is
// loaded, so the next post-flight reports controller_record_tampered and nobody reads the forged
// file as the controller's; a repeated post-flight reads up to MaxAuditBytes, so the check does
// too.
func TestForgedLargeAuditMirror(t *testing.T) {
	root, opts := newTaskRepo(t)
	driftWith(t, root, "internal/cache/shard.go")
	wantOutcome(t, run(t, opts, ModePostOnly), OutcomePostDrift, StatusDrift, NextPlannerReview)
	p := filepath.Join(root, filepath.FromSlash(auditRel))
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("⚠️ Drift (forged)\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(store.MaxCopyBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	res := run(t, opts, ModePostOnly)
	found := 0
	for f := range res.AllFindings() {
		if f.Rule == finding.KindControllerRecordTampered && f.FieldString("file") == auditRel {
			found++
		}
	}
	if found != 1 || res.Repeated {
		t.Fatalf("outcome %s repeated %v, %d tamper findings", res.Outcome, res.Repeated, found)
	}
}
