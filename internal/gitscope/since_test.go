package gitscope

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// sinceAttack is one way an executor, with only an agent's permissions in its work tree, hides
// a change from the plain recipe after pre-flight (issue 15, trust-model.md I1). setup builds
// the repository and returns the baseline; pre-flight (TakeSnapshot) runs after it; attack
// runs after pre-flight. want are lines that must be in ChangedSetSince's entries (render
// form), inputs the "kind input" lines that must be among its InputChanges; hidden is a line
// the plain §4.1 recipe must NOT show after the attack (the proof that the attack works), and
// noRun marker files (relative to the fixture's temporary directory) that must not appear.
// wantErr, when set, is the error ChangedSetSince must return instead (exit 3 cases).
type sinceAttack struct {
	name    string
	setup   func(f *fixture) string
	attack  func(f *fixture)
	want    []string
	inputs  []string
	hidden  string
	noRun   []string
	wantErr error
	// degradedErr: degraded mode refuses with this text instead of answering (else it must
	// show want too, minus degradedSkip).
	degradedErr  string
	degradedSkip bool
	// reopen: post-flight opens the task's store again after the attack (as run-task does).
	reopen bool
}

// takeSnapshot runs pre-flight's snapshot for f at baseline into f's git directory store.
func takeSnapshot(t *testing.T, f *fixture, dir, baseline string, opts Options) SnapshotStore {
	t.Helper()
	r, err := OpenWith(dir, opts)
	must(t, err)
	st, err := r.GitDirStore("task")
	must(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, r.TakeSnapshot(ctx, baseline, st))
	return st
}

// since runs ChangedSetSince at dir.
func since(t *testing.T, dir, baseline string, st SnapshotStore, opts Options) (*ChangedSet, error) {
	t.Helper()
	r, err := OpenWith(dir, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return r.ChangedSetSince(ctx, baseline, st)
}

func renderInputs(cs []InputChange) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Kind+" "+c.Input)
	}
	return out
}

var sinceAttacks = []sinceAttack{
	{name: "replace ref with core.useReplaceRefs in the repository config",
		setup: func(f *fixture) string { return stdBase(f) },
		attack: func(f *fixture) {
			b := f.head()
			f.write("a", "evil\n")
			f.git("add", "a")
			tree := strings.TrimSpace(f.git("write-tree"))
			fake := strings.TrimSpace(f.git("commit-tree", "-m", "fake", tree))
			f.git("replace", b, fake)
			f.git("config", "core.useReplaceRefs", "true")
		},
		want: []string{"M a"}, inputs: []string{"git_config_changed core.usereplacerefs"}, hidden: "M a",
		degradedSkip: true},
	{name: "forged stat cache: baseline blob id with the edited file's stat data",
		setup: func(f *fixture) string { return stdBase(f) },
		attack: func(f *fixture) {
			f.write("a", "evil\n")
			f.git("add", "a")
			forgeIndexEntry(f, "a", strings.TrimSpace(f.git("rev-parse", "HEAD:a")))
		},
		want: []string{"M a"}, hidden: "M a"},
	{name: "assume-unchanged set after pre-flight",
		setup: func(f *fixture) string { return stdBase(f) },
		attack: func(f *fixture) {
			f.git("update-index", "--assume-unchanged", "a")
			f.write("a", "evil\n")
		},
		want: []string{"M a"}, hidden: "M a"},
	{name: "skip-worktree set after pre-flight",
		setup: func(f *fixture) string { return stdBase(f) },
		attack: func(f *fixture) {
			f.git("update-index", "--skip-worktree", "a")
			f.write("a", "evil\n")
		},
		want: []string{"M a"}, hidden: "M a"},
	{name: "sparse checkout with sparse.expectFilesOutsideOfPatterns",
		setup: func(f *fixture) string { return stdBase(f) },
		attack: func(f *fixture) {
			f.git("sparse-checkout", "set", "--no-cone", "/dir/")
			f.git("config", "sparse.expectFilesOutsideOfPatterns", "true")
			f.write("a", "evil\n")
		},
		want: []string{"M a"}, inputs: []string{"git_config_changed core.sparsecheckout"}, hidden: "M a",
		degradedErr: "not supported by the built-in reader"},
	{name: "ident attribute in info/attributes",
		setup: func(f *fixture) string { return f.base(map[string]string{"x.go": "// $Id$\npackage x\n"}) },
		attack: func(f *fixture) {
			f.write(".git/info/attributes", "x.go ident\n")
			f.write("x.go", "// $Id: evil(); $\npackage x\n")
		},
		inputs: []string{"git_attributes_changed .git/info/attributes"}, hidden: "M x.go"},
	{name: "text eol=lf in info/attributes hides a line-ending rewrite",
		setup: func(f *fixture) string { return f.base(map[string]string{"w.sh": "echo a\necho b\n"}) },
		attack: func(f *fixture) {
			f.write(".git/info/attributes", "*.sh text eol=lf\n")
			f.write("w.sh", "echo a\r\necho b\r\n")
		},
		inputs: []string{"git_attributes_changed .git/info/attributes"}, hidden: "M w.sh"},
	{name: "core.attributesFile set since pre-flight",
		setup: func(f *fixture) string { return f.base(map[string]string{"x.go": "// $Id$\npackage x\n"}) },
		attack: func(f *fixture) {
			p := filepath.Join(f.tmp(), "attrs")
			must(f.t, os.WriteFile(p, []byte("x.go ident\n"), 0o644))
			f.git("config", "core.attributesFile", p)
			f.write("x.go", "// $Id: evil(); $\npackage x\n")
		},
		inputs: []string{"git_attributes_changed core.attributesFile", "git_config_changed core.attributesfile"}, hidden: "M x.go",
		degradedSkip: true},
	{name: "new .gitattributes in a baseline directory, itself ignored",
		setup: func(f *fixture) string {
			return f.base(map[string]string{"d/x.go": "// $Id$\npackage x\n", ".gitignore": "d/.gitattributes\n"})
		},
		attack: func(f *fixture) {
			f.write("d/.gitattributes", "x.go ident\n")
			f.write("d/x.go", "// $Id: evil(); $\npackage x\n")
		},
		inputs: []string{"git_attributes_changed d/.gitattributes"}, hidden: "M d/x.go"},
	{name: "rule added to info/exclude",
		setup: func(f *fixture) string { return stdBase(f) },
		attack: func(f *fixture) {
			f.write(".git/info/exclude", "evil.go\n")
			f.write("evil.go", "package evil\n")
		},
		want: []string{"? evil.go"}, hidden: "? evil.go"},
	{name: "core.excludesFile set since pre-flight",
		setup: func(f *fixture) string { return stdBase(f) },
		attack: func(f *fixture) {
			p := filepath.Join(f.tmp(), "ignores")
			must(f.t, os.WriteFile(p, []byte("evil.go\n"), 0o644))
			f.git("config", "core.excludesFile", p)
			f.write("evil.go", "package evil\n")
		},
		want: []string{"? evil.go"}, inputs: []string{"git_config_changed core.excludesfile"}, hidden: "? evil.go",
		degradedSkip: true},
	{name: "global ignore file written since pre-flight",
		setup: func(f *fixture) string { return stdBase(f) },
		attack: func(f *fixture) {
			p := filepath.Join(f.home, ".config", "git", "ignore")
			must(f.t, os.MkdirAll(filepath.Dir(p), 0o755))
			must(f.t, os.WriteFile(p, []byte("evil.go\n"), 0o644))
			f.write("evil.go", "package evil\n")
		},
		want: []string{"? evil.go"}, hidden: "? evil.go"},
	{name: "new .gitignore that ignores itself",
		setup: func(f *fixture) string { return stdBase(f) },
		attack: func(f *fixture) {
			f.write("pkg/.gitignore", "*\n")
			f.write("pkg/evil.go", "package evil\n")
		},
		want: []string{"? pkg"}, hidden: "? pkg"},
	{name: "tracked .gitignore edited to hide a new file",
		setup: func(f *fixture) string { return f.base(map[string]string{".gitignore": "*.log\n", "a": "a\n"}) },
		attack: func(f *fixture) {
			f.write(".gitignore", "*.log\nevil.go\n")
			f.write("evil.go", "package evil\n")
		},
		want: []string{"M .gitignore", "? evil.go"}, hidden: "? evil.go"},
	{name: "subtree object rewritten in place under its old id",
		setup: func(f *fixture) string { return f.base(map[string]string{"d/x.go": "package x\n", "a": "a\n"}) },
		attack: func(f *fixture) {
			f.write("d/x.go", "package evil\n")
			f.git("add", "d/x.go")
			blob := strings.TrimSpace(f.git("hash-object", "-w", "d/x.go"))
			oldTree := strings.TrimSpace(f.git("rev-parse", "HEAD:d"))
			forged := strings.TrimSpace(f.gitStdin("100644 blob "+blob+"\tx.go\n", "mktree"))
			overwriteObject(f, oldTree, forged)
		},
		// The forged baseline tree is never read: the edit is found from the work tree. The
		// degraded reader reads every baseline tree, the forged one too.
		want: []string{"M d/x.go"}, degradedErr: "the object store was modified"},
	{name: "submodule: assume-unchanged in its own index",
		setup: withSubmodule,
		attack: func(f *fixture) {
			f.gitIn(f.path("sub"), "update-index", "--assume-unchanged", "s.txt")
			f.write("sub/s.txt", "evil\n")
		},
		want: []string{"M sub"}, hidden: "M sub", degradedErr: "cannot be audited"},
	{name: "submodule: rule added to its info/exclude",
		setup: withSubmodule,
		attack: func(f *fixture) {
			f.write(".git/modules/sub/info/exclude", "evil.go\n")
			f.write("sub/evil.go", "package evil\n")
		},
		want: []string{"M sub"}, hidden: "M sub", degradedErr: "cannot be audited"},
	{name: "submodule: clean filter in its config rewrites the edit back and runs a program",
		setup: withSubmodule,
		attack: func(f *fixture) {
			marker := filepath.Join(f.tmp(), "filter-ran")
			f.gitIn(f.path("sub"), "config", "filter.x.clean", "sh -c 'touch "+marker+"; printf \"s\\n\"'")
			f.write(".git/modules/sub/info/attributes", "s.txt filter=x\n")
			f.write("sub/s.txt", "x\n") // the size git cached: git re-hashes (through the filter) only then
		},
		want:   []string{"M sub"},
		inputs: []string{"git_attributes_changed sub: .git/info/attributes", "git_config_changed sub: filter.x.clean"},
		hidden: "M sub", noRun: []string{"filter-ran"}, degradedErr: "cannot be audited"},
	{name: "submodule: its .git file deleted",
		setup: withSubmodule,
		attack: func(f *fixture) {
			f.remove("sub/.git")
			f.write("sub/s.txt", "evil\n")
		},
		want: []string{"M sub"}, inputs: []string{"git_metadata_changed submodule sub"}, hidden: "M sub", degradedErr: "cannot be audited"},
	{name: "submodule unpopulated at pre-flight, content written since",
		setup: func(f *fixture) string {
			b := withSubmodule(f)
			f.git("submodule", "deinit", "-q", "-f", "sub")
			return b
		},
		attack: func(f *fixture) { f.write("sub/evil.go", "package evil\n") },
		want:   []string{"M sub"}, hidden: "M sub"},
	// Found by the fresh-eyes pass (docs/hardening.md, table "Changed set under I1").
	{name: "tracked directory turned into a nested repository",
		setup: func(f *fixture) string { return f.base(map[string]string{"src/a.go": "package a\n", "b": "b\n"}) },
		attack: func(f *fixture) {
			f.git("init", "-q", "src")
			f.write("src/evil.go", "package evil\n")
		},
		want: []string{"? src/evil.go"}},
	{name: "submodule replaced by a symbolic link to a clean checkout",
		setup: withSubmodule,
		attack: func(f *fixture) {
			decoy := filepath.Join(f.tmp(), "decoy")
			f.gitIn(f.tmp(), "-c", "protocol.file.allow=always", "clone", "-q", filepath.Join(f.tmp(), "subsrc"), decoy)
			f.write("sub/s.txt", "evil\n")
			must(f.t, os.Rename(f.path("sub"), filepath.Join(f.tmp(), "sub-real")))
			must(f.t, os.Symlink(decoy, f.path("sub")))
		},
		want: []string{"M sub"}, degradedErr: "cannot be audited"},
	{name: ".git turned into a gitdir: file leading elsewhere",
		setup: func(f *fixture) string { return stdBase(f) },
		attack: func(f *fixture) {
			moved := filepath.Join(f.tmp(), "moved.git")
			must(f.t, os.Rename(f.path(".git"), moved))
			f.write(".git", "gitdir: "+moved+"\n")
		},
		inputs: []string{"git_metadata_changed .git"}, reopen: true},
	{name: "core.fileMode=false set since pre-flight hides chmod +x",
		setup: func(f *fixture) string { return stdBase(f) },
		attack: func(f *fixture) {
			f.git("config", "core.fileMode", "false")
			chmod(f, "a", 0o755)
		},
		inputs: []string{"git_config_changed core.filemode"}, hidden: "M a", degradedSkip: true},
}

// gitStdin runs git with stdin.
func (f *fixture) gitStdin(in string, args ...string) string {
	f.t.Helper()
	cmd := execGit(f, args...)
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		f.t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// overwriteObject copies the loose object file of src over the one of dst (the forged object).
func overwriteObject(f *fixture, dst, src string) {
	f.t.Helper()
	p := func(oid string) string { return f.path(".git/objects/" + oid[:2] + "/" + oid[2:]) }
	b, err := os.ReadFile(p(src))
	must(f.t, err)
	must(f.t, os.Chmod(p(dst), 0o644))
	must(f.t, os.WriteFile(p(dst), b, 0o444))
}

// forgeIndexEntry rewrites path's entry in .git/index to carry oid, keeping the stat data git
// recorded (so git trusts the entry and never re-hashes the file).
func forgeIndexEntry(f *fixture, path, oid string) {
	f.t.Helper()
	p := f.path(".git/index")
	fh, err := os.Open(p)
	must(f.t, err)
	idx := &index.Index{}
	must(f.t, index.NewDecoder(fh).Decode(idx))
	fh.Close()
	found := false
	for _, e := range idx.Entries {
		if e.Name == path {
			e.Hash = plumbing.NewHash(oid)
			found = true
		}
	}
	if !found {
		f.t.Fatalf("no index entry %s", path)
	}
	out, err := os.Create(p + ".new")
	must(f.t, err)
	must(f.t, index.NewEncoder(out).Encode(idx))
	must(f.t, out.Close())
	// git's racy-git rule would re-hash an entry as new as the index: age the file first.
	old := time.Now().Add(-time.Hour)
	must(f.t, os.Chtimes(f.path(path), old, old))
	must(f.t, os.Rename(p+".new", p))
	// Chtimes moved the file's ctime; record the new stat data with the forged id.
	fh, err = os.Open(p)
	must(f.t, err)
	idx = &index.Index{}
	must(f.t, index.NewDecoder(fh).Decode(idx))
	fh.Close()
	fi, err := os.Lstat(f.path(path))
	must(f.t, err)
	st := fi.Sys().(*syscall.Stat_t)
	for _, e := range idx.Entries {
		if e.Name == path {
			e.ModifiedAt = fi.ModTime()
			e.CreatedAt = time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
			e.Size = uint32(fi.Size())
			e.Inode = uint32(st.Ino)
			e.Dev = uint32(st.Dev)
		}
	}
	out, err = os.Create(p + ".new")
	must(f.t, err)
	must(f.t, index.NewEncoder(out).Encode(idx))
	must(f.t, out.Close())
	must(f.t, os.Rename(p+".new", p))
}

// TestChangedSetSinceAttacks runs every attack: the plain recipe is fooled (hidden is not in its
// answer), ChangedSetSince is not (want and inputs are in its answer, or wantErr), and no
// program named by the configuration ran. Each attack's control — the same repository and
// pre-flight without the attack — gives an empty set with no input change.
func TestChangedSetSinceAttacks(t *testing.T) {
	for _, a := range sinceAttacks {
		t.Run(strings.ReplaceAll(a.name, " ", "_"), func(t *testing.T) {
			for _, mode := range []string{"cli", "degraded"} {
				t.Run(mode, func(t *testing.T) {
					opts := Options{}
					if mode == "degraded" {
						opts = noGit
					}
					f := newFixture(t)
					b := a.setup(f)
					st := takeSnapshot(t, f, f.dir, b, opts)
					ctl, err := since(t, f.dir, b, st, opts)
					if mode == "degraded" && a.degradedErr != "" && err != nil {
						if !strings.Contains(err.Error(), a.degradedErr) {
							t.Fatalf("degraded: %v, want %q", err, a.degradedErr)
						}
						return
					}
					must(t, err)
					if len(ctl.Entries) != 0 || len(ctl.InputChanges) != 0 {
						t.Fatalf("control: %v %v, want nothing", render(ctl.Entries), renderInputs(ctl.InputChanges))
					}
					a.attack(f)
					if a.reopen {
						r, err := OpenWith(f.dir, opts)
						must(t, err)
						st, err = r.GitDirStore("task")
						must(t, err)
					}
					cs, err := since(t, f.dir, b, st, opts)
					for _, m := range a.noRun {
						if _, err := os.Lstat(filepath.Join(f.tmp(), m)); err == nil {
							t.Errorf("marker %s exists: a configured program ran", m)
						}
					}
					if mode == "cli" {
						if bare := bareRecipe(t, f.dir, b); slices.Contains(bare, a.hidden) {
							t.Fatalf("the plain recipe is not fooled: %v contains %q", bare, a.hidden)
						}
					}
					switch {
					case mode == "degraded" && a.degradedErr != "":
						if err == nil || !strings.Contains(err.Error(), a.degradedErr) {
							t.Fatalf("degraded: %v, want %q", err, a.degradedErr)
						}
						return
					case a.wantErr != nil:
						if !errors.Is(err, a.wantErr) {
							t.Fatalf("err %v, want %v", err, a.wantErr)
						}
						return
					}
					must(t, err)
					got, inputs := render(cs.Entries), renderInputs(cs.InputChanges)
					if mode == "degraded" && a.degradedSkip {
						// The degraded reader compares config files as a whole and applies no
						// attributes: an error finding must still be there.
						if len(cs.InputChanges) == 0 && !containsAll(got, a.want) {
							t.Fatalf("degraded: %v %v hides the attack", got, inputs)
						}
						return
					}
					if !containsAll(got, a.want) {
						t.Errorf("entries %v, want %v among them", got, a.want)
					}
					if mode == "cli" && !containsAll(inputs, a.inputs) {
						t.Errorf("input changes %v, want %v among them", inputs, a.inputs)
					}
					if len(a.want) == 0 && len(cs.InputChanges) == 0 {
						t.Errorf("nothing reported: %v", got)
					}
				})
			}
		})
	}
}

func containsAll(got, want []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}

func execGit(f *fixture, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = f.dir
	cmd.Env = f.env
	return cmd
}

// TestSnapshotRunHonestControls: what an honest executor does after pre-flight audits exactly
// as git does — churn in an ignored node_modules/ stays ignored, a planner-owned .gitattributes
// committed at the baseline (eol conversion, a filter attribute with no driver) applies as in
// git, a .gitignore rule committed at the baseline applies, and an in-scope edit is found.
func TestSnapshotRunHonestControls(t *testing.T) {
	f := newFixture(t)
	b := f.base(map[string]string{
		".gitignore":     "node_modules/\n*.log\nbuild/\n!build/keep.txt\n",
		".gitattributes": "*.txt text eol=crlf\n*.dat filter=missing\n",
		"t.txt":          "one\ntwo\n",
		"d.dat":          "data\n",
		"src/a.go":       "package a\n",
		"src/.gitignore": "gen_*.go\n",
	})
	// eol=crlf: the checkout git would make.
	f.remove("t.txt")
	f.git("checkout", "--", "t.txt")
	st := takeSnapshot(t, f, f.dir, b, Options{})
	for i := 0; i < 50; i++ {
		f.write("node_modules/pkg"+string(rune('a'+i%26))+"/index.js", "x\n")
	}
	f.write("x.log", "log\n")
	f.write("src/gen_x.go", "package a\n")
	f.write("build/out.bin", "bin\n")
	f.write("build/keep.txt", "keep\n")
	f.write("src/a.go", "package a\n\nfunc A() {}\n")
	statDirty(t, f, "t.txt", "d.dat")
	want := []string{"M src/a.go"} // build/keep.txt: a parent directory is excluded, git cannot re-include it
	equalLines(t, "plain recipe", bareRecipe(t, f.dir, b), want)
	cs, err := since(t, f.dir, b, st, Options{})
	must(t, err)
	equalLines(t, "snapshot run", render(cs.Entries), want)
	if len(cs.InputChanges) > 0 {
		t.Errorf("input changes %v", renderInputs(cs.InputChanges))
	}
	dcs, err := since(t, f.dir, b, takeSnapshotAgain(t, f, b), noGit)
	must(t, err)
	// Degraded mode applies no eol conversion (gitscope.md §6): t.txt is its documented divergence.
	equalLines(t, "degraded snapshot run", render(dcs.Entries), []string{"M src/a.go", "M t.txt"})
}

// takeSnapshotAgain takes a degraded-mode snapshot under another task name.
func takeSnapshotAgain(t *testing.T, f *fixture, baseline string) SnapshotStore {
	t.Helper()
	r, err := OpenWith(f.dir, noGit)
	must(t, err)
	st, err := r.GitDirStore("task-degraded")
	must(t, err)
	must(t, r.TakeSnapshot(context.Background(), baseline, st))
	return st
}

// TestSnapshotRunAfterHonestRepack: an executor that runs git gc (new pack, pruned loose objects,
// a commit-graph) and commits is audited normally: the new pack is verified, not refused.
func TestSnapshotRunAfterHonestRepack(t *testing.T) {
	f := newFixture(t)
	b := stdBase(f)
	st := takeSnapshot(t, f, f.dir, b, Options{})
	f.write("a", "changed\n")
	f.commitAll("work")
	f.git("gc", "-q")
	f.git("commit-graph", "write", "--reachable")
	cs, err := since(t, f.dir, b, st, Options{})
	must(t, err)
	equalLines(t, "after git gc", render(cs.Entries), []string{"M a"})
	if len(cs.InputChanges) > 0 {
		t.Errorf("input changes %v", renderInputs(cs.InputChanges))
	}
	if _, err := since(t, f.dir, b, st, noGit); err == nil || !strings.Contains(err.Error(), "cannot be verified without git") {
		t.Errorf("degraded mode after a repack: %v, want the pack refused", err)
	}
}

// A split index snapshot's shared part is a .git/sharedindex.<hex> file git reads without
// checking its checksum; forged after pre-flight, it held an edited file's new blob id and stat
// data, and the edit vanished from the changed set (hardening.md A-O1). Pre-flight now stores
// the snapshot whole.
func TestSplitIndexSnapshotIgnoresSharedIndex(t *testing.T) {
	f := newFixture(t)
	b := stdBase(f)
	splitWithOldStat(f)
	st := takeSnapshot(t, f, f.dir, b, Options{})
	ctl, err := since(t, f.dir, b, st, Options{})
	must(t, err)
	if len(ctl.Entries) != 0 {
		t.Fatalf("control: %v, want nothing", render(ctl.Entries))
	}
	f.write("a", "evil\n")
	forgeSharedIndex(f, "a")
	cs, err := since(t, f.dir, b, st, Options{})
	must(t, err)
	equalLines(t, "C", render(cs.Entries), []string{"M a"})
}

// splitWithOldStat splits f's index with every entry in its shared part: the files get an old
// modification time first, so that no racily clean entry lands in the split part.
func splitWithOldStat(f *fixture) {
	f.t.Helper()
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range strings.Split(strings.TrimRight(f.git("ls-files", "-z"), "\x00"), "\x00") {
		if err := os.Chtimes(f.path(p), old, old); err != nil {
			f.t.Fatal(err)
		}
	}
	time.Sleep(10 * time.Millisecond)
	f.git("update-index", "--refresh")
	f.git("update-index", "--split-index")
}

// forgeSharedIndex rewrites the repository's .git/sharedindex.<hex> as a whole index in which
// rel has its work-tree content and stat data, keeping the file's name as its trailer: git reads
// a shared index without checking its checksum.
func forgeSharedIndex(f *fixture, rel string) {
	f.t.Helper()
	tmp := filepath.Join(f.tmp(), "forged.index")
	_ = os.Remove(tmp)
	env := append(slices.Clone(f.env), "GIT_INDEX_FILE="+tmp)
	for _, args := range [][]string{{"read-tree", "HEAD"}, {"add", rel}} {
		cmd := exec.Command("git", append([]string{"-c", "core.splitIndex=false"}, args...)...)
		cmd.Dir, cmd.Env = f.dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			f.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	full, err := os.ReadFile(tmp)
	must(f.t, err)
	shared, _ := filepath.Glob(filepath.Join(f.dir, ".git", "sharedindex.*"))
	if len(shared) != 1 {
		f.t.Fatalf("setup: %d shared index files", len(shared))
	}
	name, err := hex.DecodeString(strings.TrimPrefix(filepath.Base(shared[0]), "sharedindex."))
	must(f.t, err)
	must(f.t, os.WriteFile(shared[0], append(full[:len(full)-len(name):len(full)-len(name)], name...), 0o644))
}
