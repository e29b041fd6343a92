package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The repository every scenario runs in: two approved tasks (001-greet reaches a held audit,
// 002-broken has no executor report), a forge run and a filter brief.
const (
	taskHeld   = ".mastermind/tasks/001-greet"
	taskBroken = ".mastermind/tasks/002-broken"
	forgeRun   = ".claude/forge-runs/run1"
	dispatchID = "t1"
)

const specText = `---
id: '%s'
touches:
  - file: src/app.go
creates:
  - src/helper.go
---
# Greeting helper %s

## Goals

Move the greeting prefix into a helper.

## Alternatives Considered

Keep it inline.

## Tests Plan

Run the package tests.

## Documentation Plan

None.

## Observability Plan

None.

## Performance Considerations

None.
`

const reportText = "# Report\n\n<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\n" +
	"spec: .mastermind/tasks/001-greet/spec.md\nstatus: complete\nphases:\n  - id: plan-1\n    status: done\n" +
	"files_modified:\n  - src/app.go\n  - src/helper.go\nclaims: []\ndefects: []\nverifications: []\n```\n" +
	"<!-- mastermind:report-end -->\n"

const forgeText = "```forge-report\n" + `{"status":"completed","work_package":"WP-1","files_changed":["a.go"],` +
	`"evidence":["go test ok"],"tests_run":"go test ./...","next_action":"none","result_caveat":"none"}` + "\n```\n"

const briefText = "## OUTPUT\n\n```json-schema\n" +
	`{"type": "object", "required": ["answer"], "properties": {"answer": {"type": "string"}}}` + "\n```\n"

// setupRepo builds the scenario repository in dir with bin (the mastermind binary, run with
// extra added to its environment) and returns the environment the runs use.
func setupRepo(dir, bin string, extra []string) ([]string, error) {
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir+"/.home", "GIT_AUTHOR_NAME=F",
		"GIT_AUTHOR_EMAIL=f@example.com", "GIT_COMMITTER_NAME=F", "GIT_COMMITTER_EMAIL=f@example.com", "NO_COLOR=1")
	env = append(env, extra...)
	// The controller store of the loop, beside its scratch repository (never inside a work
	// tree), checked like the mirrors (takeSnapshot).
	env = append(env, "MASTERMIND_STATE_DIR="+storeDir(dir))
	files := map[string]string{
		"src/app.go":                 "package app\n\nfunc Greet(n string) string { return \"hello \" + n }\n",
		taskHeld + "/spec.md":        fmt.Sprintf(specText, "001", "001"),
		taskBroken + "/spec.md":      fmt.Sprintf(specText, "002", "002"),
		"in/report.md":               forgeText,
		"in/brief.md":                briefText,
		"in/bad.txt":                 "The answer is forty-two.\n",
		"in/good.txt":                "```json\n{\"answer\": \"42\"}\n```\n",
		".gitignore":                 "/.home/\n/in/\n",
		".home/.config/git/.gitkeep": "",
	}
	for rel, text := range files {
		if err := writeFile(filepath.Join(dir, rel), text); err != nil {
			return nil, err
		}
	}
	steps := [][]string{
		{"git", "init", "-q"}, {"git", "add", "-A"}, {"git", "commit", "-q", "-m", "initial"},
		{bin, "run-task", taskHeld + "/spec.md", "--pre-only"},
		{bin, "run-task", taskBroken + "/spec.md", "--pre-only"},
	}
	for _, s := range steps {
		cmd := exec.Command(s[0], s[1:]...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s: %v\n%s", strings.Join(s, " "), err, out)
		}
	}
	if err := writeFile(filepath.Join(dir, "src/app.go"), "package app\n\nfunc Greet(n string) string { return Prefix() + n }\n"); err != nil {
		return nil, err
	}
	if err := helperVersion(dir, 0); err != nil {
		return nil, err
	}
	return env, writeFile(filepath.Join(dir, taskHeld, "executor-report.md"), reportText)
}

// helperVersion writes version n of src/helper.go: each version gives the held task another
// history snapshot, so its next post-flight archives the review and writes every artifact anew.
func helperVersion(dir string, n int) error {
	return writeFile(filepath.Join(dir, "src/helper.go"),
		fmt.Sprintf("package app\n\n// version %d\nfunc Prefix() string { return \"hello \" }\n", n))
}

func writeFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// storeDir is the controller store of the loop whose repository is dir: a sibling directory.
func storeDir(dir string) string { return filepath.Clean(dir) + ".state" }
