// Package actiontest runs the steps of the repository's composite GitHub Action (action.yml)
// the way the runner does — bash --noprofile --norc -eo pipefail, with GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY, GITHUB_PATH and RUNNER_TEMP files — against a pull request built in a
// scratch clone of a local bare remote.
package actiontest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/cli"
	"github.com/mastermind-controller/mastermind/internal/testenv"
	"go.yaml.in/yaml/v3"
)

// TestMain makes this test binary the mastermind of the test's own pre-flight (testenv.Main), so
// that the package builds no mastermind besides the action's build step.
func TestMain(m *testing.M) {
	testenv.Main(m, cli.Main)
}

type step struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Shell            string            `yaml:"shell"`
	Env              map[string]string `yaml:"env"`
	Run              string            `yaml:"run"`
	WorkingDirectory string            `yaml:"working-directory"`
}

type action struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
}

// stepIDs are the action's steps in order; the tests find each by its id.
var stepIDs = []string{"setup-go", "go-cache", "go-cache-restore", "build", "go-cache-save", "gate"}

func (a action) step(t *testing.T, id string) step {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("action.yml has no step with id %s", id)
	return step{}
}

var exprRe = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// runner executes composite steps like the Actions runner, for the expressions action.yml uses.
type runner struct {
	t       *testing.T
	act     action
	inputs  map[string]string
	github  map[string]string // github.* context values
	temp    string
	path    []string // GITHUB_PATH additions, newest first
	outputs map[string]map[string]string
	summary string
	env     []string
	cache   *localCache       // runs the actions/cache steps; nil: they are checked, not run
	stdout  map[string]string // by step id
	stderr  map[string]string
}

func (r *runner) value(e string) string {
	switch {
	case strings.HasPrefix(e, "inputs."):
		return r.inputs[strings.TrimPrefix(e, "inputs.")]
	case strings.HasPrefix(e, "github."):
		return r.github[strings.TrimPrefix(e, "github.")]
	case strings.HasPrefix(e, "steps."):
		parts := strings.Split(e, ".") // steps.<id>.outputs.<name>
		if len(parts) == 4 && parts[2] == "outputs" {
			return r.outputs[parts[1]][parts[3]]
		}
	}
	r.t.Fatalf("action.yml uses an expression the test runner does not know: %s", e)
	return ""
}

func (r *runner) eval(s string) string {
	return exprRe.ReplaceAllStringFunc(s, func(m string) string {
		return r.value(exprRe.FindStringSubmatch(m)[1])
	})
}

var condRe = regexp.MustCompile(`^(\S+) (==|!=) '([^']*)'$`)

// cond evaluates a step's if: the forms action.yml uses (empty, or a comparison of a context
// value with a string literal).
func (r *runner) cond(s step) bool {
	c := strings.TrimSpace(s.If)
	if m := exprRe.FindStringSubmatch(c); m != nil && m[0] == c {
		c = m[1]
	}
	if c == "" {
		return true
	}
	m := condRe.FindStringSubmatch(c)
	if m == nil {
		r.t.Fatalf("step %q: if %q is not a form the test runner knows", s.Name, s.If)
	}
	return (r.value(m[1]) == m[3]) == (m[2] == "==")
}

// setup runs every step before the gate: the Go set-up is the host's (checked, not run), the
// cache steps run only with a local cache, and the bash steps run.
func (r *runner) setup(workspace string) {
	r.t.Helper()
	for _, s := range r.act.Runs.Steps {
		switch {
		case s.ID == "gate":
			return
		case !r.cond(s):
			r.t.Logf("step %q skipped (if: %s)", s.Name, s.If)
		case strings.HasPrefix(s.Uses, "actions/setup-go@"):
		case strings.HasPrefix(s.Uses, "actions/cache/"):
			if r.cache != nil {
				r.cache.run(r, s)
			}
		case s.Uses != "":
			r.t.Fatalf("step %q uses %s, which the test runner does not know", s.Name, s.Uses)
		default:
			if code, _ := r.run(s, workspace); code != 0 {
				r.t.Fatalf("step %q exited %d", s.Name, code)
			}
		}
	}
}

// run executes one bash step and returns its exit status and stdout.
func (r *runner) run(s step, workspace string) (int, string) {
	r.t.Helper()
	if s.Shell != "bash" {
		r.t.Fatalf("step %q: shell %q, want bash", s.Name, s.Shell)
	}
	script := filepath.Join(r.temp, "step.sh")
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		r.t.Fatal(err)
	}
	files := map[string]string{}
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"} {
		f := filepath.Join(r.temp, strings.ToLower(k))
		_ = os.WriteFile(f, nil, 0o644)
		files[k] = f
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = workspace
	if s.WorkingDirectory != "" {
		cmd.Dir = filepath.Join(workspace, r.eval(s.WorkingDirectory))
	}
	env := append([]string{}, r.env...)
	env = append(env, "PATH="+strings.Join(append(append([]string{}, r.path...), os.Getenv("PATH")), ":"),
		"RUNNER_TEMP="+r.temp, "GITHUB_ACTION_PATH="+r.github["action_path"], "GITHUB_WORKSPACE="+workspace)
	for k, f := range files {
		env = append(env, k+"="+f)
	}
	for k, v := range s.Env {
		env = append(env, k+"="+r.eval(v))
	}
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatal(err)
	}
	// A step's -x output can be long: cut it in the log, except when the step failed.
	logged := stderr.String()
	if code == 0 && len(logged) > 4000 {
		logged = logged[:2000] + "\n…\n" + logged[len(logged)-2000:]
	}
	r.t.Logf("step %q exited %d\nstdout:\n%s\nstderr:\n%s", s.Name, code, stdout.String(), logged)
	if r.stderr == nil {
		r.stdout, r.stderr = map[string]string{}, map[string]string{}
	}
	r.stdout[s.ID], r.stderr[s.ID] = stdout.String(), stderr.String()
	out := map[string]string{}
	data, _ := os.ReadFile(files["GITHUB_OUTPUT"])
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[k] = v
		}
	}
	if s.ID != "" {
		r.outputs[s.ID] = out
	}
	if p, _ := os.ReadFile(files["GITHUB_PATH"]); len(p) > 0 {
		for _, line := range strings.Split(strings.TrimSpace(string(p)), "\n") {
			r.path = append([]string{line}, r.path...)
		}
	}
	sum, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	r.summary += string(sum)
	return code, stdout.String()
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitEnv keeps HOME (the Go caches live there) and points git's global configuration at an
// empty file under dir, so the host's git configuration cannot leak in.
func gitEnv(dir string) []string {
	empty := filepath.Join(dir, ".gitconfig-empty")
	if _, err := os.Stat(empty); err != nil {
		_ = os.WriteFile(empty, nil, 0o644)
	}
	return append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+empty, "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@e",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@e")
}

func write(t *testing.T, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

const spec = `---
id: '001'
touches:
  - file: src/app.go
---
# Greeting

## Goals

Say hello.

## Alternatives Considered

None.

## Tests Plan

None.

## Documentation Plan

None.

## Observability Plan

None.

## Performance Considerations

None.
`

func report(files string) string {
	return "<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: .mastermind/tasks/001-greet/spec.md\n" +
		"status: complete\nphases: []\nfiles_modified: [" + files + "]\nclaims: []\ndefects: []\nverifications: []\n```\n<!-- mastermind:report-end -->\n"
}

// loadAction reads action.yml and checks its shape: the inputs, the steps in order, and the
// wiring of the Go set-up and of the build cache (key from go.sum and the Go version, restored
// before the build, saved after it unless the restore hit the key).
func loadAction(t *testing.T) (action, string) {
	t.Helper()
	for _, tool := range []string{"git", "go", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH", tool)
		}
	}
	repoRoot, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var act action
	if err := yaml.Unmarshal(data, &act); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	var ids []string
	for _, s := range act.Runs.Steps {
		ids = append(ids, s.ID)
	}
	if act.Runs.Using != "composite" || strings.Join(ids, ",") != strings.Join(stepIDs, ",") {
		t.Fatalf("action.yml: using %q with steps %v, want composite with %v", act.Runs.Using, ids, stepIDs)
	}
	for _, in := range []string{"fail-on", "base", "sarif", "working-directory"} {
		if _, ok := act.Inputs[in]; !ok {
			t.Errorf("action.yml lacks input %s", in)
		}
	}
	setup := act.step(t, "setup-go")
	if !strings.HasPrefix(setup.Uses, "actions/setup-go@") || setup.With["go-version-file"] != "${{ github.action_path }}/go.mod" {
		t.Errorf("first step must set up Go from the action's go.mod: %+v", setup)
	}
	// setup-go's cache cannot hash the action's go.sum (outside the workspace): it must be off,
	// not fail with a warning on every run.
	if setup.With["cache"] != "false" {
		t.Errorf("setup-go: cache %q, want false (the action caches the build itself)", setup.With["cache"])
	}
	paths := "${{ steps.go-cache.outputs.gocache }}\n${{ steps.go-cache.outputs.gomodcache }}\n"
	restore, save := act.step(t, "go-cache-restore"), act.step(t, "go-cache-save")
	if !strings.HasPrefix(restore.Uses, "actions/cache/restore@") || restore.With["path"] != paths ||
		restore.With["key"] != "${{ steps.go-cache.outputs.key }}" || restore.With["restore-keys"] != "${{ steps.go-cache.outputs.restore-key }}" {
		t.Errorf("cache restore step: %+v", restore)
	}
	if !strings.HasPrefix(save.Uses, "actions/cache/save@") || save.With["path"] != paths ||
		save.With["key"] != "${{ steps.go-cache-restore.outputs.cache-primary-key }}" ||
		save.If != "steps.go-cache-restore.outputs.cache-hit != 'true'" {
		t.Errorf("cache save step: %+v", save)
	}
	return act, repoRoot
}

func goEnv(t *testing.T, env []string, name string) string {
	t.Helper()
	cmd := exec.Command("go", "env", name)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// checkCacheKey checks the go-cache step's outputs: the key is the Go version and platform
// followed by the SHA-256 of the action's go.sum, and the paths are the go command's caches.
func checkCacheKey(t *testing.T, r *runner, repoRoot string) {
	t.Helper()
	sum, err := os.ReadFile(filepath.Join(repoRoot, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(sum)
	prefix := "mastermind-go-build-" + goEnv(t, r.env, "GOOS") + "-" + goEnv(t, r.env, "GOARCH") + "-" + goEnv(t, r.env, "GOVERSION") + "-"
	out := r.outputs["go-cache"]
	if out["key"] != prefix+hex.EncodeToString(h[:]) || out["restore-key"] != prefix {
		t.Errorf("cache key %q, restore key %q; want %q and its prefix %q", out["key"], out["restore-key"], prefix+hex.EncodeToString(h[:]), prefix)
	}
	if out["gocache"] != goEnv(t, r.env, "GOCACHE") || out["gomodcache"] != goEnv(t, r.env, "GOMODCACHE") {
		t.Errorf("cache paths %q %q, want go env GOCACHE and GOMODCACHE", out["gocache"], out["gomodcache"])
	}
}

func TestActionStepsAgainstLocalRemote(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the action test builds mastermind")
	}
	act, repoRoot := loadAction(t)

	// The pull request: a bare remote, a base commit, and a head with one task.
	top := t.TempDir()
	// Every mastermind the test and the steps run keeps its controller store here.
	t.Setenv("MASTERMIND_STATE_DIR", t.TempDir())
	remote := filepath.Join(top, "remote.git")
	git(t, top, "init", "-q", "--bare", remote)
	dev := filepath.Join(top, "dev")
	git(t, top, "clone", "-q", remote, dev)
	write(t, dev, "src/app.go", "package app\n\nfunc Greet(n string) string { return \"hello \" + n }\n")
	write(t, dev, "README.md", "# demo\n")
	git(t, dev, "add", "-A")
	git(t, dev, "commit", "-q", "-m", "base")
	git(t, dev, "branch", "-M", "main")
	git(t, dev, "push", "-q", "origin", "main")
	base := git(t, dev, "rev-parse", "HEAD")

	mm := testenv.Mastermind(t)
	mastermind := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(mm, args...)
		cmd.Dir = dir
		cmd.Env = gitEnv(dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("mastermind %v: %v\n%s", args, err, out)
		}
	}
	git(t, dev, "checkout", "-q", "-b", "feature")
	write(t, dev, ".mastermind/tasks/001-greet/spec.md", spec)
	git(t, dev, "add", "-A")
	git(t, dev, "commit", "-q", "-m", "task 001")
	mastermind(dev, "run-task", ".mastermind/tasks/001-greet/spec.md", "--pre-only")
	write(t, dev, "src/app.go", "package app\n\nfunc Greet(n string) string { return \"hi \" + n }\n")
	write(t, dev, "src/extra.go", "package app\n")
	write(t, dev, ".mastermind/tasks/001-greet/executor-report.md", report("src/app.go"))
	git(t, dev, "add", "-A")
	git(t, dev, "commit", "-q", "-m", "work")
	git(t, dev, "push", "-q", "origin", "feature")

	// actions/checkout: a fresh clone of the remote at the head, full history.
	workspace := filepath.Join(top, "workspace")
	git(t, top, "clone", "-q", "--branch", "feature", remote, workspace)

	newRunner := func(inputs map[string]string) *runner {
		r := &runner{t: t, act: act, inputs: map[string]string{}, temp: t.TempDir(), outputs: map[string]map[string]string{},
			github: map[string]string{"action_path": repoRoot, "action_ref": "v1.2.3-actiontest", "event.pull_request.base.sha": base, "event.before": ""},
			env:    gitEnv(top)}
		for k, v := range act.Inputs {
			r.inputs[k] = v.Default
		}
		for k, v := range inputs {
			r.inputs[k] = v
		}
		return r
	}
	gate := act.step(t, "gate")

	// Broken: src/extra.go changed but is not in the report. With sarif: true. The steps before
	// the gate run with the host's Go caches, where go test left every package the build needs.
	r := newRunner(map[string]string{"sarif": "true"})
	r.setup(workspace)
	checkCacheKey(t, r, repoRoot)
	// The action's ref is the version: the runner's copy of an action has no .git to stamp from.
	if !strings.Contains(r.stdout["build"], "mastermind v1.2.3-actiontest (") {
		t.Errorf("build step: mastermind version printed %q", r.stdout["build"])
	}
	code, stdout := r.run(gate, workspace)
	if code != 1 {
		t.Fatalf("gate step exited %d, want 1", code)
	}
	if !strings.Contains(stdout, "::error ") || !strings.Contains(stdout, "src/extra.go") {
		t.Errorf("no error annotation for src/extra.go:\n%s", stdout)
	}
	if !strings.Contains(r.summary, "mastermind gate --base: failed") || !strings.Contains(r.summary, "`001-greet` | ❌ broken") {
		t.Errorf("job summary:\n%s", r.summary)
	}
	out := r.outputs["gate"]
	if out["exit-code"] != "1" || out["sarif-file"] == "" {
		t.Fatalf("outputs %v", out)
	}
	if got := r.eval(act.Outputs["sarif-file"].Value); got != out["sarif-file"] {
		t.Errorf("action output sarif-file = %q", got)
	}
	sarif, err := os.ReadFile(out["sarif-file"])
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string
		Runs    []struct {
			Tool    struct{ Driver struct{ Version string } }
			Results []struct{ RuleID string }
		}
	}
	if err := json.Unmarshal(sarif, &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Results) == 0 {
		t.Fatalf("SARIF file: %v %s", err, sarif)
	}
	if v := log.Runs[0].Tool.Driver.Version; v != "1.2.3-actiontest" {
		t.Errorf("SARIF tool.driver.version %q", v)
	}

	// The report now lists every change, but src/extra.go is outside the scope: the task drifts,
	// and against the base the file is unowned (owned = in a task's scope and report,
	// trust-model.md §5), which fails even with the default fail-on broken.
	write(t, workspace, ".mastermind/tasks/001-greet/executor-report.md", report("src/app.go, src/extra.go"))
	git(t, workspace, "add", "-A")
	git(t, workspace, "commit", "-q", "-m", "fix report")
	r2 := newRunner(nil)
	r2.path = r.path
	code, stdout = r2.run(gate, workspace)
	if code != 1 || !strings.Contains(stdout, "::warning file=src/extra.go") || !strings.Contains(stdout, "gate.unowned_change") || r2.outputs["gate"]["exit-code"] != "1" {
		t.Errorf("unowned with fail-on broken: exit %d, outputs %v\n%s", code, r2.outputs["gate"], stdout)
	}
	if !strings.Contains(r2.summary, "`001-greet` | ⚠️ drift") || !strings.Contains(r2.summary, "gate.unowned_change") {
		t.Errorf("drift summary:\n%s", r2.summary)
	}
	r2b := newRunner(map[string]string{"fail-on": "drift"})
	r2b.path = r.path
	if code, stdout := r2b.run(gate, workspace); code != 1 || !strings.Contains(stdout, "--fail-on drift") {
		t.Errorf("drift with fail-on drift: exit %d\n%s", code, stdout)
	}

	// Input errors.
	r3 := newRunner(map[string]string{"fail-on": "warning"})
	r3.path = r.path
	if code, stdout := r3.run(gate, workspace); code != 2 || !strings.Contains(stdout, "input fail-on must be broken or drift") {
		t.Errorf("bad fail-on: exit %d %s", code, stdout)
	}
	r4 := newRunner(nil)
	r4.path = r.path
	r4.github["event.pull_request.base.sha"] = ""
	if code, stdout := r4.run(gate, workspace); code != 2 || !strings.Contains(stdout, "no base revision") {
		t.Errorf("no base: exit %d %s", code, stdout)
	}
}
