package forge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestFoldAgentLikeTheForgeWriter runs testdata/agent-fold/cases.json (a registry and agent files
// per case) and compares FoldAgent with expected.json, the names the forge writer's
// canonicalAgent gave for the same files and inputs (see testdata/agent-fold/README.md).
func TestFoldAgentLikeTheForgeWriter(t *testing.T) {
	var cases []struct {
		Name     string            `json:"name"`
		Registry *string           `json:"registry"`
		Agents   map[string]string `json:"agents"`
		Inputs   []string          `json:"inputs"`
	}
	var expected []struct {
		Name   string            `json:"name"`
		Folded map[string]string `json:"folded"`
	}
	for file, v := range map[string]any{"cases.json": &cases, "expected.json": &expected} {
		data, err := os.ReadFile(filepath.Join("testdata", "agent-fold", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatal(err)
		}
	}
	if len(cases) != len(expected) {
		t.Fatalf("%d cases, %d expectations", len(cases), len(expected))
	}
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			root := t.TempDir()
			if c.Registry != nil {
				writeFile(t, filepath.Join(root, filepath.FromSlash(AgentRegistryPath)), *c.Registry)
			}
			for f, text := range c.Agents {
				writeFile(t, filepath.Join(root, filepath.FromSlash(AgentsDir), f), text)
			}
			for _, in := range c.Inputs {
				want, ok := expected[i].Folded[in]
				if !ok {
					t.Fatalf("no expectation for %q", in)
				}
				if got := FoldAgent(root, in); got != want {
					t.Errorf("FoldAgent(%q) = %q, the forge writer writes %q", in, got, want)
				}
			}
		})
	}
}

// TestFoldAgentIsWrittenByIngest: the folded name is the one in both events.
func TestFoldAgentIsWrittenByIngest(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".claude", "agents", "build-boss.md"), "---\ndescription: builds\n---\n")
	ing, err := Ingest(root, "run-1", "Build Boss", validReport(t, `"x"`), fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ing.Lines {
		v, _ := ParseJSON(l)
		if a, _ := v.(*Object).Get("agent"); a != "build-boss" {
			t.Fatalf("agent %v in %s", a, l)
		}
	}
}

// TestFoldAgentIgnoresSymlinks: a linked agents directory gives no fold, a linked agent file
// counts by its stem (the writer would follow both).
func TestFoldAgentIgnoresSymlinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(outside, "x.md"), "---\nname: Outside Boss\n---\n")
	writeFile(t, filepath.Join(root, ".claude", "agents", "real.md"), "---\nname: Real Boss\n---\n")
	if err := os.Symlink(filepath.Join(outside, "x.md"), filepath.Join(root, ".claude", "agents", "linked.md")); err != nil {
		t.Skip(err)
	}
	if got := FoldAgent(root, "LINKED"); got != "linked" {
		t.Errorf("linked file: %q", got)
	}
	if got := FoldAgent(root, "outside boss"); got != "outside boss" {
		t.Errorf("linked file read: %q", got)
	}
	root2 := t.TempDir()
	os.MkdirAll(filepath.Join(root2, ".claude"), 0o755)
	if err := os.Symlink(filepath.Join(root, ".claude", "agents"), filepath.Join(root2, ".claude", "agents")); err != nil {
		t.Fatal(err)
	}
	if got := FoldAgent(root2, "real boss"); got != "real boss" {
		t.Errorf("linked directory: %q", got)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
