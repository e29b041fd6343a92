package gitscope

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCommitRangePlumbing: merge base, ancestry and the diff between two commits read commits
// only — a dirty work tree, a staged change and an untracked file change nothing — and a replace
// ref cannot substitute the head commit.
func TestCommitRangePlumbing(t *testing.T) {
	f := newFixture(t)
	base := f.base(map[string]string{"a.go": "package a\n", "b.go": "package b\n"})
	f.git("checkout", "-q", "-b", "feature")
	f.write("a.go", "package a\n\nfunc A() {}\n")
	f.remove("b.go")
	f.write("c.go", "package c\n")
	head := f.commitAll("work")
	f.git("checkout", "-q", "-b", "side", base)
	side := f.commitAll("side")
	f.git("checkout", "-q", "feature")
	// Dirty, staged and untracked leftovers, and a replace ref swapping head for base.
	f.write("a.go", "dirty\n")
	f.write("d.go", "untracked\n")
	f.write("e.go", "staged\n")
	f.git("add", "e.go")
	f.git("replace", head, base)
	// Repository configuration beats GIT_NO_REPLACE_OBJECTS=1 (git 2.39): only the pin holds.
	f.git("config", "core.useReplaceRefs", "true")

	r, err := Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if b, err := r.MergeBase(ctx, side, head); err != nil || b != base {
		t.Errorf("MergeBase = %s, %v; want %s", b, err, base)
	}
	for _, c := range []struct {
		anc, desc string
		want      bool
	}{{base, head, true}, {head, head, true}, {side, head, false}, {head, base, false}} {
		if got, err := r.IsAncestor(ctx, c.anc, c.desc); err != nil || got != c.want {
			t.Errorf("IsAncestor(%.7s, %.7s) = %v, %v; want %v", c.anc, c.desc, got, err, c.want)
		}
	}
	cs, err := r.DiffCommits(ctx, base, head)
	if err != nil {
		t.Fatal(err)
	}
	equalLines(t, "DiffCommits", render(cs.Entries), []string{"M a.go", "D b.go", "A c.go"})
	files, err := r.Materialize(ctx, head, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, []string{"a.go", "c.go"}) {
		t.Errorf("Materialize files = %v", files)
	}
}

// TestMaterializeCommittedBytes: Materialize writes blobs byte for byte — no clean/smudge filter,
// eol conversion or ident expansion, whatever .gitattributes and the configuration say — keeps
// symbolic links as links and the executable bit.
func TestMaterializeCommittedBytes(t *testing.T) {
	f := newFixture(t)
	marker := filepath.Join(f.tmp(), "filter-ran")
	f.git("config", "filter.evil.smudge", "touch "+marker+"; cat")
	f.git("config", "filter.evil.clean", "cat")
	f.write(".gitattributes", "*.txt filter=evil\n*.crlf eol=crlf\n*.id ident\n")
	f.write("x.txt", "raw\n")
	f.write("y.crlf", "one\ntwo\n")
	f.write("z.id", "$Id$\n")
	f.write("run.sh", "#!/bin/sh\n")
	if err := os.Chmod(f.path("run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.symlink("../../etc/passwd", "link")
	head := f.commitAll("c")
	for _, reader := range []struct {
		name string
		opts Options
	}{{"git", Options{}}, {"go-git", noGit}} {
		t.Run(reader.name, func(t *testing.T) { checkMaterialized(t, f, head, marker, reader.opts) })
	}
}

func checkMaterialized(t *testing.T, f *fixture, head, marker string, opts Options) {
	_ = os.Remove(marker)
	r, err := OpenWith(f.dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := r.Materialize(context.Background(), head, dir); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"x.txt": "raw\n", "y.crlf": "one\ntwo\n", "z.id": "$Id$\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, p)); string(b) != want {
			t.Errorf("%s = %q, want %q", p, b, want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a filter driver ran")
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link: %v %v, want a symbolic link", fi, err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "run.sh")); fi == nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh mode %v", fi)
	}
}

// TestMaterializeRefusesHostileTrees: a tree (written with git mktree, as a hostile branch could
// push) holding a ".git" entry, a ".." entry, or the same name twice (a symbolic link and a
// directory, so a write through the link would leave the directory) is refused before anything is
// written below it.
func TestMaterializeRefusesHostileTrees(t *testing.T) {
	f := newFixture(t)
	f.base(map[string]string{"a": "x\n"})
	blob := strings.TrimSpace(f.git("rev-parse", "HEAD:a"))
	link := strings.TrimSpace(gitStdin(t, f, "/tmp\n", "hash-object", "-w", "--stdin"))
	sub := strings.TrimSpace(gitStdin(t, f, "100644 blob "+blob+"\tpasswd\n", "mktree"))
	for name, entries := range map[string]string{
		".git entry":     "100644 blob " + blob + "\t.git\n",
		".GIT entry":     "040000 tree " + sub + "\t.GIT\n",
		"duplicate name": "120000 blob " + link + "\tetc\n040000 tree " + sub + "\tetc\n",
	} {
		t.Run(name, func(t *testing.T) {
			tree := strings.TrimSpace(gitStdin(t, f, entries, "mktree", "--missing"))
			commit := strings.TrimSpace(f.git("commit-tree", tree, "-m", name))
			for _, opts := range []Options{{}, noGit} {
				r, err := OpenWith(f.dir, opts)
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				_, err = r.Materialize(context.Background(), commit, dir)
				var me *MaterializeError
				if err == nil || (!errors.As(err, &me) && !errors.Is(err, os.ErrExist)) {
					t.Fatalf("Materialize = %v, want a refusal", err)
				}
			}
			if _, err := os.Lstat("/tmp/passwd"); err == nil {
				if b, _ := os.ReadFile("/tmp/passwd"); string(b) == "x\n" {
					t.Fatal("wrote through a symbolic link")
				}
			}
		})
	}
}

// TestGraftsRefused: with .git/info/grafts present, the merge base is refused.
func TestGraftsRefused(t *testing.T) {
	f := newFixture(t)
	b := f.base(map[string]string{"a": "x\n"})
	h := f.commitAll("second")
	f.write(".git/info/grafts", h+"\n")
	r, err := Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.MergeBase(context.Background(), b, h); !errors.Is(err, ErrGraftsPresent) {
		t.Errorf("MergeBase = %v, want ErrGraftsPresent", err)
	}
}

func gitStdin(t *testing.T, f *fixture, stdin string, args ...string) string {
	t.Helper()
	cmd := execGit(f, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// TestWorktreeIs: the work tree holds exactly a commit only when HEAD is that commit and nothing
// is modified, staged, untracked or ignored.
func TestWorktreeIs(t *testing.T) {
	f := newFixture(t)
	f.write(".gitignore", "*.log\n")
	first := f.base(map[string]string{"a.go": "package a\n"})
	head := f.commitAll("second")
	r, err := Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	check := func(name, commit string, want bool) {
		t.Helper()
		if got, err := r.WorktreeIs(ctx, commit); err != nil || got != want {
			t.Errorf("%s: WorktreeIs = %v, %v; want %v", name, got, err, want)
		}
	}
	check("clean", head, true)
	check("another commit", first, false)
	f.write("a.go", "package a // edited\n")
	check("modified", head, false)
	f.git("checkout", "-q", "--", "a.go")
	f.write("new.go", "package a\n")
	check("untracked", head, false)
	f.remove("new.go")
	f.write("build.log", "x\n")
	check("ignored", head, false)
	f.remove("build.log")
	f.git("update-index", "--assume-unchanged", "a.go")
	f.write("a.go", "package a // hidden by assume-unchanged\n")
	check("assume-unchanged edit", head, false)
	f.git("update-index", "--no-assume-unchanged", "a.go")
	f.git("checkout", "-q", "--", "a.go")
	check("clean again", head, true)
	f.git("update-index", "--skip-worktree", "a.go")
	check("skip-worktree entry", head, false)
}

// TestIndexTagPredicates: the two readers of the ls-files -v tags. indexHidesEntries is true for
// an assume-unchanged entry ('h'), a skip-worktree one ('S') and one with both ('s');
// hasSkipWorktree only for the last two, with git and through go-git's index alike.
func TestIndexTagPredicates(t *testing.T) {
	f := newFixture(t)
	f.base(map[string]string{"a": "a\n", "b": "b\n"})
	withGit, err := Open(f.dir)
	must(t, err)
	noGit, err := OpenWith(f.dir, Options{LookPath: func(string) (string, error) { return "", exec.ErrNotFound }})
	must(t, err)
	ctx := context.Background()
	for _, tc := range []struct {
		name           string
		flags          []string
		hides, skipped bool
	}{
		{"plain", nil, false, false},
		{"assume-unchanged", []string{"--assume-unchanged"}, true, false},
		{"skip-worktree", []string{"--skip-worktree"}, true, true},
		{"both", []string{"--assume-unchanged", "--skip-worktree"}, true, true},
	} {
		f.git("update-index", "--no-assume-unchanged", "--no-skip-worktree", "a")
		for _, fl := range tc.flags {
			f.git("update-index", fl, "a")
		}
		if got, err := withGit.indexHidesEntries(ctx); err != nil || got != tc.hides {
			t.Errorf("%s: indexHidesEntries = %v, %v; want %v", tc.name, got, err, tc.hides)
		}
		for _, r := range []*Repo{withGit, noGit} {
			if got, err := r.hasSkipWorktree(ctx); err != nil || got != tc.skipped {
				t.Errorf("%s (git usable %v): hasSkipWorktree = %v, %v; want %v", tc.name, r.gitUsable(), got, err, tc.skipped)
			}
		}
	}
}
