package scaffold

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// TestEnsureGitignore: a missing .mastermind/.gitignore is written, one without the lock pattern
// gets it appended with its content kept, one with it is left byte for byte, and a symlink is
// refused without touching its target.
func TestEnsureGitignore(t *testing.T) {
	cases := []struct {
		name, old string // old "" means no file
		want      string
	}{
		{"missing", "", gitignoreText},
		{"without the pattern", "/scratch/", "/scratch/\n" + gitignoreBlock},
		{"without the pattern, newline-terminated", "/scratch/\n", "/scratch/\n" + gitignoreBlock},
		{"with the pattern", "# mine\n  *.lock  \n/scratch/\n", "# mine\n  *.lock  \n/scratch/\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			mkdirs(t, root, ".mastermind")
			path := filepath.Join(root, ".mastermind", ".gitignore")
			if tc.old != "" {
				writeFile(t, path, tc.old)
			}
			if err := EnsureGitignore(root, nil); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	t.Run("symlink", func(t *testing.T) {
		root := t.TempDir()
		mkdirs(t, root, ".mastermind")
		target := filepath.Join(t.TempDir(), "outside")
		writeFile(t, target, "x\n")
		if err := os.Symlink(target, filepath.Join(root, ".mastermind", ".gitignore")); err != nil {
			t.Fatal(err)
		}
		err := EnsureGitignore(root, nil)
		var pe *fsx.PathError
		if !errors.As(err, &pe) || pe.Reason != fsx.ReasonSymlink || !strings.Contains(err.Error(), GitignoreRel) {
			t.Fatalf("a symlinked .gitignore: %v, want a symlink refusal naming %s", err, GitignoreRel)
		}
		if b, _ := os.ReadFile(target); string(b) != "x\n" {
			t.Fatalf("the symlink target was written: %q", b)
		}
	})
	t.Run("too large", func(t *testing.T) {
		root := t.TempDir()
		mkdirs(t, root, ".mastermind")
		path := filepath.Join(root, ".mastermind", ".gitignore")
		big := strings.Repeat("#\n", maxGitignoreBytes/2+1)
		writeFile(t, path, big)
		err := EnsureGitignore(root, nil)
		if err == nil || !strings.Contains(err.Error(), ".mastermind/.gitignore is larger than") || !strings.Contains(err.Error(), "add the line *.lock") {
			t.Fatalf("a .gitignore over the limit: %v", err)
		}
		if b, _ := os.ReadFile(path); string(b) != big {
			t.Fatal("the oversized .gitignore was changed")
		}
	})
}

// TestGitignoreCoversLocks: in a real repository, git ignores every lock file mastermind writes
// below .mastermind once CreateTask has run, and nothing else of the task folder.
func TestGitignoreCoversLocks(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	root := t.TempDir()
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root)
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := git("init", "-q"); err != nil {
		t.Fatal(out)
	}
	task, err := CreateTask(root, CreateOptions{Title: "Locks"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{task.Dir + "/state.controller.lock", ".mastermind/tasks/_lessons.md.lock", ".mastermind/dispatch/task-7.json.lock"} {
		if out, err := git("check-ignore", "-q", "--no-index", p); err != nil {
			t.Errorf("%s is not ignored: %s %v", p, out, err)
		}
	}
	for _, p := range []string{task.Spec, task.Dir + "/state.json", task.Dir + "/audit.md", ".mastermind/tasks/_lessons.md", ".mastermind/.gitignore"} {
		if _, err := git("check-ignore", "-q", "--no-index", p); err == nil {
			t.Errorf("%s is ignored", p)
		}
	}
}
