package gitscope

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// fullWalkUntracked is the listing liveUntracked replaces, the oracle it must equal: the whole
// untracked listing, git's whole ignored-directory listing, and every index entry whose work-tree
// path is now a directory (git's listings drop such a name).
func fullWalkUntracked(t *testing.T, f *fixture, r *Repo) ([]Entry, []string) {
	t.Helper()
	ctx := context.Background()
	var total int64
	var entries []Entry
	must(t, r.run(ctx, r.root, "ls-files", lsOthersArgs, func(rd io.Reader) error {
		var err error
		entries, err = parseOthers(newNulReader(rd, &total))
		return err
	}))
	var hidden []string
	must(t, r.run(ctx, r.root, "ls-files", hiddenDirArgs, func(rd io.Reader) error {
		return eachRecord(rd, &total, func(rec []byte) error {
			if len(rec) > 1 && rec[len(rec)-1] == '/' {
				hidden = append(hidden, string(rec[:len(rec)-1]))
			}
			return nil
		})
	}))
	for _, rec := range strings.Split(f.git("ls-files", "-z", "--stage"), "\x00") {
		_, name, ok := strings.Cut(rec, "\t")
		if !ok || strings.HasPrefix(rec, "160000 ") {
			continue
		}
		if fi, err := os.Lstat(f.path(name)); err == nil && fi.IsDir() && !slices.Contains(hidden, name) {
			hidden = append(hidden, name)
		}
	}
	return entries, hidden
}

// TestLiveUntrackedMatchesFullWalk builds repositories with real git, changes their work trees
// at random (untracked files and directories, self-ignoring and tool-cache directories, ignored
// and empty directories, nested repositories, files replaced by directories before and after
// staging, symbolic links) and checks that the live changed set equals the one the full-walk
// listings give.
func TestLiveUntrackedMatchesFullWalk(t *testing.T) {
	for seed := range 24 {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			f := newFixture(t)
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			files := map[string]string{".gitignore": "*.log\nign*/\n"}
			for d := range 4 {
				for i := range 3 {
					files[fmt.Sprintf("d%d/f%d.go", d, i)] = "x\n"
					files[fmt.Sprintf("d%d/s/f%d.go", d, i)] = "y\n"
				}
			}
			baseline := f.base(files)
			tracked := slices.Sorted(func(yield func(string) bool) {
				for p := range files {
					if p != ".gitignore" && !yield(p) {
						return
					}
				}
			})
			parent := func() string {
				return []string{"", "d0/", "d1/s/", "new/", "new/deep/", "d2/"}[rng.IntN(6)]
			}
			ops := 3 + rng.IntN(6)
			if seed == 23 {
				for i := range maxUntrackedDirSpecs + 1 { // past the pathspec bound: the full walk
					f.write(fmt.Sprintf("many/m%04d/x.go", i), "x\n")
				}
			}
			for i := range ops {
				n := fmt.Sprintf("n%d", i)
				switch rng.IntN(12) {
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
				}
			}
			r, err := OpenWith(f.dir, Options{})
			must(t, err)
			ctx := context.Background()
			got, err := r.ChangedSet(ctx, baseline)
			must(t, err)
			full, hidden := fullWalkUntracked(t, f, r)
			var diffEntries []Entry
			diffEntries, err = parseDiff(newNulReader(strings.NewReader(f.git("diff", "--name-status", "-z", "--no-renames", baseline, "--")), new(int64)))
			must(t, err)
			entries, caches, hiding, err := r.liveToolCaches(ctx, baseline).apply(mergeEntries(diffEntries, full), r.liveSelfIgnoring(hidden))
			must(t, err)
			want := &ChangedSet{Entries: entries, ToolCaches: caches, SelfIgnoring: hiding}
			ge, gc, gh := renderCS(got)
			we, wc, wh := renderCS(want)
			equalLines(t, "entries", ge, we)
			equalLines(t, "tool caches", gc, wc)
			equalLines(t, "self-ignoring", gh, wh)
		})
	}
}

// TestLiveUntrackedUnmergedDirectory: an unmerged path replaced by a directory is dropped by
// git's untracked listing and is not "killed" (no stage-0 entry); its files are still listed,
// and a self-ignoring one is one entry.
func TestLiveUntrackedUnmergedDirectory(t *testing.T) {
	f := newFixture(t)
	baseline := f.base(map[string]string{"keep": "k\n"})
	f.write("c", "1\n")
	f.commitAll("c")
	f.git("checkout", "-q", "-b", "other")
	f.write("c", "2\n")
	f.commitAll("other")
	f.git("checkout", "-q", "main")
	f.write("c", "3\n")
	f.commitAll("main")
	if f.gitMayFail("merge", "-q", "other") == nil {
		t.Fatal("the merge did not conflict")
	}
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
