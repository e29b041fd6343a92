package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"
)

// workflowDoc is the documented GitHub Actions workflow that cmdGHWorkflow runs.
const workflowDoc = "../../docs/github-actions.md"

type ghWorkflow struct {
	Jobs map[string]struct {
		Env   map[string]string `yaml:"env"`
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			With map[string]any    `yaml:"with"`
			Run  string            `yaml:"run"`
			If   string            `yaml:"if"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// ghExpr is a ${{ ... }} expression of the workflow.
var ghExpr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// cmdGHWorkflow implements the script command `ghworkflow ORIGIN BASE_SHA HEAD_SHA`: it runs the
// "gate" job of the plain-steps yaml block of docs/github-actions.md the way a pull_request event would,
// without network. actions/checkout is a full clone of the bare repository ORIGIN (the workflow
// must ask for fetch-depth 0) checked out at its ref (HEAD_SHA without one); actions/setup-go and the `go install` of
// mastermind are skipped (the mastermind under test is on PATH); every `run:` step runs with
// bash -e in the clone, with CI=true, GITHUB_ACTIONS=true, GITHUB_STEP_SUMMARY=$WORK/summary.md
// and the job and step env, whose expressions are the pull_request event's base and head SHAs.
// Steps after a failure run only with if: always(). It prints one line per step and the
// outputs; the command fails when the job fails (use ! for an expected failure).
func cmdGHWorkflow(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: ghworkflow ORIGIN BASE_SHA HEAD_SHA")
	}
	origin, base, head := ts.MkAbs(args[0]), strings.TrimSpace(ts.ReadFile(args[1])), strings.TrimSpace(ts.ReadFile(args[2]))
	doc, err := os.ReadFile(workflowDoc)
	ts.Check(err)
	// The plain-steps workflow: the first yaml block that runs the gate itself (the one before
	// it uses the composite action, whose steps scripts/actiontest runs).
	var block string
	for rest := string(doc); block == ""; {
		var ok, ok2 bool
		_, rest, ok = strings.Cut(rest, "```yaml\n")
		var b string
		b, rest, ok2 = strings.Cut(rest, "```")
		if !ok || !ok2 {
			ts.Fatalf("%s: no yaml block runs mastermind gate --base", workflowDoc)
		}
		if strings.Contains(b, "run: mastermind gate --base") {
			block = b
		}
	}
	var wf ghWorkflow
	dec := yaml.NewDecoder(strings.NewReader(block))
	dec.KnownFields(false)
	ts.Check(dec.Decode(&wf))
	job, ok := wf.Jobs["gate"]
	if !ok {
		ts.Fatalf("%s: no gate job", workflowDoc)
	}
	event := map[string]string{
		"github.event.pull_request.base.sha || github.event.before": base,
		"github.event.pull_request.head.sha || github.sha":          head,
	}
	expand := func(s string) string {
		return ghExpr.ReplaceAllStringFunc(s, func(m string) string {
			v, ok := event[ghExpr.FindStringSubmatch(m)[1]]
			if !ok {
				ts.Fatalf("%s: expression %s is not simulated", workflowDoc, m)
			}
			return v
		})
	}
	ws := ts.MkAbs("ci-workspace")
	summary := ts.MkAbs("summary.md")
	env := []string{"CI=true", "GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + summary}
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM", "NO_COLOR"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	for k, v := range job.Env {
		env = append(env, k+"="+expand(v))
	}
	run := func(dir string, extra []string, name string, argv ...string) error {
		cmd := exec.Command(name, argv...)
		cmd.Dir, cmd.Env = dir, append(append([]string{}, env...), extra...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		fmt.Fprint(ts.Stdout(), out.String())
		return err
	}
	failed := false
	for i, st := range job.Steps {
		name := st.Name
		if name == "" {
			name = st.Uses
		}
		if failed && st.If != "always()" {
			fmt.Fprintf(ts.Stdout(), "step %d %s: skipped\n", i, name)
			continue
		}
		var err error
		switch {
		case strings.HasPrefix(st.Uses, "actions/checkout@"):
			if fmt.Sprint(st.With["fetch-depth"]) != "0" {
				ts.Fatalf("%s: checkout without fetch-depth: 0", workflowDoc)
			}
			ref := head
			if r, ok := st.With["ref"].(string); ok {
				ref = expand(r)
			}
			if err = run(ts.MkAbs("."), nil, "git", "clone", "-q", origin, ws); err == nil {
				err = run(ws, nil, "git", "checkout", "-q", "--detach", ref)
			}
		case strings.HasPrefix(st.Uses, "actions/setup-go@"),
			strings.HasPrefix(st.Run, "go install github.com/mastermind-controller/mastermind/cmd/mastermind@"):
			fmt.Fprintf(ts.Stdout(), "step %d %s: skipped (the mastermind under test is on PATH)\n", i, name)
			continue
		case st.Uses != "":
			ts.Fatalf("%s: step %q uses %s, which is not simulated", workflowDoc, name, st.Uses)
		default:
			var extra []string
			for k, v := range st.Env {
				extra = append(extra, k+"="+expand(v))
			}
			err = run(ws, extra, "bash", "-e", "-c", st.Run)
		}
		if err != nil {
			failed = true
			fmt.Fprintf(ts.Stdout(), "step %d %s: failed (%v)\n", i, name, err)
			continue
		}
		fmt.Fprintf(ts.Stdout(), "step %d %s: ok\n", i, name)
	}
	if failed != neg {
		ts.Fatalf("job failed = %v", failed)
	}
}
