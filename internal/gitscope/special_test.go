package gitscope

import (
	"context"
	"errors"
	"fmt"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var ctx = context.Background()

// #50: many changed paths, no truncation (the 100,000-path run is scripts/perf scenario B).
func TestManyChangedPaths(t *testing.T) {
	f := newFixture(t)
	const n = 10000
	for i := 0; i < n; i++ {
		f.write(fmt.Sprintf("d%02d/f%05d.txt", i%50, i), "x\n")
	}
	b := f.commitAll("many")
	for i := 0; i < n; i++ {
		f.write(fmt.Sprintf("d%02d/f%05d.txt", i%50, i), "y\n")
	}
	for _, opts := range []Options{{}, noGit} {
		cs, err := changed(t, f.dir, b, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs.Entries) != n {
			t.Fatalf("degraded=%v: %d entries, want %d", opts.LookPath != nil, len(cs.Entries), n)
		}
		for i, e := range cs.Entries {
			if e.Status != StatusModified || (i > 0 && string(cs.Entries[i-1].Path) >= string(e.Path)) {
				t.Fatalf("entry %d: %+v (unsorted or wrong status)", i, e)
			}
		}
	}
}

// #51: a poisoned caller environment is ignored.
func TestPoisonedEnvironment(t *testing.T) {
	f := newFixture(t)
	b := stdBase(f)
	f.write("a", "changed\n")
	f.write("new", "n\n")
	want := []string{"M a", "? new"}
	other := t.TempDir()
	t.Setenv("GIT_DIR", filepath.Join(other, "nowhere.git"))
	t.Setenv("GIT_WORK_TREE", other)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other, "index"))
	t.Setenv("GIT_OBJECT_DIRECTORY", other)
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.excludesfile'='/dev/null' 'status.showuntrackedfiles'='no'")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
	t.Setenv("GIT_CONFIG_VALUE_0", "touch "+filepath.Join(other, "marker"))
	t.Setenv("GIT_EXTERNAL_DIFF", "touch "+filepath.Join(other, "marker2"))
	cs, err := changed(t, f.dir, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	equalLines(t, "poisoned env", render(cs.Entries), want)
	for _, m := range []string{"marker", "marker2", "index"} {
		if _, err := os.Lstat(filepath.Join(other, m)); err == nil {
			t.Errorf("%s was created", m)
		}
	}
}

// #52: diff.external, an fsmonitor hook and a textconv driver in the repository config are
// never run; unhardened git would run diff.external (checked first, so the test can fail).
func TestConfiguredProgramsNeverRun(t *testing.T) {
	f := newFixture(t)
	marks := t.TempDir()
	script := func(name string) string {
		p := filepath.Join(marks, name+".sh")
		body := "#!/bin/sh\ntouch " + filepath.Join(marks, name+".marker") + "\n"
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f.write(".gitattributes", "* diff=tc\n")
	b := stdBase(f)
	f.git("config", "diff.external", script("external"))
	f.git("config", "core.fsmonitor", script("fsmonitor"))
	f.git("config", "diff.tc.textconv", script("textconv"))
	f.write("a", "changed\n")

	// Control: plain git diff runs the external driver.
	cmd := exec.Command("git", "diff", b)
	cmd.Dir = f.dir
	cmd.Env = f.env
	_ = cmd.Run()
	if _, err := os.Lstat(filepath.Join(marks, "external.marker")); err != nil {
		t.Fatalf("control: plain git diff did not run diff.external (%v); the test would prove nothing", err)
	}
	for _, m := range []string{"external", "fsmonitor", "textconv"} {
		os.Remove(filepath.Join(marks, m+".marker"))
	}

	cs, err := changed(t, f.dir, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	equalLines(t, "C", render(cs.Entries), []string{"M a"})
	r, _ := Discover(f.dir)
	if _, err := r.DiffStat(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"external", "fsmonitor", "textconv"} {
		if _, err := os.Lstat(filepath.Join(marks, m+".marker")); err == nil {
			t.Errorf("%s program ran", m)
		}
	}
}

// #53: a baseline removed by a history rewrite fails closed in both modes.
func TestBaselineRemovedByRewrite(t *testing.T) {
	f := newFixture(t)
	b := stdBase(f)
	f.git("checkout", "-q", "--orphan", "rewritten")
	f.git("commit", "-q", "-m", "rewritten history")
	f.git("branch", "-D", "main")
	f.git("reflog", "expire", "--expire=now", "--all")
	f.git("gc", "-q", "--prune=now")
	for _, opts := range []Options{{}, noGit} {
		_, err := changed(t, f.dir, b, opts)
		if !errors.Is(err, ErrBaselineUnavailable) {
			t.Errorf("degraded=%v: err = %v, want ErrBaselineUnavailable", opts.LookPath != nil, err)
		}
		r, _ := DiscoverWith(f.dir, opts)
		if err := r.ValidateBaseline(ctx, b); !errors.Is(err, ErrBaselineUnavailable) {
			t.Errorf("ValidateBaseline: %v", err)
		}
	}
	if err := (&Repo{root: f.dir}).ValidateBaseline(ctx, "HEAD"); !errors.Is(err, ErrBaselineUnavailable) {
		t.Errorf("non-OID baseline: %v", err)
	}
}

// #31 (second half): a baseline outside the shallow history fails closed.
func TestShallowBaselineOutside(t *testing.T) {
	f := newFixture(t)
	old := stdBase(f)
	f.write("a", "2\n")
	f.commitAll("second")
	clone := filepath.Join(filepath.Dir(f.dir), "shallow")
	f.gitIn(filepath.Dir(f.dir), "clone", "-q", "--depth", "1", "file://"+f.dir, clone)
	for _, opts := range []Options{{}, noGit} {
		if _, err := changed(t, clone, old, opts); !errors.Is(err, ErrBaselineUnavailable) {
			t.Errorf("degraded=%v: err = %v, want ErrBaselineUnavailable", opts.LookPath != nil, err)
		}
	}
}

// #55: a repository owned by another user gives ErrDubiousOwnership with the hint.
func TestDubiousOwnership(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown the repository to another uid")
	}
	f := newFixture(t)
	b := stdBase(f)
	err := filepath.Walk(f.dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 12345, 12345)
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = changed(t, f.dir, b, Options{})
	dub, ok := errorsAs[*ErrDubiousOwnership](err)
	if !ok {
		t.Fatalf("err = %v, want *ErrDubiousOwnership", err)
	}
	msg := dub.Error()
	if !strings.Contains(msg, "git config --global --add safe.directory "+f.dir) || !strings.Contains(msg, "owned by another user") {
		t.Errorf("message %q lacks the safe.directory hint", msg)
	}
	if out, _ := os.ReadFile(filepath.Join(f.home, ".gitconfig")); strings.Contains(string(out), "safe") {
		t.Errorf("safe.directory was added: %s", out)
	}
}

// git older than 2.24 is treated as unavailable: degraded with reason git_too_old.
func TestGitTooOld(t *testing.T) {
	f := newFixture(t)
	b := stdBase(f)
	f.write("a", "changed\n")
	fake := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'git version 2.20.1'\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cs, err := changed(t, f.dir, b, Options{LookPath: func(string) (string, error) { return fake, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if !cs.Degraded || cs.DegradedReason != ReasonGitTooOld || cs.Source != SourceGoGit {
		t.Errorf("got source=%s degraded=%v reason=%q", cs.Source, cs.Degraded, cs.DegradedReason)
	}
	equalLines(t, "C", render(cs.Entries), []string{"M a"})
}

// A git whose output has an unexpected shape is ErrGitFailed, never a partial set.
func TestGitOutputShape(t *testing.T) {
	f := newFixture(t)
	b := stdBase(f)
	dir := t.TempDir()
	cases := map[string]string{
		"score":      `printf 'R100\0a\0b\0'`,
		"empty path": `printf 'M\0\0'`,
		"no NUL":     `printf 'M\0a'`,
		"bad status": `printf 'Q\0a\0'`,
		"exit 128":   `echo 'fatal: boom' >&2; exit 128`,
	}
	for name, diffCmd := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			fake := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
			script := `#!/bin/sh
for a in "$@"; do
  case "$a" in
    version) echo 'git version 2.40.0'; exit 0;;
    rev-parse) echo ` + b + `; exit 0;;
    ls-files) printf 'u\0'; exit 0;;
    diff) ` + diffCmd + `; exit 0;;
  esac
done
exit 1
`
			if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			_, err := changed(t, f.dir, b, Options{LookPath: func(string) (string, error) { return fake, nil }})
			gf, ok := errorsAs[*ErrGitFailed](err)
			if !ok || gf.Cmd != "diff" {
				t.Fatalf("err = %v, want *ErrGitFailed for diff", err)
			}
			if name == "exit 128" && (gf.Exit != 128 || gf.Error() != "git diff failed: fatal: boom") {
				t.Errorf("got %+v / %q", gf, gf.Error())
			}
		})
	}
}

// #30: unborn HEAD; Head reports it and the empty tree validates.
func TestHeadUnbornAndEmptyTree(t *testing.T) {
	f := newFixture(t)
	for _, opts := range []Options{{}, noGit} {
		r, err := DiscoverWith(f.dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		oid, unborn, err := r.Head(ctx)
		if err != nil || !unborn || oid != "" {
			t.Errorf("Head = %q %v %v, want unborn", oid, unborn, err)
		}
		if err := r.ValidateBaseline(ctx, EmptyTreeOID); err != nil {
			t.Errorf("ValidateBaseline(empty tree): %v", err)
		}
	}
	b := stdBase(f)
	r, _ := Discover(f.dir)
	if oid, unborn, err := r.Head(ctx); oid != b || unborn || err != nil {
		t.Errorf("Head = %q %v %v, want %s", oid, unborn, err, b)
	}
}

// Discover from a subdirectory finds the top level; outside a repository is ErrNotRepository.
func TestDiscoverAndOpen(t *testing.T) {
	f := newFixture(t)
	stdBase(f)
	r, err := Discover(f.path("dir"))
	if err != nil || r.Root() != f.dir {
		t.Fatalf("Discover(dir) = %v, %v; want root %s", r, err, f.dir)
	}
	if _, err := Discover(t.TempDir()); !errors.Is(err, ErrNotRepository) {
		t.Errorf("outside: %v", err)
	}
	if _, err := Open(f.path("dir")); !errors.Is(err, ErrNotRepository) {
		t.Errorf("Open(subdir): %v", err)
	}
	if r, err := Open(f.dir); err != nil || r.Root() != f.dir {
		t.Errorf("Open(root): %v", err)
	}
	// sparse checkout: go-git cannot open it, git rev-parse finds the top level
	f.git("sparse-checkout", "set", "dir")
	r, err = Discover(f.path("dir"))
	if err != nil || r.Root() != f.dir {
		t.Errorf("Discover(sparse) = %v, %v", r, err)
	}
}

// SHA-256 repositories are refused.
func TestSHA256Refused(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(filepath.Dir(f.dir), "sha256")
	if err := exec.Command("git", "init", "-q", "--object-format=sha256", dir).Run(); err != nil {
		t.Skipf("git cannot create SHA-256 repositories: %v", err)
	}
	if _, err := Discover(dir); !errors.Is(err, ErrSHA256Repository) {
		t.Errorf("Discover: %v", err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrSHA256Repository) {
		t.Errorf("Open: %v", err)
	}
	if ErrSHA256Repository.Error() != "SHA-256 repositories are not supported yet" {
		t.Error("message changed")
	}
}

func TestResolveRevision(t *testing.T) {
	f := newFixture(t)
	b := stdBase(f)
	f.git("tag", "-a", "-m", "annotated", "v1")
	f.write("a", "2\n")
	second := f.commitAll("second")
	for _, opts := range []Options{{}, noGit} {
		r, _ := DiscoverWith(f.dir, opts)
		for rev, want := range map[string]string{"HEAD": second, "HEAD~1": b, "v1": b, "main": second, b[:10]: b, b: b, EmptyTreeOID: EmptyTreeOID} {
			got, err := r.ResolveRevision(ctx, rev)
			if err != nil || got != want {
				t.Errorf("degraded=%v ResolveRevision(%q) = %q, %v; want %s", opts.LookPath != nil, rev, got, err, want)
			}
		}
		for _, rev := range []string{"", "-x", "--output=/tmp/x", "a\x00b", strings.Repeat("a", 1025)} {
			if _, err := r.ResolveRevision(ctx, rev); !errors.Is(err, ErrInvalidRevision) {
				t.Errorf("ResolveRevision(%q) = %v, want ErrInvalidRevision", rev, err)
			}
		}
		if _, err := r.ResolveRevision(ctx, "no-such-branch"); !errors.Is(err, ErrRevisionNotFound) {
			t.Errorf("missing rev: %v", err)
		}
	}
}

func TestResolveCommit(t *testing.T) {
	f := newFixture(t)
	b := stdBase(f)
	f.write("a", "2\n")
	f.git("add", "a")
	f.git("commit", "-q", "-m", "second subject\n\nbody")
	second := f.head()
	for _, opts := range []Options{{}, noGit} {
		r, _ := DiscoverWith(f.dir, opts)
		oid, subj, err := r.ResolveCommit(ctx, second[:8])
		if err != nil || oid != second || subj != "second subject" {
			t.Errorf("ResolveCommit = %q %q %v", oid, subj, err)
		}
		if oid, subj, err := r.ResolveCommit(ctx, strings.ToUpper(b[:12])); err != nil || oid != b || subj != "baseline" {
			t.Errorf("ResolveCommit(upper) = %q %q %v", oid, subj, err)
		}
		for _, p := range []string{"0000000", "zzzz", "-abc", "", "ab"} {
			if _, _, err := r.ResolveCommit(ctx, p); !errors.Is(err, ErrCommitNotFound) {
				t.Errorf("ResolveCommit(%q) = %v, want ErrCommitNotFound", p, err)
			}
		}
	}
}

func TestAmbiguousCommitPrefix(t *testing.T) {
	f := newFixture(t)
	stdBase(f)
	// Make commits until two share a 4-hex prefix.
	seen := map[string]string{}
	var prefix string
	for i := 0; i < 2000 && prefix == ""; i++ {
		f.git("commit", "-q", "--allow-empty", "-m", fmt.Sprintf("c%d", i))
		h := f.head()
		if _, ok := seen[h[:4]]; ok {
			prefix = h[:4]
		}
		seen[h[:4]] = h
	}
	if prefix == "" {
		t.Skip("no collision found")
	}
	for _, opts := range []Options{{}, noGit} {
		r, _ := DiscoverWith(f.dir, opts)
		_, _, err := r.ResolveCommit(ctx, prefix)
		var amb *AmbiguousError
		if !errors.Is(err, ErrAmbiguous) || !errors.As(err, &amb) || amb.Matches < 2 {
			t.Errorf("degraded=%v ResolveCommit(%s) = %v, want ambiguous with >= 2 matches", opts.LookPath != nil, prefix, err)
		}
	}
}

func TestBaselineEntriesAndBlob(t *testing.T) {
	f := newFixture(t)
	withSubmodule(f)
	f.symlink("a", "link")
	b := f.commitAll("with link")
	f.write("a", "changed\n")
	paths := []string{"a", "dir", "dir/c.txt", "link", "sub", "missing", "dir/missing", "nodir/x", "a/under-file"}
	want := map[string]EntryType{"a": EntryBlob, "dir": EntryTree, "dir/c.txt": EntryBlob, "link": EntryLink,
		"sub": EntryGitlink, "missing": EntryAbsent, "dir/missing": EntryAbsent, "nodir/x": EntryAbsent, "a/under-file": EntryAbsent}
	check := func(name string, r *Repo) {
		got, err := r.BaselineEntries(ctx, b, paths)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for p, w := range want {
			if got[p] != w {
				t.Errorf("%s: %s = %s, want %s", name, p, got[p], w)
			}
		}
		data, ok, err := r.BaselineBlob(ctx, b, "a")
		if err != nil || !ok || string(data) != "a\n" {
			t.Errorf("%s: BaselineBlob(a) = %q %v %v", name, data, ok, err)
		}
		data, ok, err = r.BaselineBlob(ctx, b, "link")
		if err != nil || !ok || string(data) != "a" {
			t.Errorf("%s: BaselineBlob(link) = %q %v %v", name, data, ok, err)
		}
		for _, p := range []string{"missing", "dir", "sub"} {
			if _, ok, err := r.BaselineBlob(ctx, b, p); ok || err != nil {
				t.Errorf("%s: BaselineBlob(%s) ok=%v err=%v", name, p, ok, err)
			}
		}
		if got, _ := r.BaselineEntries(ctx, EmptyTreeOID, []string{"a"}); got["a"] != EntryAbsent {
			t.Errorf("%s: empty tree: %v", name, got)
		}
	}
	r, _ := Discover(f.dir)
	check("go-git", r)
	// CLI equivalents: a layout go-git cannot open.
	f.git("config", "extensions.worktreeConfig", "true")
	f.git("config", "core.repositoryformatversion", "1")
	r2, err := Discover(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	_, release, gerr := r2.goGit()
	release()
	if !errors.Is(gerr, ErrUnsupportedRepository) {
		t.Fatalf("expected go-git to refuse worktreeConfig, got %v", gerr)
	}
	check("git CLI", r2)
}

func TestListFilesAndDiffStat(t *testing.T) {
	f := newFixture(t)
	f.write(".gitignore", "*.log\n")
	b := stdBase(f)
	f.write("a", "changed\n")
	f.write("new.txt", "n\n")
	f.write("x.log", "ignored\n")
	f.write(".mastermind/state.json", "{}\n")
	f.write("inner/x", "x")
	f.gitIn(f.path("inner"), "init", "-q")
	want := []string{".gitignore", ".mastermind/state.json", "a", "big", "dir/c.txt", "f", "new.txt", "s.sh"}
	for _, opts := range []Options{{}, noGit} {
		r, _ := DiscoverWith(f.dir, opts)
		got, err := r.ListFiles(ctx)
		if err != nil {
			t.Fatal(err)
		}
		equalLines(t, fmt.Sprintf("ListFiles degraded=%v", opts.LookPath != nil), got, want)
	}
	r, _ := Discover(f.dir)
	stat, err := r.DiffStat(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stat, " a | 2 +-") || !strings.Contains(stat, "1 file changed") || strings.Contains(stat, ".mastermind") {
		t.Errorf("DiffStat = %q", stat)
	}
	rd, _ := DiscoverWith(f.dir, noGit)
	if s, err := rd.DiffStat(ctx, b); err != nil || s != DiffStatUnavailable {
		t.Errorf("degraded DiffStat = %q %v", s, err)
	}
}

func TestWithoutControl(t *testing.T) {
	cs := &ChangedSet{Entries: []Entry{
		{Path: []byte(".mastermind"), Status: StatusUntracked, UTF8: true},
		{Path: []byte(".mastermind/tasks/001-x/audit.md"), Status: StatusModified, UTF8: true},
		{Path: []byte(".mastermind/tasks/001-x/helper.go"), Status: StatusUntracked, UTF8: true},
		{Path: []byte(".mastermind/x"), Status: StatusModified, UTF8: true},
		{Path: []byte(".mastermindx"), Status: StatusModified, UTF8: true},
		{Path: []byte("a"), Status: StatusAdded, UTF8: true},
	}}
	// Only controller names whose bytes the rule finds the controller's leave D (trust-model.md
	// I3): the folder itself, a helper.go in a task folder and an unknown file below .mastermind/
	// are changed paths whatever the rule says.
	equalLines(t, "D", render(cs.WithoutControl(allControl{})), []string{"? .mastermind", "? .mastermind/tasks/001-x/helper.go", "M .mastermind/x", "M .mastermindx", "A a"})
	// A rule that finds no bytes the controller's leaves audit.md in D (#26 item 4).
	equalLines(t, "D", render(cs.WithoutControl(repopath.ContractsOnly{})), []string{"? .mastermind", "M .mastermind/tasks/001-x/audit.md", "? .mastermind/tasks/001-x/helper.go", "M .mastermind/x", "M .mastermindx", "A a"})
}

// allControl is the repopath.ControlRule that takes every controller name's bytes for the
// controller's.
type allControl struct{}

func (allControl) Controller(string, repopath.ControlName) bool { return true }

// TestWithoutControlShares: artifacts in one run at the start or the end, or none, give a
// subslice of Entries (nothing copied) whose capacity stops an append from writing into Entries;
// artifacts between other paths give a copy.
func TestWithoutControlShares(t *testing.T) {
	e := func(p string) Entry { return Entry{Path: []byte(p), Status: StatusModified, UTF8: true} }
	for _, tc := range []struct {
		name   string
		paths  []string
		want   []string
		shared bool
	}{
		{"none", []string{"a", "b"}, []string{"M a", "M b"}, true},
		{"at the start", []string{".mastermind/tasks/001-x/audit.md", ".mastermind/tasks/001-x/state.json", "a", "b"}, []string{"M a", "M b"}, true},
		{"at the end", []string{"-a", ".mastermind/tasks/001-x/audit.md"}, []string{"M -a"}, true},
		{"between", []string{"-a", ".mastermind/tasks/001-x/audit.md", "b"}, []string{"M -a", "M b"}, false},
		{"start with a changed path inside", []string{".mastermind/tasks/001-x/audit.md", ".mastermind/tasks/001-x/helper.go", ".mastermind/tasks/001-x/state.json", "a"},
			[]string{"M .mastermind/tasks/001-x/helper.go", "M a"}, false},
		{"end with a changed path inside", []string{"-a", ".mastermind/tasks/001-x/audit.md", ".mastermind/tasks/001-x/helper.go", ".mastermind/tasks/001-x/state.json"},
			[]string{"M -a", "M .mastermind/tasks/001-x/helper.go"}, false},
		{"only artifacts", []string{".mastermind/tasks/001-x/audit.md", ".mastermind/tasks/001-x/state.json"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := &ChangedSet{}
			for _, p := range tc.paths {
				cs.Entries = append(cs.Entries, e(p))
			}
			d := cs.WithoutControl(allControl{})
			equalLines(t, "D", render(d), tc.want)
			shared := len(d) > 0 && &d[0] == &cs.Entries[len(cs.Entries)-len(d)] || len(d) > 0 && &d[0] == &cs.Entries[0]
			if shared != tc.shared {
				t.Errorf("shared %v, want %v", shared, tc.shared)
			}
			if shared && cap(d) != len(d) {
				t.Errorf("shared D: cap %d, len %d", cap(d), len(d))
			}
			before := render(cs.Entries)
			_ = append(d, e("zzz"))
			equalLines(t, "Entries after an append to D", render(cs.Entries), before)
		})
	}
}

func TestReportPeakRSS(t *testing.T) {
	var sb strings.Builder
	t.Setenv(DebugRSSEnv, "")
	ReportPeakRSS(&sb)
	if sb.Len() != 0 {
		t.Errorf("printed without the variable: %q", sb.String())
	}
	t.Setenv(DebugRSSEnv, "1")
	ReportPeakRSS(&sb)
	if _, err := os.Stat("/proc/self/status"); err == nil && !strings.HasPrefix(sb.String(), "mastermind: VmHWM: ") {
		t.Errorf("got %q", sb.String())
	}
}

// countingRule counts its calls and takes every controller name for the controller's.
type countingRule struct{ calls int }

func (r *countingRule) Controller(string, repopath.ControlName) bool { r.calls++; return true }

// scenarioB is a changed set of n paths outside .mastermind/ around the given control paths,
// sorted by path bytes.
func scenarioB(n int, control ...string) *ChangedSet {
	cs := &ChangedSet{}
	for i := 0; i < n/2; i++ {
		cs.Entries = append(cs.Entries, Entry{Path: []byte(fmt.Sprintf(".a/%07d.go", i)), Status: StatusModified, UTF8: true})
	}
	for _, p := range control {
		cs.Entries = append(cs.Entries, Entry{Path: []byte(p), Status: StatusModified, UTF8: true})
	}
	for i := n / 2; i < n; i++ {
		cs.Entries = append(cs.Entries, Entry{Path: []byte(fmt.Sprintf("src/%07d.go", i)), Status: StatusModified, UTF8: true})
	}
	return cs
}

// TestWithoutControlConsultsOnlyControlPaths (#26 item 4, gitscope.md §8.1 scenario B): with
// 200,000 changed paths, the content rule is called once per controller or contract name below
// .mastermind/ and never for a path elsewhere.
func TestWithoutControlConsultsOnlyControlPaths(t *testing.T) {
	cs := scenarioB(200000, ".mastermind/releases/001-x.md", ".mastermind/tasks/001-x/audit.md",
		".mastermind/tasks/001-x/helper.go", ".mastermind/tasks/001-x/spec.md", ".mastermind/tasks/001-x/state.json")
	rule := &countingRule{}
	d := cs.WithoutControl(rule)
	if rule.calls != 4 {
		t.Errorf("the rule was called %d times, want 4 (the controller and contract names only)", rule.calls)
	}
	if len(d) != 200001 {
		t.Errorf("len(D) = %d, want 200001", len(d))
	}
}

// BenchmarkWithoutControl is WithoutControl over scenario B's 200,000 changed paths with five
// paths below .mastermind/.
func BenchmarkWithoutControl(b *testing.B) {
	cs := scenarioB(200000, ".mastermind/releases/001-x.md", ".mastermind/tasks/001-x/audit.md",
		".mastermind/tasks/001-x/helper.go", ".mastermind/tasks/001-x/spec.md", ".mastermind/tasks/001-x/state.json")
	for b.Loop() {
		_ = cs.WithoutControl(&countingRule{})
	}
}
