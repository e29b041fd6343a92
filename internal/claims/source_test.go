package claims

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo builds a real repository in a temp dir and returns RootSource over it, with the baseline
// read by `git cat-file` and the listing by `git ls-files`, as gitscope does.
func gitRepo(t *testing.T) (string, func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("init", "-q", "-b", "main")
	return dir, run
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRootSourceGitRepository(t *testing.T) {
	dir, git := gitRepo(t)
	write(t, dir, "go.mod", "module example.com/m\n\ngo 1.22\n")
	write(t, dir, "old/util.go", "package util\n\nfunc Old() int { return 1 }\n")
	write(t, dir, "svc/svc.go", "package svc\n\nfunc Serve() {}\n")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	base := strings.TrimSpace(git("rev-parse", "HEAD"))

	// Rename old/util.go to util/util.go (a deletion plus an addition), edit Serve to call Old,
	// add an untracked file, a symlink and a file under a symlinked directory.
	if err := os.MkdirAll(filepath.Join(dir, "util"), 0o755); err != nil {
		t.Fatal(err)
	}
	git("mv", "old/util.go", "util/util.go")
	write(t, dir, "svc/svc.go", "package svc\n\nimport \"example.com/m/util\"\n\nfunc Serve() { util.Old() }\n\nfunc Extra() {}\n")
	write(t, dir, "scratch.go", "package m\n\nfunc Scratch() {}\n")
	if err := os.Symlink("svc/svc.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("svc", filepath.Join(dir, "svclink")); err != nil {
		t.Fatal(err)
	}
	changed := []ChangedFile{{"link.go", StatusUntracked}, {"old/util.go", StatusDeleted}, {"scratch.go", StatusUntracked},
		{"svc/svc.go", StatusModified}, {"svclink", StatusUntracked}, {"util/util.go", StatusAdded}}

	src := RootSource{
		Root: dir,
		Baseline: func(p string) ([]byte, bool, error) {
			cmd := exec.Command("git", "cat-file", "blob", base+":"+p)
			cmd.Dir = dir
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil {
				return nil, false, nil // absent at the baseline
			}
			return out.Bytes(), true, nil
		},
		List: func() ([]string, error) {
			out := git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
			return strings.Split(strings.TrimSuffix(out, "\x00"), "\x00"), nil
		},
	}.Source()
	claims := []Claim{
		fa("Old"),                          // moved with its file: counted as added
		fa("Serve"),                        // edited only
		fa("svc.Extra", "file=svc/svc.go"), // added to a modified file
		fa("Scratch"),                      // untracked file
		ig("Serve", "util.Old"),            // cross-package call resolved through go.mod
		fa("Serve", "file=link.go"),        // symlink: never followed
		fa("Serve", "file=svclink/svc.go"), // symlinked ancestor
		fa("Serve", "file=svc"),            // a directory: unavailable, whatever its extension
	}
	for i := range claims {
		claims[i].Index = i
	}
	want := []string{
		"verified added_declaration util/util.go:3 " + base,
		"failed claimed_symbol_not_added: claimed function Serve already exists at the baseline; it was not added by this task",
		"verified added_declaration svc/svc.go:7 " + base,
		"verified added_declaration scratch.go:3 " + base,
		"verified compatible_call_candidate svc/svc.go:5 -> util/util.go:3 import",
		"unresolved current_file_unavailable",
		"unresolved current_file_unavailable",
		"unresolved current_file_unavailable",
	}
	out := verifyAll(t, context.Background(), claims, changed, src, base)
	for i, c := range out {
		checkShape(t, c)
		if got := outcome(c); got != want[i] {
			t.Errorf("claim %d: got %s\nwant %s", i, got, want[i])
		}
	}
	// A missing Baseline function is a read failure, not a panic.
	out = verifyAll(t, context.Background(), []Claim{fa("Serve")}, changed, RootSource{Root: dir}.Source(), base)
	if got := outcome(out[0]); got != "unresolved baseline_unavailable" {
		t.Errorf("no baseline function: %s", got)
	}
}
