package store

import (
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRegistry: what the controller records before a write is what Wrote later recognises, the
// last version and the earlier ones; a removal is recorded as "", names that are no controller
// names are refused, and a corrupt registry is KindCorrupt, left as it is.
func TestRegistry(t *testing.T) {
	s, _, ref := newTask(t)
	r, err := s.OpenRepo(ref)
	must(t, err)
	defer r.Close()
	now := time.Unix(1796040000, 0)
	notes := ".mastermind/releases/001-a.md"
	must(t, r.Record(notes, []byte("v1"), now))
	must(t, r.Record(notes, []byte("v2"), now))
	must(t, r.Record(".mastermind/current", nil, now))
	g, err := r.Registry()
	must(t, err)
	for _, tc := range []struct {
		rel, content string
		present      bool
		want         bool
	}{
		{notes, "v2", true, true},
		{notes, "v1", true, true}, // an earlier version: an interrupted write, never a payload
		{notes, "payload", true, false},
		{notes, "", false, false}, // the controller never removed them
		{".mastermind/current", "", false, true},
		{".mastermind/current", "001-a\n", true, false},
		{".mastermind/tasks/_lessons.md", "x", true, false},
	} {
		h := ""
		if tc.present {
			h = fsx.SHA256Hex([]byte(tc.content))
		}
		if got := g.Wrote(tc.rel, h); got != tc.want {
			t.Errorf("Wrote(%s, %q) = %v, want %v", tc.rel, tc.content, got, tc.want)
		}
	}
	if err := r.Record(".mastermind/tasks/001-a/cache.lock", []byte("x"), now); KindOf(err) != KindCorrupt {
		t.Errorf("a lock name recorded: %v", err)
	}
	p := filepath.Join(r.Path(), registryFile)
	must(t, os.WriteFile(p, []byte("{not json"), 0o600))
	if _, err := r.Registry(); KindOf(err) != KindCorrupt {
		t.Errorf("corrupt registry: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{not json" {
		t.Error("the corrupt registry was changed")
	}
}

// TestTempNames: a name TempName gave is recognised for its task, and nothing else is: not
// another task's, not a changed MAC, not the old ".<name><digits>" shape.
func TestTempNames(t *testing.T) {
	s, _, ref := newTask(t)
	r, err := s.OpenRepo(ref)
	must(t, err)
	defer r.Close()
	a, err := r.TempNames("001-a")
	must(t, err)
	b, err := r.TempNames("002-b")
	must(t, err)
	n := a.TempName("audit.md")
	if !strings.HasPrefix(n, ".audit.md.") || len(n) != len(".audit.md.")+32 {
		t.Fatalf("temporary name %q", n)
	}
	if !a.IsTemp(n) {
		t.Errorf("%s not recognised", n)
	}
	if b.IsTemp(n) {
		t.Errorf("%s recognised for another task", n)
	}
	flipped := n[:len(n)-1] + string("01"[(n[len(n)-1]-'0'+1)%2])
	if a.IsTemp(flipped) || a.IsTemp(".audit.md123") || a.IsTemp("audit.md") || a.IsTemp(strings.ToUpper(n)) {
		t.Error("a name TempName never gave was recognised")
	}
	// The key is the store's: a second namer reads the same key.
	again, err := r.TempNames("001-a")
	must(t, err)
	if !again.IsTemp(n) {
		t.Error("the key changed between two namers")
	}
	if fi, err := os.Stat(filepath.Join(r.Path(), tempKeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("temp.key: %v %v", fi, err)
	}
}

// TestForeignFilesRoundTrip: an empty pre-flight file set stays empty (taken, nothing there) and
// a record without one stays without (from before #26), so a re-pre-flight can tell them apart.
func TestForeignFilesRoundTrip(t *testing.T) {
	_, tk, _ := newTask(t)
	now := time.Unix(1796040000, 0)
	for _, files := range []map[string]string{{}, nil} {
		rec := &Record{State: []byte(`{}`), Foreign: &ForeignSnapshot{Baseline: "b", Records: map[string]string{}, Files: files}}
		must(t, tk.Save(rec, now))
		got, err := tk.Load()
		must(t, err)
		if (got.Foreign.Files == nil) != (files == nil) {
			t.Errorf("Files %v came back as %v", files, got.Foreign.Files)
		}
	}
}
