package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLoadWritesVersion1 reads a controller-writes.json of the version before one content-id
// vocabulary: its ids are translated to fsx.ContentID's, so the files an earlier run created
// stay the controller's after an upgrade instead of being charged to the executor.
func TestLoadWritesVersion1(t *testing.T) {
	_, tk, _ := newTask(t)
	h := sha256.Sum256([]byte("x"))
	hx := hex.EncodeToString(h[:])
	target := sha256.Sum256([]byte("../out.txt"))
	v1 := `{"version":1,"baseline":"b","paths":{"a.out":"file:` + hx + `","run.sh":"exec:` + hx + `","l":"link:../out.txt","odd":"dir"}}`
	must(t, os.WriteFile(filepath.Join(tk.Path(), writesFile), []byte(v1), 0o600))
	w, err := tk.LoadWrites()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.out": hx, "run.sh": "exec:" + hx, "l": "link:" + hex.EncodeToString(target[:])}
	if w.Baseline != "b" || !reflect.DeepEqual(w.Paths, want) {
		t.Fatalf("loaded %+v, want paths %v", w, want)
	}
	must(t, tk.SaveWrites(w))
	again, err := tk.LoadWrites()
	if err != nil || again.Version != 2 || !reflect.DeepEqual(again.Paths, want) {
		t.Fatalf("saved and loaded %+v (%v), want version 2 with %v", again, err, want)
	}
	must(t, os.WriteFile(filepath.Join(tk.Path(), writesFile), []byte(`{"version":3,"baseline":"b","paths":{}}`), 0o600))
	if _, err := tk.LoadWrites(); err == nil {
		t.Fatal("version 3 loaded")
	}
}

// A controller-writes.json with anything after its JSON value is damaged, not read up to the
// value: the error is KindCorrupt, names the file and says what to do.
func TestLoadWritesRefusesTrailingData(t *testing.T) {
	_, tk, _ := newTask(t)
	p := filepath.Join(tk.Path(), writesFile)
	good := `{"version":2,"baseline":"b","paths":{"a.out":"-"}}`
	for _, trailing := range []string{"\n", " \n\t"} {
		must(t, os.WriteFile(p, []byte(good+trailing), 0o600))
		if w, err := tk.LoadWrites(); err != nil || w.Paths["a.out"] != "-" {
			t.Fatalf("with trailing space %q: %+v, %v", trailing, w, err)
		}
	}
	for _, trailing := range []string{"{}", `{"version":2,"baseline":"c","paths":{}}`, "\n]", "x"} {
		must(t, os.WriteFile(p, []byte(good+trailing), 0o600))
		w, err := tk.LoadWrites()
		if err == nil {
			t.Fatalf("with trailing %q: loaded %+v", trailing, w)
		}
		msg := err.Error()
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(msg, p+": trailing data after the controller writes") || !strings.Contains(msg, "rerun --pre-only") {
			t.Errorf("with trailing %q: %v", trailing, err)
		}
	}
}
