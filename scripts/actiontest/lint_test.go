package actiontest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/testenv"
	"go.yaml.in/yaml/v3"
)

// actionlintVersion is the actionlint release the action and the documented workflows are
// linted with (built from the Go module proxy).
const actionlintVersion = "v1.7.12"

var actionRef = regexp.MustCompile(`mastermind-controller/mastermind@\S+`)

// TestActionLint runs the real actionlint on a scratch repository holding action.yml at its root,
// every workflow of docs/github-actions.md (the action used as `./`), and one reusable workflow
// whose job is the composite action's own steps, because actionlint reads an action's metadata
// only through a workflow that uses it and does not check composite steps. With shellcheck on
// PATH actionlint also checks each step's bash. Slow: it builds actionlint.
func TestActionLint(t *testing.T) {
	testenv.Full(t, "builds actionlint "+actionlintVersion)
	act, repoRoot := loadAction(t)
	bin := t.TempDir()
	install := exec.Command("go", "install", "github.com/rhysd/actionlint/cmd/actionlint@"+actionlintVersion)
	install.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install actionlint@%s: %v\n%s", actionlintVersion, err, out)
	}

	proj := t.TempDir()
	git(t, proj, "init", "-q")
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, proj, "action.yml", string(data))
	workflows := []string{}
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "github-actions.md"))
	if err != nil {
		t.Fatal(err)
	}
	for i, block := range strings.Split(string(doc), "```yaml\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if !strings.Contains(block, "\njobs:") {
			continue
		}
		name := filepath.Join(".github", "workflows", fmt.Sprintf("doc-%d.yml", i))
		write(t, proj, name, actionRef.ReplaceAllString(block, "./"))
		workflows = append(workflows, name)
	}
	if len(workflows) < 2 {
		t.Fatalf("docs/github-actions.md: %d workflows, want the action's and the plain-steps one", len(workflows))
	}
	write(t, proj, ".github/workflows/action-steps.yml", stepsWorkflow(t, data, act))
	workflows = append(workflows, ".github/workflows/action-steps.yml")

	cmd := exec.Command(filepath.Join(bin, "actionlint"), append([]string{"-no-color"}, workflows...)...)
	cmd.Dir = proj
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	_, shellcheck := exec.LookPath("shellcheck")
	t.Logf("actionlint %s (shellcheck on PATH: %v) on %v:\n%s%s", actionlintVersion, shellcheck == nil, workflows, stdout.String(), stderr.String())
	if err != nil {
		t.Errorf("actionlint: %v\n%s%s", err, stdout.String(), stderr.String())
	}
}

// stepsWorkflow is a reusable workflow whose inputs are the action's and whose one job runs the
// action's steps as they are written.
func stepsWorkflow(t *testing.T, data []byte, act action) string {
	t.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	var steps *yaml.Node
	runs := lookup(root.Content[0], "runs")
	if runs != nil {
		steps = lookup(runs, "steps")
	}
	if steps == nil {
		t.Fatal("action.yml: no runs.steps")
	}
	inputs := map[string]map[string]string{}
	for name, in := range act.Inputs {
		inputs[name] = map[string]string{"type": "string", "default": in.Default}
	}
	wf := map[string]any{
		"name": "action steps",
		"on":   map[string]any{"workflow_call": map[string]any{"inputs": inputs}},
		"jobs": map[string]any{"steps": map[string]any{"runs-on": "ubuntu-latest", "steps": steps}},
	}
	out, err := yaml.Marshal(wf)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
