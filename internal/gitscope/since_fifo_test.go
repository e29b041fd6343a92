package gitscope

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSnapshotRunRefusesFIFOsAtOnce: a FIFO anywhere a snapshot run's git would read makes
// every git reader wait (git 2.39 opens them blocking); ChangedSetSince refuses it with
// ErrUnsafeRepository within a second, before git starts, in CLI and degraded mode. A FIFO at a
// work-tree .gitignore is not even read (the pre-flight rules come from the snapshot): the run
// answers at once without error.
func TestSnapshotRunRefusesFIFOsAtOnce(t *testing.T) {
	cases := []struct {
		name  string
		place func(f *fixture) string // returns the path to turn into a FIFO
		ok    bool                    // no error: the FIFO is never read
		// okDegraded: the degraded reader never reads it (it applies no attributes).
		okDegraded bool
	}{
		{"info/attributes", func(f *fixture) string { return f.path(".git/info/attributes") }, false, false},
		{"info/grafts", func(f *fixture) string { return f.path(".git/info/grafts") }, false, false},
		{"info/sparse-checkout", func(f *fixture) string { return f.path(".git/info/sparse-checkout") }, false, false},
		{".gitmodules", func(f *fixture) string { return f.path(".gitmodules") }, false, false},
		{".gitattributes in a baseline directory", func(f *fixture) string { return f.path("dir/.gitattributes") }, false, false},
		{"a loose object", func(f *fixture) string {
			oid := strings.TrimSpace(f.git("rev-parse", "HEAD:dir"))
			p := f.path(".git/objects/" + oid[:2] + "/" + oid[2:])
			f.remove(".git/objects/" + oid[:2] + "/" + oid[2:])
			return p
		}, false, false},
		{"core.attributesFile", func(f *fixture) string {
			p := filepath.Join(f.tmp(), "attrs-fifo")
			f.git("config", "core.attributesFile", p)
			return p
		}, false, true},
		{"a config include", func(f *fixture) string {
			p := filepath.Join(f.tmp(), "inc-fifo")
			f.git("config", "include.path", p)
			return p
		}, false, false},
		{"~/.gitconfig", func(f *fixture) string { return filepath.Join(f.home, ".gitconfig") }, false, false},
		{"work-tree .gitignore", func(f *fixture) string { return f.path("dir/.gitignore") }, true, true},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			for _, opts := range []Options{{}, noGit} {
				f := newFixture(t)
				b := stdBase(f)
				st := takeSnapshot(t, f, f.dir, b, opts)
				p := tc.place(f)
				must(t, syscall.Mkfifo(p, 0o644))
				start := time.Now()
				done := make(chan error, 1)
				go func() { _, err := since(t, f.dir, b, st, opts); done <- err }()
				select {
				case err := <-done:
					if el := time.Since(start); el > time.Second {
						t.Errorf("took %s", el)
					}
					ok := tc.ok || (tc.okDegraded && opts.LookPath != nil)
					switch {
					case ok && err != nil:
						t.Errorf("err %v, want none (the FIFO is never read)", err)
					case !ok && !errors.Is(err, ErrUnsafeRepository):
						t.Errorf("err %v, want ErrUnsafeRepository", err)
					}
				case <-time.After(20 * time.Second):
					t.Fatalf("blocked on the FIFO at %s", p)
				}
			}
		})
	}
}
