package audit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// TestReceiptsAndInputsReadOneContentID: on a real changed set holding every kind of path git
// lists, the receipts' path states (pathStates) carry the same content id per path as the inputs
// fingerprint reads (fsx.ContentIDs over the same D, as postflight.readInputs calls it), and an
// executable file is told apart from the same bytes without the bit.
func TestReceiptsAndInputsReadOneContentID(t *testing.T) {
	f := newFixture(t, "touches:\n  - file: a.go\n", map[string]string{"a.go": "a\n", "gone.go": "g\n", "run.sh": "#!/bin/sh\n"},
		map[string]string{"a.go": "a2\n", "gone.go": "", "new/b.txt": "b\n", "new/c.sh": "#!/bin/sh\n"})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(filepath.Join(f.root, "run.sh"), 0o755))
	must(os.Chmod(filepath.Join(f.root, "new", "c.sh"), 0o755))
	must(os.Symlink("a.go", filepath.Join(f.root, "link")))
	nested := filepath.Join(f.root, "sub")
	must(os.Mkdir(nested, 0o755))
	gitCmd(t, nested, "init", "-q")
	write(t, nested, "x", "x\n")
	gitCmd(t, nested, "add", "x")
	gitCmd(t, nested, "commit", "-q", "-m", "x")
	cs, err := f.repo.ChangedSet(context.Background(), f.baseline)
	must(err)
	d, _ := TaskD(f.root, cs, f.control, nil)
	paths := make([]string, len(d))
	for i, e := range d {
		paths[i] = string(e.Path)
	}
	ids, err := fsx.ContentIDs(f.root, paths)
	must(err)
	states := pathStates(f.root, d)
	byPath := map[string]string{}
	for i, p := range paths {
		if states[i].Path != p || states[i].Content != ids[i] {
			t.Errorf("%s: receipts read %q, the inputs fingerprint %q", p, states[i].Content, ids[i])
		}
		byPath[p] = ids[i]
	}
	for _, p := range []string{"a.go", "gone.go", "link", "new/b.txt", "new/c.sh", "run.sh", "sub"} {
		if _, ok := byPath[p]; !ok {
			t.Errorf("%s is not in D %q: the test does not cover it", p, paths)
		}
	}
	if b, x := byPath["new/b.txt"], byPath["new/c.sh"]; b == x || !strings.HasPrefix(x, "exec:") || !fsx.ContentStable(x) {
		t.Errorf("executable new/c.sh %q, plain new/b.txt %q", x, b)
	}
	head := strings.TrimSpace(gitCmd(t, nested, "rev-parse", "HEAD"))
	if byPath["gone.go"] != fsx.ContentAbsent || byPath["sub"] != "repo:"+head {
		t.Errorf("ids %v", byPath)
	}
}
