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

// gitEnv isolates git (and HooksDir, which reads the same files) from the host configuration.
func gitEnv(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
	t.Setenv("GIT_AUTHOR_NAME", "T")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "T")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	return home
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func newRepo(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git(t, root, "init", "-q", "-b", "main")
	git(t, root, "commit", "-q", "--allow-empty", "-m", "init")
	return root
}

// TestHooksDirMatchesGit compares HooksDir with `git rev-parse --git-path hooks` (the oracle) for
// the default layout, core.hooksPath in its relative, absolute and ~/ forms, global
// configuration, an include.path file, and a linked worktree.
func TestHooksDirMatchesGit(t *testing.T) {
	home := gitEnv(t)
	cases := []struct {
		name   string
		setup  func(t *testing.T, root string) string // returns the work tree to ask about
		source string
	}{
		{"default", func(t *testing.T, root string) string { return root }, "default"},
		{"relative hooksPath", func(t *testing.T, root string) string {
			git(t, root, "config", "core.hooksPath", ".githooks")
			return root
		}, "core.hooksPath"},
		{"absolute hooksPath", func(t *testing.T, root string) string {
			git(t, root, "config", "core.hooksPath", filepath.Join(home, "abs-hooks"))
			return root
		}, "core.hooksPath"},
		{"home hooksPath", func(t *testing.T, root string) string {
			git(t, root, "config", "core.hooksPath", "~/my-hooks")
			return root
		}, "core.hooksPath"},
		{"global hooksPath", func(t *testing.T, root string) string {
			git(t, root, "config", "--global", "core.hooksPath", "~/global-hooks")
			return root
		}, "core.hooksPath"},
		{"local overrides global", func(t *testing.T, root string) string {
			git(t, root, "config", "--global", "core.hooksPath", "~/global-hooks")
			git(t, root, "config", "core.hooksPath", "local-hooks")
			return root
		}, "core.hooksPath"},
		{"include.path", func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(home, "extra.gitconfig"), "[core]\n\thooksPath = included-hooks\n")
			git(t, root, "config", "include.path", filepath.Join(home, "extra.gitconfig"))
			return root
		}, "core.hooksPath"},
		{"linked worktree", func(t *testing.T, root string) string {
			wt := filepath.Join(filepath.Dir(root), filepath.Base(root)+"-wt")
			git(t, root, "worktree", "add", "-q", "-b", "side", wt)
			t.Cleanup(func() { os.RemoveAll(wt) })
			return wt
		}, "default"},
		{"linked worktree with hooksPath", func(t *testing.T, root string) string {
			wt := filepath.Join(filepath.Dir(root), filepath.Base(root)+"-wt2")
			git(t, root, "worktree", "add", "-q", "-b", "side2", wt)
			t.Cleanup(func() { os.RemoveAll(wt) })
			git(t, root, "config", "core.hooksPath", ".githooks")
			return wt
		}, "core.hooksPath"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(filepath.Join(home, ".gitconfig"))
			root := newRepo(t)
			wt := tc.setup(t, root)
			want := git(t, wt, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
			loc, err := HooksDir(wt)
			if err != nil {
				t.Fatal(err)
			}
			if loc.Dir != filepath.Clean(want) || loc.Source != tc.source {
				t.Errorf("HooksDir = %q (%s), git says %q (want source %s)", loc.Dir, loc.Source, want, tc.source)
			}
		})
	}
}

func TestHooksDirIncludeIfIsReported(t *testing.T) {
	home := gitEnv(t)
	root := newRepo(t)
	writeFile(t, filepath.Join(home, ".gitconfig"), "[includeIf \"gitdir:~/work/\"]\n\tpath = ~/work.gitconfig\n")
	loc, err := HooksDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(loc.Unsure) != 1 || loc.Unsure[0] != filepath.Join(home, ".gitconfig") {
		t.Errorf("Unsure = %v", loc.Unsure)
	}
}

func TestHooksDirNotARepo(t *testing.T) {
	gitEnv(t)
	if _, err := HooksDir(t.TempDir()); err == nil {
		t.Fatal("no error for a directory without .git")
	}
}

func TestInstallHook(t *testing.T) {
	gitEnv(t)
	root := newRepo(t)
	hook := filepath.Join(root, ".git", "hooks", "pre-push")

	res, err := InstallHook(root, HookOptions{FailOn: "drift"})
	if err != nil || res.Action != HookInstalled || res.Path != hook {
		t.Fatalf("fresh install: %+v, %v", res, err)
	}
	checkHook(t, hook, "exec \"$mm\" gate --fail-on drift\n")

	res, err = InstallHook(root, HookOptions{FailOn: "drift"})
	if err != nil || res.Action != HookUnchanged {
		t.Fatalf("second install: %+v, %v", res, err)
	}

	res, err = InstallHook(root, HookOptions{FailOn: "broken"})
	if err != nil || res.Action != HookUpdated {
		t.Fatalf("reinstall with --fail-on broken: %+v, %v", res, err)
	}
	checkHook(t, hook, "exec \"$mm\" gate\n")

	// A hook of ours that lost its executable bit is rewritten executable.
	must(t, os.Chmod(hook, 0o644))
	if res, err = InstallHook(root, HookOptions{FailOn: "broken"}); err != nil || res.Action != HookUpdated {
		t.Fatalf("non-executable hook of ours: %+v, %v", res, err)
	}
	checkHook(t, hook, "exec \"$mm\" gate\n")
}

func TestInstallHookForeign(t *testing.T) {
	gitEnv(t)
	root := newRepo(t)
	hook := filepath.Join(root, ".git", "hooks", "pre-push")
	foreign := "#!/bin/sh\necho custom\n"
	writeFile(t, hook, foreign)

	_, err := InstallHook(root, HookOptions{FailOn: "drift"})
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "--force") {
		t.Fatalf("foreign hook: err = %v, want a RefusedError mentioning --force", err)
	}
	if b, _ := os.ReadFile(hook); string(b) != foreign {
		t.Fatalf("foreign hook changed: %q", b)
	}
	res, err := InstallHook(root, HookOptions{FailOn: "drift", Force: true})
	if err != nil || res.Action != HookReplaced {
		t.Fatalf("--force: %+v, %v", res, err)
	}
	checkHook(t, hook, "--fail-on drift\n") // 0644 foreign file replaced by a 0755 hook
}

func TestInstallHookNeverFollowsLinks(t *testing.T) {
	gitEnv(t)
	root := newRepo(t)
	target := filepath.Join(t.TempDir(), "target")
	writeFile(t, target, "precious\n")
	hook := filepath.Join(root, ".git", "hooks", "pre-push")
	must(t, os.Symlink(target, hook))
	for _, force := range []bool{false, true} {
		_, err := InstallHook(root, HookOptions{FailOn: "drift", Force: force})
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(re.Reason, "symbolic link") {
			t.Fatalf("force=%v: err = %v, want a symlink refusal", force, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "precious\n" {
		t.Fatalf("link target changed: %q", b)
	}

	// A symlinked hooks directory inside the git directory is refused too.
	root2 := newRepo(t)
	elsewhere := t.TempDir()
	must(t, os.RemoveAll(filepath.Join(root2, ".git", "hooks")))
	must(t, os.Symlink(elsewhere, filepath.Join(root2, ".git", "hooks")))
	_, err := InstallHook(root2, HookOptions{FailOn: "drift"})
	if r := fsx.ReasonOf(err); r != fsx.ReasonSymlink && r != fsx.ReasonSymlinkedAncestor {
		t.Fatalf("symlinked hooks dir: err = %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("wrote through the symlinked hooks dir: %v", entries)
	}
}

func TestInstallHookCreatesHooksPath(t *testing.T) {
	gitEnv(t)
	root := newRepo(t)
	git(t, root, "config", "core.hooksPath", ".githooks/nested")
	res, err := InstallHook(root, HookOptions{FailOn: "drift"})
	if err != nil || res.Location.Source != "core.hooksPath" {
		t.Fatalf("%+v, %v", res, err)
	}
	checkHook(t, filepath.Join(root, ".githooks", "nested", "pre-push"), "--fail-on drift\n")
}

func checkHook(t *testing.T, path, suffix string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o755 || !fi.Mode().IsRegular() {
		t.Errorf("%s: mode %v, want regular 0755", path, fi.Mode())
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), "#!/bin/sh\n"+HookMarker+" v1\n") || !strings.HasSuffix(string(b), suffix) {
		t.Errorf("%s: unexpected text:\n%s", path, b)
	}
}
