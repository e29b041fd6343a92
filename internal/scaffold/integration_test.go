package scaffold

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// preCommitHook is one entry of .pre-commit-hooks.yaml (pre-commit's manifest format).
type preCommitHook struct {
	ID            string   `yaml:"id"`
	Name          string   `yaml:"name"`
	Description   string   `yaml:"description"`
	Entry         string   `yaml:"entry"`
	Language      string   `yaml:"language"`
	PassFilenames *bool    `yaml:"pass_filenames"`
	AlwaysRun     *bool    `yaml:"always_run"`
	Stages        []string `yaml:"stages"`
	MinVersion    string   `yaml:"minimum_pre_commit_version"`
}

// TestPreCommitManifest checks the repository's .pre-commit-hooks.yaml against conventions.md §6:
// a golang and a system variant, no file names, always run, pre-push and manual stages, running
// the same gate command as the git hook that InstallHook writes.
func TestPreCommitManifest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []preCommitHook
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&hooks); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	var langs []string
	ids := map[string]bool{}
	for _, h := range hooks {
		if h.ID == "" || h.Name == "" || h.Description == "" || ids[h.ID] {
			t.Errorf("hook %+v: id, name and description are required and ids unique", h)
		}
		ids[h.ID] = true
		langs = append(langs, h.Language)
		if h.PassFilenames == nil || *h.PassFilenames || h.AlwaysRun == nil || !*h.AlwaysRun {
			t.Errorf("%s: want pass_filenames: false and always_run: true", h.ID)
		}
		if !slices.Equal(h.Stages, []string{"pre-push", "manual"}) {
			t.Errorf("%s: stages = %v, want [pre-push manual]", h.ID, h.Stages)
		}
		if h.MinVersion == "" {
			t.Errorf("%s: the pre-push stage name needs minimum_pre_commit_version 3.2.0", h.ID)
		}
		// The same gate as the git hook: against the pushed range (pre-commit's
		// PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF), with the same --fail-on.
		for _, want := range []string{`mastermind gate --base "${PRE_COMMIT_FROM_REF:-origin/HEAD}" --head "${PRE_COMMIT_TO_REF:-HEAD}" --fail-on drift`} {
			if !strings.Contains(h.Entry, want) || !strings.Contains(string(HookScript("drift")), `--head "$local_sha" --fail-on drift`) {
				t.Errorf("%s: entry %q differs from the gate command of the git hook", h.ID, h.Entry)
			}
		}
	}
	slices.Sort(langs)
	if !slices.Equal(langs, []string{"golang", "system"}) {
		t.Errorf("languages = %v, want one golang and one system hook", langs)
	}
}
