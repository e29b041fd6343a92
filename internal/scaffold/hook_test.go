package scaffold

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// gitEnv isolates git (the test's own commands and gitscope's) from the host configuration. The
// process environment is set because gitscope hands HOME, XDG_CONFIG_HOME and GIT_CONFIG_* on.
func gitEnv(t *testing.T) string {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"} {
		unsetenv(t, k)
	}
	t.Setenv("GIT_AUTHOR_NAME", "T")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "T")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	return home
}

// unsetenv unsets k for the test; t.Setenv restores the old value afterwards.
func unsetenv(t *testing.T, k string) {
	t.Helper()
	t.Setenv(k, "")
	os.Unsetenv(k)
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

func openRepo(t *testing.T, root string) *gitscope.Repo {
	t.Helper()
	repo, err := gitscope.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func install(t *testing.T, root string, o HookOptions) (HookResult, error) {
	t.Helper()
	return InstallHook(context.Background(), openRepo(t, root), o)
}

// gitHooksDir is the oracle: `git rev-parse --git-path hooks` run by the test in wt, made
// absolute from wt (git answers relative to the directory it runs in).
func gitHooksDir(t *testing.T, wt string) string {
	t.Helper()
	p := git(t, wt, "rev-parse", "--git-path", "hooks")
	if !filepath.IsAbs(p) {
		p = filepath.Join(wt, p)
	}
	return filepath.Clean(p)
}

// TestHooksDirMatchesGit compares HooksDir with `git rev-parse --git-path hooks` (the oracle, run
// in the same environment) for real layouts: a plain repository, a linked worktree,
// --separate-git-dir and a submodule; core.hooksPath relative, absolute and ~/; set in global
// configuration through HOME, XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM; set by
// include.path and by an includeIf "gitdir:" section (matching, and not matching). It also
// checks Source and ConfigFile.
func TestHooksDirMatchesGit(t *testing.T) {
	cases := []struct {
		name string
		// setup returns the work tree to ask about and the file expected to set core.hooksPath
		// ("" for the default location).
		setup func(t *testing.T, home, root string) (wt, file string)
	}{
		{"default", func(t *testing.T, home, root string) (string, string) { return root, "" }},
		{"relative hooksPath", func(t *testing.T, home, root string) (string, string) {
			git(t, root, "config", "core.hooksPath", ".githooks")
			return root, filepath.Join(root, ".git", "config")
		}},
		{"absolute hooksPath", func(t *testing.T, home, root string) (string, string) {
			git(t, root, "config", "core.hooksPath", filepath.Join(home, "abs-hooks"))
			return root, filepath.Join(root, ".git", "config")
		}},
		{"home hooksPath", func(t *testing.T, home, root string) (string, string) {
			git(t, root, "config", "core.hooksPath", "~/my-hooks")
			return root, filepath.Join(root, ".git", "config")
		}},
		{"global hooksPath", func(t *testing.T, home, root string) (string, string) {
			git(t, root, "config", "--global", "core.hooksPath", "~/global-hooks")
			return root, filepath.Join(home, ".gitconfig")
		}},
		{"XDG hooksPath", func(t *testing.T, home, root string) (string, string) {
			writeFile(t, filepath.Join(home, ".config", "git", "config"), "[core]\n\thooksPath = ~/xdg-hooks\n")
			return root, filepath.Join(home, ".config", "git", "config")
		}},
		{"GIT_CONFIG_GLOBAL", func(t *testing.T, home, root string) (string, string) {
			f := filepath.Join(home, "alt.gitconfig")
			writeFile(t, f, "[core]\n\thooksPath = /alt-hooks\n")
			writeFile(t, filepath.Join(home, ".gitconfig"), "[core]\n\thooksPath = /not-these\n")
			t.Setenv("GIT_CONFIG_GLOBAL", f)
			return root, f
		}},
		{"GIT_CONFIG_SYSTEM", func(t *testing.T, home, root string) (string, string) {
			f := filepath.Join(home, "system.gitconfig")
			writeFile(t, f, "[core]\n\thooksPath = /system-hooks\n")
			t.Setenv("GIT_CONFIG_SYSTEM", f)
			unsetenv(t, "GIT_CONFIG_NOSYSTEM")
			return root, f
		}},
		{"local overrides global", func(t *testing.T, home, root string) (string, string) {
			git(t, root, "config", "--global", "core.hooksPath", "~/global-hooks")
			git(t, root, "config", "core.hooksPath", "local-hooks")
			return root, filepath.Join(root, ".git", "config")
		}},
		{"include.path", func(t *testing.T, home, root string) (string, string) {
			writeFile(t, filepath.Join(home, "extra.gitconfig"), "[core]\n\thooksPath = included-hooks\n")
			git(t, root, "config", "include.path", filepath.Join(home, "extra.gitconfig"))
			return root, filepath.Join(home, "extra.gitconfig")
		}},
		{"includeIf gitdir matching", func(t *testing.T, home, root string) (string, string) {
			f := filepath.Join(home, "work.gitconfig")
			writeFile(t, f, "[core]\n\thooksPath = ~/work-hooks\n")
			writeFile(t, filepath.Join(home, ".gitconfig"), "[includeIf \"gitdir:"+filepath.Dir(root)+"/\"]\n\tpath = "+f+"\n")
			return root, f
		}},
		{"includeIf gitdir not matching", func(t *testing.T, home, root string) (string, string) {
			f := filepath.Join(home, "work.gitconfig")
			writeFile(t, f, "[core]\n\thooksPath = ~/work-hooks\n")
			writeFile(t, filepath.Join(home, ".gitconfig"), "[includeIf \"gitdir:~/elsewhere/\"]\n\tpath = "+f+"\n")
			return root, ""
		}},
		{"linked worktree", func(t *testing.T, home, root string) (string, string) {
			wt := filepath.Join(filepath.Dir(root), filepath.Base(root)+"-wt")
			git(t, root, "worktree", "add", "-q", "-b", "side", wt)
			t.Cleanup(func() { os.RemoveAll(wt) })
			return wt, ""
		}},
		{"linked worktree with hooksPath", func(t *testing.T, home, root string) (string, string) {
			wt := filepath.Join(filepath.Dir(root), filepath.Base(root)+"-wt2")
			git(t, root, "worktree", "add", "-q", "-b", "side2", wt)
			t.Cleanup(func() { os.RemoveAll(wt) })
			git(t, root, "config", "core.hooksPath", ".githooks")
			return wt, filepath.Join(root, ".git", "config")
		}},
		{"separate git dir", func(t *testing.T, home, root string) (string, string) {
			wt := filepath.Join(t.TempDir(), "wt")
			git(t, root, "init", "-q", "--separate-git-dir", filepath.Join(home, "sep.git"), wt)
			return wt, ""
		}},
		{"submodule", func(t *testing.T, home, root string) (string, string) {
			lib := newRepo(t)
			git(t, root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
			return filepath.Join(root, "lib"), ""
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := gitEnv(t)
			root := newRepo(t)
			wt, file := tc.setup(t, home, root)
			want := gitHooksDir(t, wt)
			loc, err := HooksDir(context.Background(), openRepo(t, wt))
			if err != nil {
				t.Fatal(err)
			}
			source := "default"
			if file != "" {
				source = "core.hooksPath"
			}
			if loc.Dir != want || loc.Source != source || loc.ConfigFile != file {
				t.Errorf("HooksDir = %q (%s, %q), git says %q (want %s, %q)", loc.Dir, loc.Source, loc.ConfigFile, want, source, file)
			}
			if file == "" && filepath.Base(loc.Dir) != "hooks" {
				t.Errorf("default hooks directory %q", loc.Dir)
			}
		})
	}
}

// The repository is the one opened, whatever GIT_DIR, GIT_WORK_TREE and GIT_CONFIG_PARAMETERS
// say in mastermind's environment.
func TestHooksDirIgnoresRepositoryEnvironment(t *testing.T) {
	gitEnv(t)
	root := newRepo(t)
	other := newRepo(t)
	git(t, other, "config", "core.hooksPath", "/other-hooks")
	want := gitHooksDir(t, root)
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.hookspath'='/param-hooks'")
	loc, err := HooksDir(context.Background(), openRepo(t, root))
	if err != nil {
		t.Fatal(err)
	}
	if loc.Dir != want || loc.Source != "default" {
		t.Errorf("HooksDir = %+v, want %q (default)", loc, want)
	}
}

// Without a git binary there is no answer: a clear error, and nothing is written.
func TestHooksDirNeedsGit(t *testing.T) {
	gitEnv(t)
	root := newRepo(t)
	repo, err := gitscope.OpenWith(root, gitscope.Options{LookPath: func(string) (string, error) { return "", exec.ErrNotFound }})
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.RemoveAll(filepath.Join(root, ".git", "hooks")))
	_, err = InstallHook(context.Background(), repo, HookOptions{FailOn: "drift"})
	if !errors.Is(err, gitscope.ErrNoGitForHooks) {
		t.Fatalf("err = %v, want ErrNoGitForHooks", err)
	}
	if _, err := os.Lstat(filepath.Join(root, ".git", "hooks")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("hooks directory created without git: %v", err)
	}
}

// An empty core.hooksPath is refused rather than guessed.
func TestHooksDirEmptyHooksPath(t *testing.T) {
	gitEnv(t)
	root := newRepo(t)
	git(t, root, "config", "core.hooksPath", "")
	if _, err := HooksDir(context.Background(), openRepo(t, root)); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("err = %v, want an empty core.hooksPath error", err)
	}
}

func TestInstallHook(t *testing.T) {
	gitEnv(t)
	root := newRepo(t)
	hook := filepath.Join(root, ".git", "hooks", "pre-push")

	res, err := install(t, root, HookOptions{FailOn: "drift"})
	if err != nil || res.Action != HookInstalled || res.Path != hook {
		t.Fatalf("fresh install: %+v, %v", res, err)
	}
	checkHook(t, hook, `"$mm" gate --base "$base" --head "$local_sha" --fail-on drift </dev/null`)

	res, err = install(t, root, HookOptions{FailOn: "drift"})
	if err != nil || res.Action != HookUnchanged {
		t.Fatalf("second install: %+v, %v", res, err)
	}

	res, err = install(t, root, HookOptions{FailOn: "broken"})
	if err != nil || res.Action != HookUpdated {
		t.Fatalf("reinstall with --fail-on broken: %+v, %v", res, err)
	}
	checkHook(t, hook, `"$mm" gate --base "$base" --head "$local_sha" </dev/null`)

	// A hook of ours that lost its executable bit is rewritten executable.
	must(t, os.Chmod(hook, 0o644))
	if res, err = install(t, root, HookOptions{FailOn: "broken"}); err != nil || res.Action != HookUpdated {
		t.Fatalf("non-executable hook of ours: %+v, %v", res, err)
	}
	checkHook(t, hook, `"$mm" gate --base "$base" --head "$local_sha" </dev/null`)
}

func TestInstallHookForeign(t *testing.T) {
	gitEnv(t)
	root := newRepo(t)
	hook := filepath.Join(root, ".git", "hooks", "pre-push")
	foreign := "#!/bin/sh\necho custom\n"
	writeFile(t, hook, foreign)

	_, err := install(t, root, HookOptions{FailOn: "drift"})
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "--force") {
		t.Fatalf("foreign hook: err = %v, want a RefusedError mentioning --force", err)
	}
	if b, _ := os.ReadFile(hook); string(b) != foreign {
		t.Fatalf("foreign hook changed: %q", b)
	}
	res, err := install(t, root, HookOptions{FailOn: "drift", Force: true})
	if err != nil || res.Action != HookReplaced {
		t.Fatalf("--force: %+v, %v", res, err)
	}
	checkHook(t, hook, "--fail-on drift </dev/null") // 0644 foreign file replaced by a 0755 hook
}

func TestInstallHookNeverFollowsLinks(t *testing.T) {
	gitEnv(t)
	root := newRepo(t)
	target := filepath.Join(t.TempDir(), "target")
	writeFile(t, target, "precious\n")
	hook := filepath.Join(root, ".git", "hooks", "pre-push")
	must(t, os.Symlink(target, hook))
	for _, force := range []bool{false, true} {
		_, err := install(t, root, HookOptions{FailOn: "drift", Force: force})
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
	_, err := install(t, root2, HookOptions{FailOn: "drift"})
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
	res, err := install(t, root, HookOptions{FailOn: "drift"})
	if err != nil || res.Location.Source != "core.hooksPath" {
		t.Fatalf("%+v, %v", res, err)
	}
	checkHook(t, filepath.Join(root, ".githooks", "nested", "pre-push"), "--fail-on drift </dev/null")
}

func checkHook(t *testing.T, path, suffix string) { // suffix: a text the hook must hold
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o755 || !fi.Mode().IsRegular() {
		t.Errorf("%s: mode %v, want regular 0755", path, fi.Mode())
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), "#!/bin/sh\n"+HookMarker+" v2\n") || !strings.Contains(string(b), suffix) {
		t.Errorf("%s: unexpected text:\n%s", path, b)
	}
}
