package gitscope

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLiveAgreesWithSnapshot builds repositories with real git, takes a pre-flight snapshot,
// changes their work trees at random (untracked files and directories, self-ignoring and
// tool-cache directories, ignored and empty directories, nested repositories, files replaced by
// directories before and after staging, symbolic links, index versions and flags) and checks
// that the live changed set (changes --since, the local gate) equals post-flight's.
func TestLiveAgreesWithSnapshot(t *testing.T) {
	for seed := range 24 {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			f := newFixture(t)
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			files := map[string]string{".gitignore": "*.log\nign*/\n", "d1/.gitignore": "*.tmp\n"}
			for d := range 4 {
				for i := range 3 {
					files[fmt.Sprintf("d%d/f%d.go", d, i)] = "x\n"
					files[fmt.Sprintf("d%d/s/f%d.go", d, i)] = "y\n"
				}
			}
			baseline := f.base(files)
			st := takeSnapshot(t, f, f.dir, baseline, Options{})
			tracked := slices.Sorted(func(yield func(string) bool) {
				for p := range files {
					if !strings.HasSuffix(p, ".gitignore") && !yield(p) {
						return
					}
				}
			})
			parent := func() string {
				return []string{"", "d0/", "d1/s/", "new/", "new/deep/", "d2/"}[rng.IntN(6)]
			}
			ops := 3 + rng.IntN(6)
			skipped := false // a skip-worktree bit set since pre-flight hides a deletion from git only
			for i := range ops {
				n := fmt.Sprintf("n%d", i)
				switch rng.IntN(15) {
				case 0:
					f.write(parent()+n+".go", "u\n")
				case 1:
					f.write(parent()+n+"/a/b.go", "u\n")
				case 2:
					f.write(parent()+n+"/.gitignore", "*\n")
					f.write(parent()+n+"/evil.go", "e\n")
				case 3:
					d := parent() + n
					f.write(d+"/.gitignore", "*\n!keep.go\n")
					f.write(d+"/keep.go", "k\n")
					f.write(d+"/hidden.go", "h\n")
				case 4:
					f.write(parent()+".pytest_cache/.gitignore", "# Created by pytest automatically.\n*\n")
					f.write(parent()+".pytest_cache/CACHEDIR.TAG", cacheDirTagSignature+"\n")
				case 5:
					f.write(parent()+"ign"+n+"/x.go", "i\n")
					f.write(parent()+n+".log", "l\n")
				case 6:
					must(t, os.MkdirAll(f.path(parent()+n+"/empty"), 0o755))
				case 7:
					d := parent() + n
					f.write(d+"/r.go", "r\n")
					f.gitIn(f.path(d), "init", "-q")
				case 8, 9:
					p := tracked[rng.IntN(len(tracked))]
					if fi, err := os.Lstat(f.path(p)); err != nil || !fi.Mode().IsRegular() {
						continue
					}
					f.remove(p)
					if rng.IntN(2) == 0 {
						f.write(p+"/.gitignore", "*\n")
					}
					f.write(p+"/inner.go", "i\n")
				case 10:
					p := parent() + n + ".go"
					f.write(p, "s\n")
					f.git("add", p)
					f.remove(p)
					if rng.IntN(2) == 0 {
						f.write(p+"/.gitignore", "*\n")
					}
					f.write(p+"/inner.go", "i\n")
				case 11:
					d := parent()
					must(t, os.MkdirAll(f.path(d+"."), 0o755))
					f.symlink("../d0", d+n+"-link")
					f.write(d+"T"+n+"/D/.gitignore", "*\n")
					f.write(d+"T"+n+"/D/evil.go", "e\n")
				case 12: // git reads a skip-worktree .gitignore missing from the work tree from the index
					skipped = true
					f.git("update-index", "--skip-worktree", "d1/.gitignore")
					f.remove("d1/.gitignore")
					f.write("d1/"+n+"/x.tmp", "t\n")
					f.write("d1/"+n+"/y.go", "t\n")
				case 13:
					f.git("update-index", "--index-version", "4")
				case 14:
					f.git("update-index", "--split-index")
				}
			}
			live, err := changed(t, f.dir, baseline, Options{})
			must(t, err)
			snap, err := since(t, f.dir, baseline, st, Options{})
			must(t, err)
			le, lc, lh := renderCS(live)
			se, sc, sh := renderCS(snap)
			se = slices.DeleteFunc(se, func(s string) bool {
				return strings.Contains(s, ".git/mastermind") || skipped && s == "D d1/.gitignore"
			})
			equalLines(t, "entries (live, snapshot)", le, se)
			equalLines(t, "tool caches", lc, sc)
			equalLines(t, "self-ignoring", lh, sh)
			// The built-in reader's live run lists the same, where it can read the index; it does
			// not read a skip-worktree .gitignore from the index (it lists more, never less).
			if dg, err := changed(t, f.dir, baseline, noGit); err == nil && !skipped {
				de, dc, dh := renderCS(dg)
				equalLines(t, "entries (degraded live, snapshot)", de, se)
				equalLines(t, "degraded tool caches", dc, sc)
				equalLines(t, "degraded self-ignoring", dh, sh)
			}
		})
	}
}

// TestLiveUntrackedUnmergedDirectory: an unmerged path replaced by a directory (which git's
// --directory listing would drop, there being no stage-0 entry) has its files listed, and a
// self-ignoring one is one entry.
func TestLiveUntrackedUnmergedDirectory(t *testing.T) {
	f := newFixture(t)
	baseline := f.base(map[string]string{"keep": "k\n"})
	f.conflict("c")
	f.remove("c")
	f.write("c/evil.go", "e\n")
	r, err := OpenWith(f.dir, Options{})
	must(t, err)
	cs, err := r.ChangedSet(context.Background(), baseline)
	must(t, err)
	got, _, _ := renderCS(cs)
	equalLines(t, "unmerged directory", got, []string{"? c/evil.go"})
	f.write("c/.gitignore", "*\n")
	cs, err = r.ChangedSet(context.Background(), baseline)
	must(t, err)
	got, _, hiding := renderCS(cs)
	equalLines(t, "self-ignoring unmerged directory", got, []string{"? c self-ignoring"})
	equalLines(t, "hiding", hiding, []string{"c 2"})
}

// TestIndexKinds reads index files git wrote in each version and state, with names long enough
// (over 0xFFF bytes) to take the NUL-terminated path.
func TestIndexKinds(t *testing.T) {
	long := "e"
	for i := range 21 {
		long += "/" + strings.Repeat(string(rune('a'+i)), 200) // 4,221 bytes: past a flags length
	}
	type kinds struct{ sparse, split bool }
	for _, tc := range []struct {
		name  string
		setup func(f *fixture)
		want  kinds
	}{
		{"version 2", func(f *fixture) { f.git("update-index", "--index-version", "2") }, kinds{}},
		{"version 3 skip-worktree", func(f *fixture) { f.git("update-index", "--skip-worktree", "a") }, kinds{}},
		{"version 4", func(f *fixture) { f.git("update-index", "--index-version", "4") }, kinds{}},
		{"version 4 skip-worktree", func(f *fixture) {
			f.git("update-index", "--index-version", "4")
			f.git("update-index", "--skip-worktree", "d/b")
		}, kinds{}},
		{"split", func(f *fixture) { f.git("update-index", "--split-index") }, kinds{split: true}},
		{"sparse", func(f *fixture) {
			f.git("sparse-checkout", "init", "--cone", "--sparse-index")
			f.git("sparse-checkout", "set", "d")
		}, kinds{sparse: true}},
		{"unmerged", func(f *fixture) { f.conflict("a") }, kinds{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.base(map[string]string{"a": "1\n", "d/b": "b\n", "f/g": "g\n", "z": "z\n"})
			blob := strings.TrimSpace(f.git("hash-object", "-w", "a"))
			f.git("update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
			f.git("commit", "-q", "-m", "long")
			if !strings.Contains(f.git("ls-files"), long) {
				t.Fatal("the long entry is not in the index")
			}
			tc.setup(f)
			var got kinds
			var err error
			got.sparse, got.split, err = indexKinds(filepath.Join(f.dir, ".git", "index"))
			must(t, err)
			if got != tc.want {
				t.Errorf("indexKinds = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestIndexKindsNameLength: an entry whose flags give a name length of 1 while its bytes run on
// to a NUL further away is 64 bytes long for git, so the "link" extension right after it is
// found (a walk that followed the NUL read into the extension and missed it; hardening.md L6).
func TestIndexKindsNameLength(t *testing.T) {
	entry := strings.Repeat("\x00", 60) + "\x00\x01" + "aX" // flags: name length 1; 64 bytes
	data := "DIRC\x00\x00\x00\x02\x00\x00\x00\x01" + entry + "link\x00\x00\x00\x04abcd" + strings.Repeat("\x00", 20)
	p := filepath.Join(t.TempDir(), "index")
	must(t, os.WriteFile(p, []byte(data), 0o644))
	sparse, split, err := indexKinds(p)
	must(t, err)
	if sparse || !split {
		t.Errorf("indexKinds = sparse %v, split %v; want a split index", sparse, split)
	}
}

// FuzzIndexKinds: any bytes as an index file give an answer or an error, never a panic or a hang.
func FuzzIndexKinds(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + strings.Repeat("\x00", 60) + "\x0f\xff\x00abc\x00"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "index")
		must(t, os.WriteFile(p, b, 0o644))
		_, _, _ = indexKinds(p)
	})
}

// TestLegacySnapshotIndex: a snapshot recorded before split indexes were stored whole is walked
// once; a split index there is refused and an index the walk cannot read names the next step.
func TestLegacySnapshotIndex(t *testing.T) {
	for _, tc := range []struct {
		name  string
		index func(f *fixture) []byte
		want  string
	}{
		{"split", func(f *fixture) []byte {
			f.git("update-index", "--split-index")
			b, err := os.ReadFile(f.path(".git/index"))
			must(t, err)
			return b
		}, "holds a split index, whose shared part post-flight would read from the git directory unverified; run pre-flight again with --reset"},
		{"unreadable", func(f *fixture) []byte { return []byte("DIRC\x00\x00\x00\x09\x00\x00\x00\x00") },
			"the pre-flight snapshot of this task: the index "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			baseline := f.base(map[string]string{"a": "a\n"})
			st := takeSnapshot(t, f, f.dir, baseline, Options{})
			rc, err := st.Open(SnapshotInputs)
			must(t, err)
			var doc map[string]any
			must(t, json.NewDecoder(rc).Decode(&doc))
			rc.Close()
			delete(doc, "index_whole") // as an older mastermind wrote it
			b, err := json.Marshal(doc)
			must(t, err)
			must(t, st.Put(SnapshotInputs, bytes.NewReader(b)))
			must(t, st.Put(SnapshotIndex, bytes.NewReader(tc.index(f))))
			_, err = since(t, f.dir, baseline, st, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("post-flight on the legacy snapshot: %v; want an error with %q", err, tc.want)
			}
			if tc.name == "unreadable" && !strings.Contains(err.Error(), "git writes versions 2 to 4; run pre-flight again with --reset") {
				t.Errorf("error %q does not say what was expected and what to do", err)
			}
		})
	}
}
