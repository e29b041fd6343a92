package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeT records failures instead of ending the test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }
func (f *fakeT) Fatal(...any)          { f.failed = true }

// TestCheck: a matching file passes, a different or missing one fails, and -update writes the
// file (and its directory) and passes.
func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	for _, c := range []struct {
		name, file string
		write      bool
		update     bool
		fail       bool
	}{
		{name: "missing", fail: true},
		{name: "update writes", update: true},
		{name: "equal", file: "out\n", write: true},
		{name: "different", file: "other\n", write: true, fail: true},
	} {
		if c.write {
			if err := os.WriteFile(path, []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		*update = c.update
		ft := &fakeT{TB: t}
		Check(ft, path, []byte("out\n"))
		*update = false
		if ft.failed != c.fail {
			t.Errorf("%s: failed %v, want %v", c.name, ft.failed, c.fail)
		}
		if c.update {
			if data, err := os.ReadFile(path); err != nil || string(data) != "out\n" {
				t.Errorf("%s: file %q %v", c.name, data, err)
			}
		}
	}
}
