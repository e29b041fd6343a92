package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// readmeSnippets returns the fenced blocks of README.md that follow a "<!-- snippet: NAME -->"
// line, by name.
func readmeSnippets(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- snippet: ([a-z-]+) -->\n```[a-z]*\n(.*?)```\n")
	out := map[string]string{}
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		out[m[1]] = m[2]
	}
	return out
}

// readmeCommands runs each non-comment line of a sh snippet (each "mastermind ARGS") in root
// and fails unless it exits 0.
func readmeCommands(t *testing.T, root, snippet string) []invocation {
	t.Helper()
	var out []invocation
	for _, line := range strings.Split(strings.TrimSpace(snippet), "\n") {
		line, _, _ = strings.Cut(line, "#")
		args := strings.Fields(line)
		if len(args) == 0 {
			continue
		}
		if args[0] != "mastermind" {
			t.Fatalf("snippet line %q does not run mastermind", line)
		}
		for i, a := range args[1:] {
			if strings.HasPrefix(a, ".mastermind/") {
				args[i+1] = filepath.Join(root, a)
			}
		}
		res := invoke(nil, append(args[1:], "--root", root)...)
		if res.Code != 0 {
			t.Fatalf("%s exited %d\nstdout: %s\nstderr: %s", line, res.Code, res.Stdout, res.Stderr)
		}
		out = append(out, res)
	}
	return out
}

// TestReadmeIntegrationSnippets exercises every snippet of the README's "Use with Claude Code /
// Codex / MCP clients / GitHub Actions" section against a scratch repository.
func TestReadmeIntegrationSnippets(t *testing.T) {
	sn := readmeSnippets(t, filepath.Join("..", "..", "README.md"))
	for _, name := range []string{"brief", "claude-install", "claude-settings", "codex-install", "codex-hooks", "claude-mcp", "codex-mcp", "workflow"} {
		if _, ok := sn[name]; !ok {
			t.Fatalf("README.md lacks the %s snippet", name)
		}
	}
	root := scratchRepo(t)

	t.Run("brief", func(t *testing.T) {
		dir := filepath.Join(root, ".mastermind", "tasks", "001-add-a-retry-helper")
		spec, err := os.ReadFile(filepath.Join(root, ".mastermind", "tasks", "001-greet", "spec.md"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "spec.md"), spec, 0o644); err != nil {
			t.Fatal(err)
		}
		res := readmeCommands(t, root, sn["brief"])
		if !strings.Contains(string(res[0].Stdout), "brief: mastermind brief ") ||
			!strings.HasPrefix(string(res[1].Stdout), "# Executor brief: 001-add-a-retry-helper") {
			t.Errorf("pre-flight does not point at the brief, or no brief:\n%s\n%s", res[0].Stdout, res[1].Stdout)
		}
	})

	// The install commands write exactly the files the README shows.
	for _, c := range []struct{ install, file, file2 string }{
		{"claude-install", "claude-settings", ".claude/settings.json"},
		{"codex-install", "codex-hooks", ".codex/hooks.json"},
	} {
		t.Run(c.install, func(t *testing.T) {
			readmeCommands(t, root, sn[c.install])
			got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.file2)))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != sn[c.file] {
				t.Errorf("%s after %q:\n%s\nREADME shows:\n%s", c.file2, strings.TrimSpace(sn[c.install]), got, sn[c.file])
			}
			// And the hook command in it is a valid hook run command line.
			var doc struct {
				Hooks map[string][]struct {
					Hooks []struct{ Type, Command string }
				}
			}
			if err := json.Unmarshal(got, &doc); err != nil {
				t.Fatal(err)
			}
			cmdline := strings.Fields(doc.Hooks["Stop"][0].Hooks[0].Command)
			cmd, rest, err := NewRootCmd(&IOStreams{}).Find(cmdline[1:])
			if err != nil || cmd.CommandPath() != "mastermind hook run" || len(rest) == 0 {
				t.Errorf("hook command %q does not resolve to hook run: %v", cmdline, err)
			}
			// Fed the harness's input with no current task, the hook allows the stop. The
			// current task is the controller store's (the pointer only mirrors it): an empty
			// store has none.
			t.Setenv("MASTERMIND_STATE_DIR", t.TempDir())
			res := invoke(strings.NewReader(`{"hook_event_name":"Stop","cwd":"`+root+`","stop_hook_active":false}`), cmdline[1:]...)
			if res.Code != 0 || strings.TrimSpace(string(res.Stdout)) != "{}" {
				t.Errorf("%v: exit %d, %s %s", cmdline, res.Code, res.Stdout, res.Stderr)
			}
		})
	}

	// The MCP client configurations name a command line that resolves to `mastermind mcp`.
	t.Run("mcp", func(t *testing.T) {
		var cfg struct {
			McpServers map[string]struct {
				Command string
				Args    []string
			}
		}
		if err := json.Unmarshal([]byte(sn["claude-mcp"]), &cfg); err != nil {
			t.Fatal(err)
		}
		srv := cfg.McpServers["mastermind"]
		toml := sn["codex-mcp"]
		for _, want := range []string{"[mcp_servers.mastermind]", `command = "` + srv.Command + `"`, `args = ["` + strings.Join(srv.Args, `", "`) + `"]`} {
			if !strings.Contains(toml, want+"\n") {
				t.Errorf("the Codex snippet lacks %q:\n%s", want, toml)
			}
		}
		cmd, _, err := NewRootCmd(&IOStreams{}).Find(srv.Args)
		if srv.Command != "mastermind" || err != nil || cmd.CommandPath() != "mastermind mcp" {
			t.Errorf("%s %v does not resolve to mastermind mcp: %v", srv.Command, srv.Args, err)
		}
	})

	// The workflow uses the action with inputs and outputs action.yml has, and is the one
	// docs/github-actions.md shows.
	t.Run("workflow", func(t *testing.T) {
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					ID   string            `yaml:"id"`
					Uses string            `yaml:"uses"`
					If   string            `yaml:"if"`
					With map[string]string `yaml:"with"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(sn["workflow"]), &wf); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
		if err != nil {
			t.Fatal(err)
		}
		var act struct {
			Inputs  map[string]any `yaml:"inputs"`
			Outputs map[string]any `yaml:"outputs"`
		}
		if err := yaml.Unmarshal(data, &act); err != nil {
			t.Fatal(err)
		}
		var used, upload bool
		for _, st := range wf.Jobs["gate"].Steps {
			if strings.HasPrefix(st.Uses, "mastermind-controller/mastermind@") {
				used = true
				for k := range st.With {
					if _, ok := act.Inputs[k]; !ok {
						t.Errorf("the workflow passes input %s, which action.yml does not have", k)
					}
				}
			}
			if strings.HasPrefix(st.Uses, "github/codeql-action/upload-sarif@") {
				upload = true
				for _, ref := range regexp.MustCompile(`steps\.mastermind\.outputs\.([a-z-]+)`).FindAllStringSubmatch(st.If+st.With["sarif_file"], -1) {
					if _, ok := act.Outputs[ref[1]]; !ok {
						t.Errorf("the workflow reads output %s, which action.yml does not have", ref[1])
					}
				}
			}
		}
		if !used || !upload {
			t.Errorf("workflow: action used %v, SARIF uploaded %v", used, upload)
		}
		doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "github-actions.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "```yaml\n"+sn["workflow"]+"```") {
			t.Error("docs/github-actions.md shows another workflow than the README")
		}
	})
}
