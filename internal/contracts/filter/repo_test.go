package filter

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// gitRepo builds a repository with two commits in t.TempDir() and returns its root and the
// commits' full OIDs.
func gitRepo(t *testing.T) (root, first, second string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root = t.TempDir()
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(rel, data string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("cmd/server/main.go", strings.Repeat("// line\n", 120))
	write("src/noeol.txt", "a\nb\nc")
	write("src/empty.txt", "")
	git("add", ".")
	git("commit", "-q", "-m", "test: add failing ThemeToggle test")
	first = git("rev-parse", "HEAD")
	write("src/b.go", "package b\n")
	git("add", ".")
	git("commit", "-q", "-m", "feat: implement ThemeToggle  \n\nbody")
	second = git("rev-parse", "HEAD")
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte(strings.Repeat("x\n", 500)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "linkdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "cmd/server/main.go"), filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	return root, first, second
}

func TestRepoChecks(t *testing.T) {
	root, first, second := gitRepo(t)
	repo, err := gitscope.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	s := mustSchema(t, `{"type": "object", "properties": {
		"refs": {"type": "array", "items": {"type": "string", "format": "path-line"}},
		"files": {"type": "array", "items": {"type": "string", "format": "repo-path"}},
		"shas": {"type": "array", "items": {"type": "string", "format": "git-sha"}},
		"commits": {"type": "array", "items": {"type": "string", "format": "git-commit-line"}},
		"head": {"type": "object", "properties": {"sha": {"type": "string", "format": "git-sha"}, "subject": {"type": "string"}}}
	}}`)
	d := &Declaration{Mode: ModeJSONSchema, Schema: s}
	check := func(raw string) []string {
		t.Helper()
		res, err := Check(context.Background(), []byte(raw), d, repo)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range res.Items {
			out = append(out, it.String()+" ["+it.Rule+"]")
		}
		return out
	}
	ok := `{"refs": ["cmd/server/main.go:120", "cmd/server/main.go:1-120", "src/noeol.txt:3", "./src/b.go:1"],
		"files": ["src/empty.txt", "src/b.go"],
		"shas": ["` + first[:7] + `", "` + second + `"],
		"commits": ["` + first[:7] + ` — test: add failing ThemeToggle test", "` + second[:12] + ` — feat: implement ThemeToggle  "],
		"head": {"sha": "` + second[:7] + `", "subject": "feat: implement ThemeToggle"}}`
	if got := check(ok); got != nil {
		t.Fatalf("valid references rejected: %q", got)
	}
	bad := `{"refs": ["cmd/server/main.go:9999", "src/noeol.txt:2-4", "src/empty.txt:1", "missing.go:1", "linkdir/secret.go:3", "link.go:1", "src:1"],
		"files": ["nope.txt", "src"],
		"shas": ["abc1234", "0000000"],
		"commits": ["` + first[:7] + ` — test: add passing test"],
		"head": {"sha": "` + second[:7] + `", "subject": "feat: something else"}}`
	short1, short2 := first[:7], second[:7]
	want := []string{
		`refs[0] (required, string) — line 9999 is beyond the end of the file (120 lines) [filter.repo.line_range]`,
		`refs[1] (required, string) — line 4 is beyond the end of the file (3 lines) [filter.repo.line_range]`,
		`refs[2] (required, string) — line 1 is beyond the end of the file (0 lines) [filter.repo.line_range]`,
		`refs[3] (required, string) — does not exist in the repository [filter.repo.path_missing]`,
		`refs[4] (required, string) — does not exist in the repository [filter.repo.path_missing]`,
		`refs[5] (required, string) — does not exist in the repository [filter.repo.path_missing]`,
		`refs[6] (required, string) — does not exist in the repository [filter.repo.path_missing]`,
		`files[0] (required, string) — does not exist in the repository [filter.repo.path_missing]`,
		`files[1] (required, string) — does not exist in the repository [filter.repo.path_missing]`,
		`shas[0] (required, string) — does not resolve to a commit in this repository [filter.repo.sha_unresolved]`,
		`shas[1] (required, string) — does not resolve to a commit in this repository [filter.repo.sha_unresolved]`,
		`commits[0] (required, string) — subject does not match: commit ` + short1 + ` has "test: add failing ThemeToggle test" [filter.repo.subject_mismatch]`,
		`head.subject (optional, string) — subject does not match: commit ` + short2 + ` has "feat: implement ThemeToggle" [filter.repo.subject_mismatch]`,
	}
	if diff := cmp.Diff(want, check(bad)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	// syntactically invalid values get their format item only, never a repository item
	got := check(`{"refs": ["../outside.go:1"], "shas": ["ABCDEF1"]}`)
	if len(got) != 2 || !strings.Contains(got[0], "not a path:line reference") || !strings.Contains(got[1], "not a commit SHA") {
		t.Fatalf("%q", got)
	}
}

func TestCountLines(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"a": "", "b": "x", "c": "x\n", "d": "x\ny", "e": "\n\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]int{"a": 0, "b": 1, "c": 1, "d": 2, "e": 2, "missing": -1}
	for name, n := range want {
		if got, err := countLines(dir, name); err != nil || got != n {
			t.Errorf("countLines(%s) = %d, %v; want %d", name, got, err, n)
		}
	}
}
