package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestLocation(t *testing.T) {
	home := func() (string, error) { return "/home/u", nil }
	noHome := func() (string, error) { return "", errors.New("none") }
	for _, tt := range []struct {
		env  map[string]string
		home func() (string, error)
		goos string
		want string
		kind Kind
	}{
		{map[string]string{EnvStateDir: "/s", "XDG_STATE_HOME": "/x"}, home, "linux", "/s", ""},
		{map[string]string{"XDG_STATE_HOME": "/x"}, home, "linux", "/x/mastermind", ""},
		{map[string]string{"XDG_STATE_HOME": "relative"}, home, "linux", "/home/u/.local/state/mastermind", ""},
		{nil, home, "darwin", "/home/u/.local/state/mastermind", ""},
		{nil, noHome, "linux", "", KindNoLocation},
		{map[string]string{"LocalAppData": `/c/Users/u/AppData/Local`}, home, "windows", "/c/Users/u/AppData/Local/mastermind", ""},
		{map[string]string{"XDG_STATE_HOME": "/x"}, home, "windows", "", KindNoLocation},
	} {
		got, err := location(func(k string) string { return tt.env[k] }, tt.home, tt.goos)
		if got != tt.want || KindOf(err) != tt.kind {
			t.Errorf("location(%v, %s) = %q, %v; want %q, kind %q", tt.env, tt.goos, got, err, tt.want, tt.kind)
		}
	}
	wd, _ := os.Getwd()
	if got, _ := location(func(k string) string {
		if k == EnvStateDir {
			return "rel"
		}
		return ""
	}, home, "linux"); got != filepath.Join(wd, "rel") {
		t.Errorf("a relative %s is made absolute: %q", EnvStateDir, got)
	}
}

func TestRepoIDRealPath(t *testing.T) {
	dir := t.TempDir()
	gd := filepath.Join(dir, "repo", ".git")
	must(t, os.MkdirAll(gd, 0o755))
	must(t, os.Symlink(filepath.Join(dir, "repo"), filepath.Join(dir, "link")))
	a, err := RepoID(gd)
	must(t, err)
	b, err := RepoID(filepath.Join(dir, "link", ".git"))
	must(t, err)
	if a != b || len(a) != 64 {
		t.Fatalf("RepoID through a symlink differs: %s %s", a, b)
	}
	wt := filepath.Join(gd, "worktrees", "w")
	must(t, os.MkdirAll(wt, 0o755))
	if c, _ := RepoID(wt); c == a {
		t.Fatal("a linked worktree's git directory must have its own id")
	}
}

// newTask opens a store in a temporary directory and one task of a fake repository in it.
func newTask(t *testing.T) (*Store, *Task, RepoRef) {
	t.Helper()
	dir := t.TempDir()
	wt := filepath.Join(dir, "repo")
	must(t, os.MkdirAll(filepath.Join(wt, ".git"), 0o755))
	must(t, os.MkdirAll(filepath.Join(wt, ".mastermind", "tasks", "001-a"), 0o755))
	s, err := Open(filepath.Join(dir, "state"))
	must(t, err)
	t.Cleanup(func() { s.Close() })
	ref := RepoRef{GitDir: filepath.Join(wt, ".git"), WorkTree: wt}
	tk, err := s.OpenTask(ref, "001-a")
	must(t, err)
	t.Cleanup(func() { tk.Close() })
	return s, tk, ref
}

func record(iter int, taskDir string) *Record {
	return &Record{TaskDir: taskDir, State: json.RawMessage(`{"iteration": ` + strings.Repeat("1", iter) + `}`)}
}

func TestSaveLoadAndModes(t *testing.T) {
	s, tk, ref := newTask(t)
	r, err := tk.Load()
	if r != nil || err != nil {
		t.Fatalf("Load of a new task = %v, %v", r, err)
	}
	rec := record(1, filepath.Join(ref.WorkTree, ".mastermind", "tasks", "001-a"))
	rec.SetMirror("state.json", []byte("v1"))
	must(t, tk.Save(rec, time.Unix(100, 0)))
	got, err := tk.Load()
	must(t, err)
	if got.Task != "001-a" || got.UpdatedAt != 100 || got.Mirrors["state.json"].SHA256 != fsx.SHA256Hex([]byte("v1")) {
		t.Fatalf("Load = %+v", got)
	}
	var v map[string]int
	must(t, json.Unmarshal(got.State, &v))
	if v["iteration"] != 1 {
		t.Fatalf("state = %s", got.State)
	}
	want, _ := s.TaskPath(ref.GitDir, "001-a")
	if tk.Path() != want {
		t.Fatalf("Path %s, TaskPath %s", tk.Path(), want)
	}
	// Every folder from the root down is 0700, the record 0600.
	for p := tk.Path(); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		must(t, err)
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s has mode %v, want 0700", p, fi.Mode().Perm())
		}
		if p == s.Root() {
			break
		}
	}
	if fi, _ := os.Stat(filepath.Join(tk.Path(), "state.json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v", fi.Mode().Perm())
	}
	var rr RepoRef
	data, _ := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(tk.Path())), "repo.json"))
	must(t, json.Unmarshal(data, &rr))
	if rr.WorkTree != ref.WorkTree {
		t.Fatalf("repo.json = %s", data)
	}
}

func TestLoadRefusesCorruptRecords(t *testing.T) {
	_, tk, _ := newTask(t)
	p := filepath.Join(tk.Path(), "state.json")
	for _, bad := range []string{
		``, `{`, `[]`, `{"record_version":1,"task":"001-a","task_dir":"","state":{},"mirrors":{},"updated_at":0,"x":1}`,
		`{"record_version":2,"task":"001-a","task_dir":"","state":{},"mirrors":{},"updated_at":0}`,
		`{"record_version":1,"task":"002-b","task_dir":"","state":{},"mirrors":{},"updated_at":0}`,
		`{"record_version":1,"task":"001-a","task_dir":"","state":[],"mirrors":{},"updated_at":0}`,
		`{"record_version":1,"task":"001-a","task_dir":"","state":{},"mirrors":{"a":{"sha256":"xyz"}},"updated_at":0}`,
		`{"record_version":1,"task":"001-a","task_dir":"","state":{},"mirrors":{},"updated_at":0} {}`,
	} {
		must(t, os.WriteFile(p, []byte(bad), 0o600))
		if _, err := tk.Load(); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Load(%q) = %v, want corrupt", bad, err)
		}
		if b, _ := os.ReadFile(p); string(b) != bad {
			t.Errorf("a corrupt record was changed")
		}
	}
	must(t, os.Remove(p))
	must(t, os.Symlink("/etc/passwd", p))
	if _, err := tk.Load(); !errors.Is(err, ErrUnsafe) {
		t.Errorf("Load through a symlink = %v, want unsafe", err)
	}
	if err := tk.Save(record(1, ""), time.Now()); !errors.Is(err, ErrUnsafe) {
		t.Errorf("Save over a symlink = %v, want unsafe", err)
	}
}

func TestMirrors(t *testing.T) {
	_, tk, _ := newTask(t)
	r := record(1, "")
	if r.CheckMirror("audit.md", []byte("x"), true) != MirrorUnknown {
		t.Fatal("no entry: unknown")
	}
	r.SetMirror("audit.md", []byte("v1"))
	r.SetMirror("audit.md", []byte("v2"))
	r.SetMirror("audit.md", []byte("v2")) // the same content again changes nothing
	for _, tt := range []struct {
		data    string
		present bool
		want    MirrorStatus
	}{
		{"v2", true, MirrorMatches}, {"v1", true, MirrorStale}, {"v3", true, MirrorTampered}, {"", false, MirrorMissing},
	} {
		if got := r.CheckMirror("audit.md", []byte(tt.data), tt.present); got != tt.want {
			t.Errorf("CheckMirror(%q, %v) = %d, want %d", tt.data, tt.present, got, tt.want)
		}
	}
	if e := r.Mirrors["audit.md"].Earlier; len(e) != 1 || e[0] != fsx.SHA256Hex([]byte("v1")) {
		t.Fatalf("Earlier = %v", e)
	}
	for i := 0; i < MaxEarlier+5; i++ {
		r.SetMirror("audit.md", []byte(fmt.Sprint("x", i)))
	}
	if n := len(r.Mirrors["audit.md"].Earlier); n != MaxEarlier {
		t.Fatalf("Earlier holds %d versions, want at most %d", n, MaxEarlier)
	}
	r.SetMirror("audit.md", []byte("v2"))
	r.SetMirror("history-review.md", nil)
	if r.CheckMirror("history-review.md", nil, false) != MirrorMatches || r.CheckMirror("history-review.md", []byte("x"), true) != MirrorTampered {
		t.Fatal("a file the controller removed must stay absent")
	}
	// Copies: kept by hash, verified on read, pruned when the record names them no more.
	h1, err := tk.KeepCopy([]byte("v1"))
	must(t, err)
	h2, err := tk.KeepCopy([]byte("v2"))
	must(t, err)
	h3, err := tk.KeepCopy([]byte("v3"))
	must(t, err)
	if b, err := tk.Copy(h2); err != nil || string(b) != "v2" {
		t.Fatalf("Copy = %q, %v", b, err)
	}
	// The audit result is a copy too, kept while the record names it.
	hr, err := tk.KeepCopy([]byte("result"))
	must(t, err)
	r.Result = &Result{SHA256: hr, AuditSHA256: r.Mirrors["audit.md"].SHA256}
	must(t, tk.Save(r, time.Now()))
	if _, err := tk.Copy(h3); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("an unreferenced copy must be pruned: %v", err)
	}
	if b, err := tk.Copy(hr); err != nil || string(b) != "result" {
		t.Fatalf("the result's copy must be kept: %q, %v", b, err)
	}
	if back, err := tk.Load(); err != nil || back.Result == nil || *back.Result != *r.Result {
		t.Fatalf("result not kept in the record: %+v, %v", back, err)
	}
	r.Result = &Result{SHA256: "x", AuditSHA256: hr}
	if err := tk.Save(r, time.Now()); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a result that names no SHA-256 must be refused: %v", err)
	}
	r.Result = nil
	if _, err := tk.Copy(h1); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("only the current version's copy is kept: %v", err)
	}
	must(t, os.WriteFile(filepath.Join(tk.Path(), "mirrors", h2), []byte("forged"), 0o600))
	if _, err := tk.Copy(h2); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a copy that does not match its hash: %v", err)
	}
	// Read by streaming, a forged copy reads as far as its end, which is an error, not io.EOF.
	cr, err := tk.OpenCopy(h2)
	must(t, err)
	defer cr.Close()
	if b, err := io.ReadAll(cr); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("OpenCopy of a forged copy read %q, %v", b, err)
	}
}

// snapshotStore is gitscope.SnapshotStore and LocalSnapshotStore, restated here so that the
// store does not import gitscope: *Task must keep implementing them.
type snapshotStore interface {
	Put(name string, r io.Reader) error
	Open(name string) (io.ReadCloser, error)
	SnapshotPath(name string) (string, error)
}

var _ snapshotStore = (*Task)(nil)

func TestSnapshots(t *testing.T) {
	_, tk, _ := newTask(t)
	read := func(name string) (string, error) {
		rc, err := tk.Open(name)
		if err != nil {
			return "", err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		return string(b), err
	}
	must(t, tk.Put("index.snapshot", strings.NewReader("DIRC")))
	must(t, tk.Put("sub/0123456789abcdef/inputs.snapshot", strings.NewReader("{}")))
	must(t, tk.Put("index.snapshot", strings.NewReader("DIRC2")))
	if got, err := read("index.snapshot"); err != nil || got != "DIRC2" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if got, err := read("sub/0123456789abcdef/inputs.snapshot"); err != nil || got != "{}" {
		t.Fatalf("Open(sub) = %q, %v", got, err)
	}
	for _, name := range []string{"inputs.snapshot", "sub/ffff/index.snapshot"} {
		if _, err := tk.Open(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%s) of a blob never stored: %v", name, err)
		}
		if _, err := tk.SnapshotPath(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("SnapshotPath(%s): %v", name, err)
		}
	}
	p, err := tk.SnapshotPath("index.snapshot")
	if err != nil || p != filepath.Join(tk.Path(), "snapshots", "index.snapshot") {
		t.Fatalf("SnapshotPath = %q, %v", p, err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("snapshot mode %v", fi.Mode())
	}
	for _, bad := range []string{"", "../x", "a//b", ".hidden", "a/../b", "/abs", "a\\b"} {
		if err := tk.Put(bad, strings.NewReader("x")); !errors.Is(err, ErrUnsafe) {
			t.Errorf("Put(%q) = %v", bad, err)
		}
	}
	// A symlink planted where a blob is expected is refused, never followed.
	must(t, os.Symlink("/etc/passwd", filepath.Join(tk.Path(), "snapshots", "evil.snapshot")))
	if _, err := tk.Open("evil.snapshot"); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("Open through a symlink: %v", err)
	}
	rd, err := tk.Receipts()
	must(t, err)
	defer rd.Close()
	if fi, err := os.Stat(rd.Path()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("receipts folder: %v %v", fi, err)
	}
}

func TestLockBusy(t *testing.T) {
	s, tk, ref := newTask(t)
	l, err := tk.Lock()
	must(t, err)
	other, err := s.OpenTask(ref, "001-a")
	must(t, err)
	defer other.Close()
	if _, err := other.Lock(); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "another mastermind") {
		t.Fatalf("second Lock = %v", err)
	}
	must(t, l.Unlock())
	l2, err := other.Lock()
	must(t, err)
	must(t, l2.Unlock())
}

func TestStoreRefusesSymlinkedFolders(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	root := filepath.Join(dir, "state")
	must(t, os.MkdirAll(root, 0o700))
	must(t, os.Symlink(outside, filepath.Join(root, "repos")))
	s, err := Open(root)
	must(t, err)
	defer s.Close()
	must(t, os.MkdirAll(filepath.Join(dir, "repo", ".git"), 0o755))
	_, err = s.OpenTask(RepoRef{GitDir: filepath.Join(dir, "repo", ".git"), WorkTree: filepath.Join(dir, "repo")}, "001-a")
	if !errors.Is(err, ErrUnsafe) {
		t.Fatalf("OpenTask below a symlinked repos/: %v", err)
	}
	if e, _ := os.ReadDir(outside); len(e) != 0 {
		t.Fatalf("written through the symlink: %v", e)
	}
	if _, err := s.OpenTask(RepoRef{GitDir: filepath.Join(dir, "repo", ".git")}, "../x"); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("a task name with a separator: %v", err)
	}
}

func TestGC(t *testing.T) {
	s, tk, ref := newTask(t)
	taskDir := filepath.Join(ref.WorkTree, ".mastermind", "tasks", "001-a")
	must(t, tk.Save(record(1, taskDir), time.Now()))
	// A second task whose folder is gone, a third that is busy, a second repository that is gone.
	gone, err := s.OpenTask(ref, "002-gone")
	must(t, err)
	must(t, gone.Save(record(1, filepath.Join(ref.WorkTree, ".mastermind", "tasks", "002-gone")), time.Now()))
	gone.Close()
	busy, err := s.OpenTask(ref, "003-busy")
	must(t, err)
	must(t, busy.Save(record(1, filepath.Join(ref.WorkTree, ".mastermind", "tasks", "003-busy")), time.Now()))
	l, err := busy.Lock()
	must(t, err)
	busy.Close()
	other := filepath.Join(t.TempDir(), "other")
	must(t, os.MkdirAll(filepath.Join(other, ".git"), 0o755))
	ot, err := s.OpenTask(RepoRef{GitDir: filepath.Join(other, ".git"), WorkTree: other}, "001-x")
	must(t, err)
	must(t, ot.Save(record(1, filepath.Join(other, ".mastermind", "tasks", "001-x")), time.Now()))
	otherPath := filepath.Dir(filepath.Dir(ot.Path()))
	ot.Close()
	must(t, os.RemoveAll(other))

	dry, err := s.GC(true)
	must(t, err)
	if len(dry.Removed) != 2 || dry.Kept != 1 || len(dry.Skipped) != 1 {
		t.Fatalf("dry run: %+v", dry)
	}
	if _, err := os.Stat(otherPath); err != nil {
		t.Fatal("a dry run removed something")
	}
	rep, err := s.GC(false)
	must(t, err)
	var reasons []string
	for _, e := range rep.Removed {
		reasons = append(reasons, e.Task+": "+e.Reason)
	}
	got := strings.Join(reasons, "\n")
	if !strings.Contains(got, "002-gone: the task folder") || !strings.Contains(got, ": the git directory "+filepath.Join(other, ".git")) {
		t.Fatalf("removed:\n%s", got)
	}
	if _, err := os.Stat(otherPath); !os.IsNotExist(err) {
		t.Fatal("the gone repository's records are still there")
	}
	if r, err := tk.Load(); err != nil || r == nil {
		t.Fatalf("the live task's record: %v, %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(tk.Path()), "003-busy", "state.json")); err != nil {
		t.Fatal("a busy task was removed")
	}
	must(t, l.Unlock())
	entries, _ := os.ReadDir(filepath.Dir(tk.Path()))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".gc-") {
			t.Fatalf("gc left %s", e.Name())
		}
	}
	// The work-tree key of the removed repository went with it; the live one stays.
	keys, _ := os.ReadDir(filepath.Join(s.Root(), "worktrees"))
	if len(keys) != 1 {
		t.Fatalf("worktrees/ after gc: %v", keys)
	}
	if !bytes.Contains([]byte(got), []byte("002-gone")) {
		t.Fatal(got)
	}
}

func TestFindTask(t *testing.T) {
	s, tk, ref := newTask(t)
	must(t, tk.Save(record(1, ""), time.Now()))
	got, err := s.FindTask(ref.GitDir, "001-a")
	must(t, err)
	defer got.Close()
	if r, err := got.Load(); err != nil || r == nil || got.Path() != tk.Path() {
		t.Fatalf("FindTask: %v %v %s", r, err, got.Path())
	}
	none, err := s.FindTask(ref.GitDir, "009-none")
	if none != nil || err != nil {
		t.Fatalf("FindTask of a task without a folder = %v, %v", none, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(tk.Path()), "009-none")); !os.IsNotExist(err) {
		t.Fatal("FindTask created a folder")
	}
}

func TestTaskNames(t *testing.T) {
	s, tk, ref := newTask(t)
	must(t, tk.Save(record(1, ""), time.Now()))
	other, err := s.OpenTask(ref, "000-first")
	must(t, err)
	other.Close()
	// A gc trash folder is no task.
	must(t, os.Mkdir(filepath.Join(filepath.Dir(tk.Path()), ".gc-002-x-1"), 0o700))
	id, err := RepoID(ref.GitDir)
	must(t, err)
	names, err := s.TaskNames(id)
	must(t, err)
	if strings.Join(names, ",") != "000-first,001-a" {
		t.Fatalf("TaskNames = %q", names)
	}
	bare := filepath.Join(t.TempDir(), ".git")
	must(t, os.Mkdir(bare, 0o755))
	bareID, err := RepoID(bare)
	must(t, err)
	none, err := s.TaskNames(bareID)
	if none != nil || err != nil {
		t.Fatalf("TaskNames of a work tree without records = %v, %v", none, err)
	}
}

func TestStoreInsideWorkTreeRefused(t *testing.T) {
	dir := t.TempDir()
	wt := filepath.Join(dir, "repo")
	must(t, os.MkdirAll(filepath.Join(wt, ".git"), 0o755))
	if err := CheckOutside(filepath.Join(wt, ".home", "state"), wt); !errors.Is(err, ErrInWorkTree) {
		t.Fatalf("CheckOutside of a root not created yet: %v", err)
	}
	if _, err := os.Stat(filepath.Join(wt, ".home")); !os.IsNotExist(err) {
		t.Fatal("CheckOutside created something")
	}
	if err := CheckOutside(filepath.Join(dir, "state"), wt); err != nil {
		t.Fatalf("a store beside the work tree: %v", err)
	}
	s, err := Open(filepath.Join(wt, ".home", "state"))
	must(t, err)
	defer s.Close()
	if _, err := s.OpenTask(RepoRef{GitDir: filepath.Join(wt, ".git"), WorkTree: wt}, "001-a"); !errors.Is(err, ErrInWorkTree) ||
		!strings.Contains(err.Error(), "outside the work tree") {
		t.Fatalf("a store inside the work tree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(wt, ".home", "state", "repos")); !os.IsNotExist(err) {
		t.Fatal("records were created inside the work tree")
	}
}

// TestRekeyedRefused: the work tree's git directory replaced by a .git file naming a copy (a new
// repo id) while the old id holds the task's record is refused; a task without an old record, and
// the old git directory back, are fine.
func TestRekeyedRefused(t *testing.T) {
	s, tk, ref := newTask(t)
	must(t, tk.Save(record(1, ""), time.Now()))
	moved := RepoRef{GitDir: filepath.Join(ref.WorkTree, ".git-moved"), WorkTree: ref.WorkTree}
	must(t, os.MkdirAll(moved.GitDir, 0o755))
	if _, err := s.OpenTask(moved, "001-a"); !errors.Is(err, ErrRekeyed) || !strings.Contains(err.Error(), ".git-moved") {
		t.Fatalf("rekeyed: %v", err)
	}
	other, err := s.OpenTask(moved, "002-b")
	must(t, err)
	other.Close()
	// Another task opened under the new id does not make the old record forgettable.
	if _, err := s.OpenTask(moved, "001-a"); !errors.Is(err, ErrRekeyed) {
		t.Fatalf("rekeyed after another task: %v", err)
	}
	back, err := s.OpenTask(ref, "001-a")
	must(t, err)
	back.Close()
}

// TestCopyWriter: a streamed copy is stored under its SHA-256 only on Commit, Abort leaves
// nothing, CopyTo streams it back and refuses a copy that does not match its hash; the hash-based
// mirror checks agree with the data-based ones.
func TestCopyWriter(t *testing.T) {
	_, tk, _ := newTask(t)
	cw, err := tk.NewCopy()
	must(t, err)
	for _, p := range []string{"audit ", "streamed ", "in parts\n"} {
		_, err := cw.Write([]byte(p))
		must(t, err)
	}
	data := []byte("audit streamed in parts\n")
	names := func() []string {
		ents, _ := os.ReadDir(filepath.Join(tk.Path(), "mirrors"))
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	if n := names(); len(n) != 1 || !strings.HasPrefix(n[0], ".copy") {
		t.Fatalf("before Commit the mirrors folder holds %v, want one temporary file", n)
	}
	h, err := cw.Commit()
	must(t, err)
	if h != fsx.SHA256Hex(data) {
		t.Fatalf("Commit = %s, want the content's hash", h)
	}
	if n := names(); len(n) != 1 || n[0] != h {
		t.Fatalf("after Commit: %v", n)
	}
	var b bytes.Buffer
	if err := tk.CopyTo(h, &b); err != nil || !bytes.Equal(b.Bytes(), data) {
		t.Fatalf("CopyTo = %q, %v", b.Bytes(), err)
	}
	if got, err := tk.Copy(h); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Copy = %q, %v", got, err)
	}
	ab, err := tk.NewCopy()
	must(t, err)
	_, _ = ab.Write([]byte("discarded"))
	ab.Abort()
	if n := names(); len(n) != 1 || n[0] != h {
		t.Fatalf("after Abort: %v", n)
	}
	must(t, os.WriteFile(filepath.Join(tk.Path(), "mirrors", h), []byte("forged"), 0o600))
	if err := tk.CopyTo(h, io.Discard); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("CopyTo of a forged copy: %v", err)
	}
	if err := tk.CopyTo(fsx.SHA256Hex([]byte("none")), io.Discard); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("CopyTo of a missing copy: %v", err)
	}
	r := record(1, "")
	r.SetMirrorHash("audit.md", fsx.SHA256Hex([]byte("v1")))
	r.SetMirror("audit.md", []byte("v2"))
	for _, data := range []string{"v1", "v2", "v3"} {
		if a, b := r.CheckMirror("audit.md", []byte(data), true), r.CheckMirrorHash("audit.md", fsx.SHA256Hex([]byte(data)), true); a != b {
			t.Errorf("%s: CheckMirror %d, CheckMirrorHash %d", data, a, b)
		}
	}
	if r.CheckMirrorHash("audit.md", "", false) != MirrorMissing {
		t.Error("absent file")
	}
}

// A work tree whose git directory moved keeps the ids its records were written under, so a
// reader of the new git directory still finds them (docs/hardening.md X1).
func TestRepoIDsAfterGitDirMoved(t *testing.T) {
	s, tk, ref := newTask(t)
	must(t, tk.Save(record(1, ""), time.Now()))
	oldID := tk.RepoID()
	moved := filepath.Join(filepath.Dir(ref.WorkTree), "gitdir")
	must(t, os.Rename(ref.GitDir, moved))
	ids, err := s.RepoIDs(moved, ref.WorkTree)
	must(t, err)
	newID, err := RepoID(moved)
	must(t, err)
	if len(ids) != 2 || ids[0] != newID || ids[1] != oldID {
		t.Fatalf("RepoIDs = %q, want [%s %s]", ids, newID, oldID)
	}
	names, err := s.TaskNames(ids[1])
	must(t, err)
	if strings.Join(names, ",") != "001-a" {
		t.Fatalf("TaskNames of the old id = %q", names)
	}
	// Another work tree has only its own id.
	other := t.TempDir()
	ids, err = s.RepoIDs(moved, other)
	must(t, err)
	if len(ids) != 1 || ids[0] != newID {
		t.Fatalf("RepoIDs of another work tree = %q", ids)
	}
	if _, err := s.TaskNames("../x"); err == nil {
		t.Fatal("TaskNames accepted a path as an id")
	}
}
