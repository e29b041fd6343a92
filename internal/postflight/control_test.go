package postflight

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/store"
)

// TestLeftoverTemporariesRemoved (trust-model.md I3, #26 item 4): a temporary file that a killed
// run of the task's controller left behind carries the task's MAC and is removed by the next
// run-task before it reads anything, wherever the controller writes; a temporary-shaped name
// without the MAC is no controller name (it used to be left out of the changed set by its shape)
// and stays, a changed path of the task.
func TestLeftoverTemporariesRemoved(t *testing.T) {
	root, opts, dir := heldTask(t)
	loc, err := store.Location()
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	gitDir, err := opts.Git.GitDir()
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.OpenRepo(store.RepoRef{GitDir: gitDir, WorkTree: root})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	names, err := r.TempNames("020-cache")
	if err != nil {
		t.Fatal(err)
	}
	ours := []string{
		filepath.Join(dir, names.TempName("audit.md")),
		filepath.Join(root, ".mastermind", "releases", names.TempName("020-cache.md")),
		filepath.Join(root, ".mastermind", names.TempName("current")),
	}
	for _, p := range ours {
		writeFile(t, filepath.Dir(p), filepath.Base(p), "half a write")
	}
	theirs := filepath.Join(dir, ".state.json123")
	writeFile(t, dir, ".state.json123", "payload")
	res := run(t, opts, ModePostOnly)
	for _, p := range ours {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
	if _, err := os.Lstat(theirs); err != nil {
		t.Errorf("a file that is not the controller's was removed: %v", err)
	}
	if res.Outcome != OutcomePostBroken || !strings.Contains(outcomeText(res), ".mastermind/tasks/020-cache/.state.json123") {
		t.Errorf("outcome %s, want broken naming the temporary-shaped file\n%s", res.Outcome, outcomeText(res))
	}
}
