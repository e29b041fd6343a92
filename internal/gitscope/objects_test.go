package gitscope

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// forgeLoose replaces the loose object file of dst by the one of src: dst's file then holds
// another object (the executor's forgery, written since pre-flight).
func forgeLoose(f *fixture, dst, src string) { f.t.Helper(); overwriteObject(f, dst, src) }

// forgePack packs every object of the repository into one new pack (a repack: the loose
// objects and the old packs are removed) whose index maps dst to the offset of src's entry, so
// that dst's copy holds src's content.
func forgePack(f *fixture, dst, src string) { f.t.Helper(); forgePackOf(f, dst, src, true) }

// forgeShadowPack adds a new pack holding only dst (with src's content) and src, and keeps
// every other copy: git searches packs before loose objects, and among packs the newest and
// most recently used first.
func forgeShadowPack(f *fixture, dst, src string) { f.t.Helper(); forgePackOf(f, dst, src, false) }

// forgeIn forges dst with src's content in store: "loose", "pack" or "shadow pack".
func forgeIn(f *fixture, store, dst, src string) {
	f.t.Helper()
	switch store {
	case "loose":
		forgeLoose(f, dst, src)
	case "pack":
		forgePack(f, dst, src)
	default:
		forgeShadowPack(f, dst, src)
	}
}

func forgePackOf(f *fixture, dst, src string, repack bool) {
	f.t.Helper()
	all := strings.Fields(f.git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)"))
	if !slices.Contains(all, dst) || !slices.Contains(all, src) {
		f.t.Fatalf("forgePack: %s or %s is not in the repository", dst, src)
	}
	if !repack {
		all = []string{dst, src}
	}
	tmp := filepath.Join(f.tmp(), "forged-pack")
	must(f.t, os.MkdirAll(tmp, 0o755))
	name := strings.TrimSpace(f.gitStdin(strings.Join(all, "\n")+"\n", "pack-objects", "-q", "--window=0", "--depth=0", filepath.Join(tmp, "pack")))
	base := filepath.Join(tmp, "pack-"+name)
	idx, err := os.ReadFile(base + ".idx")
	must(f.t, err)
	must(f.t, os.WriteFile(base+".idx", forgeIdx(f.t, idx, dst, src), 0o444))
	objects := f.path(".git/objects")
	ents, err := os.ReadDir(objects)
	must(f.t, err)
	for _, e := range ents {
		if repack && (len(e.Name()) == 2 || e.Name() == "pack") {
			must(f.t, os.RemoveAll(filepath.Join(objects, e.Name())))
		}
	}
	must(f.t, os.MkdirAll(filepath.Join(objects, "pack"), 0o755))
	for _, ext := range []string{".pack", ".idx"} {
		must(f.t, os.Rename(base+ext, filepath.Join(objects, "pack", "pack-"+name+ext)))
	}
}

// forgeIdx rewrites a version-2 pack index so that dst has src's offset and CRC.
func forgeIdx(t *testing.T, idx []byte, dst, src string) []byte {
	t.Helper()
	if !bytes.Equal(idx[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		t.Fatal("forgeIdx: not a version-2 index")
	}
	n := int(binary.BigEndian.Uint32(idx[8+255*4:]))
	names := 8 + 256*4
	crcs := names + 20*n
	offs := crcs + 4*n
	find := func(oid string) int {
		h, _ := hex.DecodeString(oid)
		for i := range n {
			if bytes.Equal(idx[names+20*i:names+20*i+20], h) {
				return i
			}
		}
		t.Fatalf("forgeIdx: %s not in the index", oid)
		return -1
	}
	d, s := find(dst), find(src)
	out := bytes.Clone(idx)
	copy(out[crcs+4*d:crcs+4*d+4], idx[crcs+4*s:crcs+4*s+4])
	copy(out[offs+4*d:offs+4*d+4], idx[offs+4*s:offs+4*s+4])
	sum := sha1.Sum(out[:len(out)-20])
	copy(out[len(out)-20:], sum[:])
	return out
}

// objectAttack is an executor's forgery of an object the audit reads. setup builds the
// repository (pre-flight follows); attack does the work after pre-flight and returns the
// forged object's id and the id whose content its copy must then hold; read is the view read
// that must fail naming it.
type objectAttack struct {
	name   string
	setup  func(f *fixture) string
	attack func(f *fixture, baseline string) (dst, src string)
	read   func(ctx context.Context, v *SnapshotView) error
	// control is what read's view must find without the forgery (render lines of its changed
	// set), the proof that the attack hides something or that read reads the object.
	control []string
}

func viewChangedSet(ctx context.Context, v *SnapshotView) error {
	_, err := v.ChangedSet(ctx)
	return err
}

// commitEvilThenRevert commits evil.go and removes it from the work tree again: only the
// commit diff shows it.
func commitEvilThenRevert(f *fixture) string {
	f.write("evil.go", "package evil\n")
	c := f.commitAll("evil")
	f.git("rm", "-q", "--cached", "evil.go")
	f.remove("evil.go")
	return c
}

var objectAttacks = []objectAttack{
	{name: "HEAD commit holds a commit of the baseline tree",
		setup: stdBase,
		attack: func(f *fixture, b string) (string, string) {
			c := commitEvilThenRevert(f)
			fake := strings.TrimSpace(f.git("commit-tree", "-p", b, "-m", "evil", b+"^{tree}"))
			return c, fake
		},
		read: viewChangedSet, control: []string{"A evil.go"}},
	{name: "baseline commit holds the HEAD commit",
		setup: stdBase,
		attack: func(f *fixture, b string) (string, string) {
			c := commitEvilThenRevert(f)
			return b, c
		},
		read: viewChangedSet, control: []string{"A evil.go"}},
	{name: "HEAD root tree holds the baseline root tree",
		setup: stdBase,
		attack: func(f *fixture, b string) (string, string) {
			commitEvilThenRevert(f)
			return strings.TrimSpace(f.git("rev-parse", "HEAD^{tree}")), strings.TrimSpace(f.git("rev-parse", b+"^{tree}"))
		},
		read: viewChangedSet, control: []string{"A evil.go"}},
	{name: "HEAD subtree holds the baseline subtree",
		setup: stdBase,
		attack: func(f *fixture, b string) (string, string) {
			f.write("dir/c.txt", "evil\n")
			f.commitAll("evil")
			f.write("dir/c.txt", stdFiles["dir/c.txt"])
			f.git("add", "dir/c.txt")
			return strings.TrimSpace(f.git("rev-parse", "HEAD:dir")), strings.TrimSpace(f.git("rev-parse", b+":dir"))
		},
		read: viewChangedSet, control: []string{"M dir/c.txt"}},
	{name: "baseline blob read by a claim holds other content",
		setup: stdBase,
		attack: func(f *fixture, b string) (string, string) {
			other := strings.TrimSpace(f.gitStdin("other\n", "hash-object", "-w", "--stdin"))
			return strings.TrimSpace(f.git("rev-parse", b+":a")), other
		},
		read: func(ctx context.Context, v *SnapshotView) error { _, _, err := v.BaselineBlob(ctx, "a"); return err }},
	{name: "baseline blob read by the diff stat holds the edited content",
		setup: stdBase,
		attack: func(f *fixture, b string) (string, string) {
			f.write("a", "edited\n")
			edited := strings.TrimSpace(f.git("hash-object", "-w", "a"))
			return strings.TrimSpace(f.git("rev-parse", b+":a")), edited
		},
		read:    func(ctx context.Context, v *SnapshotView) error { _, err := v.DiffStat(ctx); return err },
		control: []string{"M a"}},
	{name: "index blob git reads for text=auto holds other content",
		setup: func(f *fixture) string {
			// Committed with CRLF before text=auto applied: the index copy has a CR, so git
			// hashes the file unconverted; a copy without one would make it convert.
			f.base(map[string]string{"t.txt": "one\r\ntwo\r\n", "u": "u\n"})
			f.write(".gitattributes", "* text=auto\n")
			return f.commitAll("attributes")
		},
		attack: func(f *fixture, b string) (string, string) {
			f.write("t.txt", "one\ntwo\n")
			other := strings.TrimSpace(f.gitStdin("no carriage return\n", "hash-object", "-w", "--stdin"))
			return strings.TrimSpace(f.git("rev-parse", b+":t.txt")), other
		},
		read: viewChangedSet, control: []string{"M t.txt"}},
}

// openView opens the view of task "task" at dir.
func openView(t *testing.T, dir, baseline string, opts Options) *SnapshotView {
	t.Helper()
	r, err := OpenWith(dir, opts)
	must(t, err)
	st, err := r.GitDirStore("task")
	must(t, err)
	v, err := r.SnapshotView(context.Background(), baseline, st)
	must(t, err)
	t.Cleanup(func() { v.Close() })
	return v
}

// TestForgedObjectsAreExit3 runs every objectAttack with the forged copy in a loose object, in
// a new pack holding every object (a repack) and in a new pack beside the honest copies: the
// view's read fails with
// ErrObjectStoreModified naming the forged object, in CLI and in degraded mode (which refuses a
// new pack outright). Without the forgery the same reads succeed and find the change.
func TestForgedObjectsAreExit3(t *testing.T) {
	for _, a := range objectAttacks {
		for _, store := range []string{"loose", "pack", "shadow pack"} {
			t.Run(strings.ReplaceAll(a.name+"/"+store, " ", "_"), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				// The control: the same work without the forgery.
				cf := newFixture(t)
				cb := a.setup(cf)
				takeSnapshot(t, cf, cf.dir, cb, Options{})
				a.attack(cf, cb)
				if store != "loose" {
					cf.git("repack", "-adq")
				}
				cv := openView(t, cf.dir, cb, Options{})
				if err := a.read(ctx, cv); err != nil {
					t.Fatalf("control: %v", err)
				}
				cs, err := cv.ChangedSet(ctx)
				must(t, err)
				if !containsAll(render(cs.Entries), a.control) {
					t.Fatalf("control: %v, want %v among them", render(cs.Entries), a.control)
				}

				f := newFixture(t)
				b := a.setup(f)
				takeSnapshot(t, f, f.dir, b, Options{})
				dst, src := a.attack(f, b)
				forgeIn(f, store, dst, src)
				for _, mode := range []string{"cli", "degraded"} {
					opts := Options{}
					if mode == "degraded" {
						opts = noGit
					}
					err := a.read(ctx, openView(t, f.dir, b, opts))
					switch {
					case !errors.Is(err, ErrObjectStoreModified):
						t.Errorf("%s: %v, want ErrObjectStoreModified", mode, err)
					case mode == "cli" && !strings.Contains(err.Error(), dst):
						t.Errorf("%s: %v does not name %s", mode, err, dst)
					}
				}
			})
		}
	}
}

// TestHonestRepackIsRead: an executor that commits and then repacks everything (git repack
// -ad, what git gc does) is audited normally through every read of the view: its commit diff,
// the diff stat, a baseline blob.
func TestHonestRepackIsRead(t *testing.T) {
	f := newFixture(t)
	b := stdBase(f)
	takeSnapshot(t, f, f.dir, b, Options{})
	f.write("a", "changed\n")
	f.write("dir/new.txt", "new\n")
	f.commitAll("work")
	f.write("f", "edited, not committed\n")
	f.git("repack", "-adq")
	f.git("prune")
	ctx := context.Background()
	v := openView(t, f.dir, b, Options{})
	cs, err := v.ChangedSet(ctx)
	must(t, err)
	equalLines(t, "after git repack -ad", render(cs.Entries), []string{"M a", "A dir/new.txt", "M f"})
	stat, err := v.DiffStat(ctx)
	must(t, err)
	for _, p := range []string{"a ", "dir/new.txt", "f "} {
		if !strings.Contains(stat, p) {
			t.Errorf("diff stat %q lacks %q", stat, p)
		}
	}
	data, ok, err := v.BaselineBlob(ctx, "a")
	if err != nil || !ok || string(data) != stdFiles["a"] {
		t.Errorf("baseline blob a: %q %v %v", data, ok, err)
	}
	if _, err := openView(t, f.dir, b, noGit).ChangedSet(ctx); err == nil || !strings.Contains(err.Error(), "cannot be verified without git") {
		t.Errorf("degraded mode after a repack: %v, want the pack refused", err)
	}
}

// TestOldForgedPackBroughtInIsVerified: a pack forged before pre-flight somewhere else keeps its
// old change time when its directory is renamed into the object store, or when an alternate
// names it; git's own reads of it (the diff stat's baseline blob, here) must still be verified.
// Pre-flight's object-directory inodes make both new.
func TestOldForgedPackBroughtInIsVerified(t *testing.T) {
	for _, how := range []string{"pack directory renamed in", "alternate added", "alternate of an alternate added"} {
		t.Run(strings.ReplaceAll(how, " ", "_"), func(t *testing.T) {
			f := newFixture(t)
			b := stdBase(f)
			blob := strings.TrimSpace(f.git("rev-parse", b+":a"))
			// Before pre-flight, in a copy of the repository: a pack of every object in which
			// a's baseline blob holds the content the executor will write.
			side := &fixture{t: t, dir: filepath.Join(f.tmp(), "side"), home: f.home, env: f.env}
			f.gitIn(f.tmp(), "clone", "-q", "--no-local", f.dir, side.dir)
			edited := strings.TrimSpace(side.gitStdin("edited\n", "hash-object", "-w", "--stdin"))
			forgePack(side, blob, edited)
			// An empty alternate the repository already borrows from at pre-flight.
			empty := filepath.Join(f.tmp(), "empty-objects")
			if how == "alternate of an alternate added" {
				must(t, os.MkdirAll(filepath.Join(empty, "info"), 0o755))
				f.write(".git/objects/info/alternates", empty+"\n")
			}
			takeSnapshot(t, f, f.dir, b, Options{})

			f.write("a", "edited\n")
			switch how {
			case "alternate added":
				f.write(".git/objects/info/alternates", side.path(".git/objects")+"\n")
			case "alternate of an alternate added":
				must(t, os.WriteFile(filepath.Join(empty, "info", "alternates"), []byte(side.path(".git/objects")+"\n"), 0o644))
			default:
				must(t, os.Remove(f.path(".git/objects/pack")))
				must(t, os.Rename(side.path(".git/objects/pack"), f.path(".git/objects/pack")))
			}
			_, err := openView(t, f.dir, b, Options{}).DiffStat(context.Background())
			if !errors.Is(err, ErrObjectStoreModified) || !strings.Contains(err.Error(), blob) {
				t.Fatalf("diff stat: %v, want ErrObjectStoreModified naming %s", err, blob)
			}
		})
	}
}

// forgeCommitGraphTree rewrites the commit-graph's record of commit so that it names tree as
// its root tree, and recomputes the file's checksum (git does not check it when it reads).
func forgeCommitGraphTree(f *fixture, commit, tree string) {
	f.t.Helper()
	p := f.path(".git/objects/info/commit-graph")
	b, err := os.ReadFile(p)
	must(f.t, err)
	if string(b[:4]) != "CGPH" {
		f.t.Fatal("not a commit-graph")
	}
	chunks := int(b[6])
	offs := map[string]int{}
	for i := 0; i < chunks; i++ {
		e := 8 + 12*i
		offs[string(b[e:e+4])] = int(binary.BigEndian.Uint64(b[e+4 : e+12]))
	}
	oidl, cdat := offs["OIDL"], offs["CDAT"]
	c, _ := hex.DecodeString(commit)
	tr, _ := hex.DecodeString(tree)
	for i := 0; oidl+20*i < cdat; i++ {
		if bytes.Equal(b[oidl+20*i:oidl+20*i+20], c) {
			copy(b[cdat+36*i:cdat+36*i+20], tr)
			sum := sha1.Sum(b[:len(b)-20])
			copy(b[len(b)-20:], sum[:])
			must(f.t, os.Chmod(p, 0o644))
			must(f.t, os.WriteFile(p, b, 0o444))
			return
		}
	}
	f.t.Fatalf("commit %s not in the commit-graph", commit)
}

// TestCommitDiffIgnoresSubstitutes: a commit-graph that gives HEAD the baseline's root tree, and
// a replace ref that swaps HEAD for a commit of the baseline tree (with core.useReplaceRefs),
// hide a committed-then-reverted file from git's own diff of the two commits; the view reads
// the commit objects themselves.
func TestCommitDiffIgnoresSubstitutes(t *testing.T) {
	for _, how := range []string{"commit-graph", "replace ref"} {
		t.Run(strings.ReplaceAll(how, " ", "_"), func(t *testing.T) {
			f := newFixture(t)
			b := stdBase(f)
			takeSnapshot(t, f, f.dir, b, Options{})
			c := commitEvilThenRevert(f)
			baseTree := strings.TrimSpace(f.git("rev-parse", b+"^{tree}"))
			if how == "commit-graph" {
				f.git("commit-graph", "write", "--reachable")
				forgeCommitGraphTree(f, c, baseTree)
			} else {
				fake := strings.TrimSpace(f.git("commit-tree", "-p", b, "-m", "fake", baseTree))
				f.git("replace", c, fake)
				f.git("config", "core.useReplaceRefs", "true")
			}
			if out := f.git("diff", "--name-only", b, "HEAD"); strings.TrimSpace(out) != "" {
				t.Fatalf("the attack does not fool git: %q", out)
			}
			cs, err := openView(t, f.dir, b, Options{}).ChangedSet(context.Background())
			must(t, err)
			if got := render(cs.Entries); !slices.Contains(got, "A evil.go") {
				t.Errorf("changed set %v lacks A evil.go", got)
			}
		})
	}
}

// TestSnapshotRunMatchesGitAfterWork: after pre-flight, files with awkward names are rewritten
// with their own bytes (stat-dirty, unchanged), edited, made executable, turned into symbolic
// links and deleted; the view's changed set (work tree against the snapshot, through diff-files
// and hash-object) must be exactly git diff's against the baseline.
func TestSnapshotRunMatchesGitAfterWork(t *testing.T) {
	names := []string{"plain", "a b", "quo\"te", "new\nline", "back\\slash", "-dash", "ünï", "tab\there", "\"lead", "d/e/deep"}
	files := map[string]string{}
	for _, n := range names {
		files[n] = "content of " + n + "\n"
	}
	f := newFixture(t)
	f.base(files)
	f.symlink("plain", "link")
	b := f.commitAll("link")
	takeSnapshot(t, f, f.dir, b, Options{})
	time.Sleep(20 * time.Millisecond)
	for _, n := range names {
		f.write(n, files[n]) // touched: stat-dirty, content unchanged
	}
	f.write("a b", "edited\n")
	f.write("new\nline", "edited\n")
	chmod(f, "quo\"te", 0o755)
	f.remove("back\\slash")
	f.symlink("plain", "back\\slash")
	f.remove("-dash")
	f.remove("link")
	f.symlink("ünï", "link")
	f.write("d/e/deep", files["d/e/deep"]+"more\n")
	f.write("untracked new", "x\n")
	want := bareRecipe(t, f.dir, b)
	if len(want) < 6 {
		t.Fatalf("the plain recipe found too little: %v", want)
	}
	cs, err := openView(t, f.dir, b, Options{}).ChangedSet(context.Background())
	must(t, err)
	equalLines(t, "view after work", render(cs.Entries), want)
}
