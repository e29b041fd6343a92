package audit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/spec"
)

const testSpecPath = ".mastermind/tasks/020-cache/spec.md"

// fixture is a real repository with a baseline commit, a parsed spec and a typed report.
type fixture struct {
	root     string
	repo     *gitscope.Repo
	baseline string
	sp       *spec.Spec
	spFs     []finding.Finding
	// control is the audit's changed-set rule (nil: only the contract files are left out).
	control repopath.ControlRule
}

// controllerContent takes a controller name whose content is "controller\n" for the
// controller's (a store's hash match, in miniature).
type controllerContent struct{ root string }

func (c controllerContent) Controller(p string, _ repopath.ControlName) bool {
	b, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(p)))
	return err == nil && string(b) == "controller\n"
}

// newFixture builds a repository whose baseline holds base (path → content) and the spec
// (frontmatter front), commits it, then applies work (path → content; "" deletes the path).
func newFixture(t *testing.T, front string, base, work map[string]string) *fixture {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com", "GIT_COMMITTER_NAME": "Test",
		"GIT_COMMITTER_EMAIL": "test@example.com",
	} {
		t.Setenv(k, v)
	}
	root := t.TempDir()
	specText := "---\nid: '020'\n" + front + "---\n# Cache\n\n## Goals\n\nA cache.\n"
	write(t, root, testSpecPath, specText)
	for p, c := range base {
		write(t, root, p, c)
	}
	gitCmd(t, root, "init", "-q")
	gitCmd(t, root, "add", "-A")
	gitCmd(t, root, "commit", "-q", "-m", "baseline")
	oid := gitCmd(t, root, "rev-parse", "HEAD")
	for p, c := range work {
		if c == "" {
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(p))); err != nil {
				t.Fatal(err)
			}
			continue
		}
		write(t, root, p, c)
	}
	repo, err := gitscope.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	sp, fs := spec.Parse([]byte(specText), testSpecPath)
	return &fixture{root: root, repo: repo, baseline: oid, sp: sp, spFs: fs}
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// inputs are the audit inputs of f for the typed report rep, with a started Prefetch.
func (f *fixture) inputs(t *testing.T, rr report.Result) Inputs {
	t.Helper()
	ctx := context.Background()
	pf := StartChangedSet(ctx, f.repo, f.baseline)
	t.Cleanup(pf.Close)
	pf.LookupBaseline(ctx, f.repo, f.baseline, f.sp.Scope.Creates)
	return Inputs{Root: f.root, SpecPath: testSpecPath, Spec: f.sp, SpecFindings: f.spFs, Baseline: f.baseline,
		Report: rr, Prefetch: pf, Claims: f.repo, Control: f.control}
}

// run prepares the checks of f for rep as Compute does and returns the run.
func (f *fixture) run(t *testing.T, rep *report.Report) (*run, []finding.Finding) {
	t.Helper()
	in := f.inputs(t, report.Result{Report: rep, Form: rep.Form})
	cs, err := in.Prefetch.ChangedSet()
	if err != nil {
		t.Fatal(err)
	}
	return newRun(context.Background(), &in, cs, &Evidence{})
}

// completeReport is a typed, complete report for the test task listing files.
func completeReport(files ...string) *report.Report {
	rep := &report.Report{Form: report.FormSentinel, SchemaVersion: 1, Spec: testSpecPath, Status: "complete",
		Phases: []report.Phase{{ID: "plan-1", Status: "done"}}}
	for _, p := range files {
		rep.FilesModified = append(rep.FilesModified, report.FileEntry{Raw: p, Path: p})
	}
	return rep
}

// kinds renders findings as sorted "kind field" strings, field being the first present of
// file, cmd, reason.
func kinds(fs []finding.Finding) []string {
	out := []string{}
	for _, f := range fs {
		s := f.Rule
		for _, k := range []string{"file", "cmd"} {
			if v := f.FieldString(k); v != "" {
				s += " " + v
				break
			}
		}
		if r := f.FieldString("reason"); r != "" {
			s += " (" + r + ")"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func wantKinds(t *testing.T, got []finding.Finding, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	slices.Sort(want)
	if g := kinds(got); !slices.Equal(g, want) {
		t.Errorf("findings\n got  %q\n want %q", g, want)
	}
}

// checkWithRuns runs c on r and returns its findings with the per-path findings it held as runs.
func checkWithRuns(r *run, c func(*run) ([]finding.Finding, error)) ([]finding.Finding, error) {
	before := len(r.runs)
	fs, err := c(r)
	for f := range All(nil, r.runs[before:]) {
		fs = append(fs, f)
	}
	return fs, err
}
