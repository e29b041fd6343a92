package gitscope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fixture is a git repository built with the real git binary in t.TempDir(). HOME and
// XDG_CONFIG_HOME point at per-test directories (set in the process environment too, because
// gitscope passes them on to git), and GIT_CONFIG_NOSYSTEM=1 is set for the setup commands.
type fixture struct {
	t    *testing.T
	dir  string // the work tree
	home string
	env  []string
	// planted lists the self-ignoring directories a test wrote (selfIgnoring).
	planted []string
}

func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
}

// newFixture creates an empty repository (branch main) at <tmp>/repo.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	requireGit(t)
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	xdg := filepath.Join(home, ".config")
	if err := os.MkdirAll(xdg, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	f := &fixture{t: t, dir: filepath.Join(tmp, "repo"), home: home}
	f.env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + xdg,
		"GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
	}
	f.gitIn(tmp, "init", "-q", "-b", "main", f.dir)
	return f
}

// gitIn runs git in dir with the fixture environment and returns stdout; it fails the test on
// a non-zero exit.
func (f *fixture) gitIn(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = f.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		f.t.Fatalf("git %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, errb.String())
	}
	return out.String()
}

func (f *fixture) git(args ...string) string { f.t.Helper(); return f.gitIn(f.dir, args...) }

// gitMayFail runs git and returns its error instead of failing.
func (f *fixture) gitMayFail(args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = f.dir
	cmd.Env = f.env
	return cmd.Run()
}

// tmp is the fixture's temporary directory (parent of the work tree and of HOME): marker files
// and decoys live there, outside the repository.
func (f *fixture) tmp() string { return filepath.Dir(f.home) }

func (f *fixture) path(rel string) string { return filepath.Join(f.dir, filepath.FromSlash(rel)) }

func (f *fixture) write(rel, content string) {
	f.t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) remove(rel string) {
	f.t.Helper()
	if err := os.RemoveAll(f.path(rel)); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) symlink(target, rel string) {
	f.t.Helper()
	if err := os.Symlink(target, f.path(rel)); err != nil {
		f.t.Fatal(err)
	}
}

// commitAll stages everything and commits; returns the new HEAD OID.
func (f *fixture) commitAll(msg string) string {
	f.t.Helper()
	f.git("add", "-A")
	f.git("commit", "-q", "--allow-empty", "-m", msg)
	return f.head()
}

// conflict leaves paths unmerged: branch other and main each commit their own content, and main
// merges other.
func (f *fixture) conflict(paths ...string) {
	f.t.Helper()
	f.git("checkout", "-q", "-b", "other")
	for _, p := range paths {
		f.write(p, "other\n")
	}
	f.commitAll("other")
	f.git("checkout", "-q", "main")
	for _, p := range paths {
		f.write(p, "mine\n")
	}
	f.commitAll("mine")
	if f.gitMayFail("merge", "-q", "other") == nil {
		f.t.Fatal("the merge did not conflict")
	}
}

func (f *fixture) head() string {
	f.t.Helper()
	return strings.TrimSpace(f.git("rev-parse", "HEAD"))
}

// base writes files and commits them as the baseline.
func (f *fixture) base(files map[string]string) string {
	f.t.Helper()
	for p, c := range files {
		f.write(p, c)
	}
	return f.commitAll("baseline")
}

// noGit makes the Repo's git lookup fail, forcing the degraded fallback.
var noGit = Options{LookPath: func(string) (string, error) { return "", exec.ErrNotFound }}

// render turns entries into comparable lines: "<letter> <path>[ nested][ !utf8]".
func render(es []Entry) []string {
	out := make([]string, 0, len(es))
	for _, e := range es {
		s := map[Status]string{StatusAdded: "A", StatusDeleted: "D", StatusModified: "M", StatusUntracked: "?"}[e.Status]
		s += " " + string(e.Path)
		if e.NestedRepository {
			s += " nested"
		}
		if !e.UTF8 {
			s += " !utf8"
		}
		out = append(out, s)
	}
	return out
}

// changed runs ChangedSet at dir with opts.
func changed(t *testing.T, dir, baseline string, opts Options) (*ChangedSet, error) {
	t.Helper()
	r, err := DiscoverWith(dir, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return r.ChangedSet(ctx, baseline)
}

// bareRecipe runs the two §4.1 commands directly (no gitscope code) and merges their output by
// the §1 rules with a plain map: git's own answer.
func bareRecipe(t *testing.T, dir, baseline string) []string {
	t.Helper()
	out, err := bareRecipeErr(t, dir, baseline)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// bareRecipeErr is bareRecipe returning git's failure instead of failing the test.
func bareRecipeErr(t *testing.T, dir, baseline string) ([]string, error) {
	t.Helper()
	var failed error
	run := func(args ...string) []string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = gitEnv()
		out, err := cmd.Output()
		if err != nil {
			if failed == nil {
				failed = fmt.Errorf("bare recipe git %v: %v", args, err)
			}
			return nil
		}
		toks := strings.Split(string(out), "\x00")
		if toks[len(toks)-1] != "" {
			t.Fatalf("bare recipe: missing trailing NUL")
		}
		return toks[:len(toks)-1]
	}
	diff := run("-C", dir, "--no-optional-locks", "--no-pager", "--literal-pathspecs", "-c", "core.quotepath=off",
		"-c", "core.fsmonitor=false", "-c", "diff.external=", "-c", "color.ui=never",
		"diff", "--no-ext-diff", "--no-textconv", "--no-color", "--name-status", "-z", "--no-renames",
		"--ignore-submodules=none", baseline, "--")
	others := run("-C", dir, "--no-optional-locks", "--no-pager", "--literal-pathspecs", "-c", "core.quotepath=off",
		"-c", "core.fsmonitor=false", "ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--")
	status := map[string]string{}
	for i := 0; i+1 < len(diff); i += 2 {
		l := diff[i]
		if l != "A" && l != "D" {
			l = "M"
		}
		if prev, ok := status[diff[i+1]]; ok && prev != l {
			l = "M"
		}
		status[diff[i+1]] = l
	}
	for _, p := range others {
		suffix := ""
		if strings.HasSuffix(p, "/") {
			p, suffix = strings.TrimSuffix(p, "/"), " nested"
		}
		if prev, ok := status[p]; ok {
			if prev == "D" {
				status[p] = "M"
			}
			continue
		}
		status[p] = "?" + suffix
	}
	keys := make([]string, 0, len(status))
	for p := range status {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, p := range keys {
		s := status[p]
		nested := strings.HasSuffix(s, " nested")
		line := s[:1] + " " + p
		if nested {
			line += " nested"
		}
		if !isValidUTF8(p) {
			line += " !utf8"
		}
		out = append(out, line)
	}
	return out, failed
}

func isValidUTF8(s string) bool { return utf8.ValidString(s) }

// snapshotTree lists every file under dir with size and mtime, to prove nothing was written.
func snapshotTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out = append(out, p+" "+fi.Mode().String()+" "+fi.ModTime().String()+" "+strconv.FormatInt(fi.Size(), 10))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// equalLines reports a readable diff.
func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if got == nil {
		got = []string{}
	}
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		if len(got)+len(want) > 20 {
			var extra, missing []string
			for _, g := range got {
				if !slices.Contains(want, g) {
					extra = append(extra, g)
				}
			}
			for _, w := range want {
				if !slices.Contains(got, w) {
					missing = append(missing, w)
				}
			}
			t.Errorf("%s: %d lines, want %d\n unexpected %q\n missing    %q", what, len(got), len(want), extra, missing)
			return
		}
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

func errorsAs[T error](err error) (T, bool) {
	var target T
	ok := errors.As(err, &target)
	return target, ok
}
