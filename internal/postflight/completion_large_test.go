package postflight

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestAcceptedLargeDriftCloses: an accepted drift audit over enough paths that its audit.md is
// larger than a snapshot file may be (MaxSnapshotFileBytes) still closes once its review is
// complete: the completion hashes audit.md as accept did, instead of finding it "changed".
func TestAcceptedLargeDriftCloses(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50,000 files")
	}
	root, opts := newTaskRepo(t)
	files := []string{"internal/cache/cache.go", "internal/cache/lru.go", "docs/cache.md"}
	writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = newLRU()\n")
	writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 0 }\n")
	writeFile(t, root, "docs/cache.md", "# Cache\n\nLRU.\n")
	for d := range 50 {
		if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("g%02d", d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 50000 {
		p := fmt.Sprintf("g%02d/%05d", i%50, i)
		if err := os.WriteFile(filepath.Join(root, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	writeFile(t, root, reportRel, reportText(files, ""))
	wantOutcome(t, run(t, opts, ModePostOnly), OutcomePostDrift, StatusDrift, NextPlannerReview)
	if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(auditRel))); err != nil || fi.Size() <= MaxSnapshotFileBytes {
		t.Fatalf("audit.md is not over the snapshot file limit: %v %v", fi.Size(), err)
	}
	res, err := Accept(context.Background(), AcceptOptions{Git: opts.Git, SpecArg: taskSpec, Reason: "the generated files are wanted", Now: fixedNow})
	if err != nil || res.Outcome != OutcomeAccepted {
		t.Fatalf("accept: %v %s: %s", err, res.Outcome, res.Message)
	}
	completeTheReview(t, root)
	wantOutcome(t, run(t, opts, ModeAuto), OutcomeCompleted, StatusLearned, NextClose)
}
