package gitscope

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// HooksDir asks git without the core.hooksPath=/dev/null pin (with it git answers the null
// device), keeps the pin on every other command, makes relative answers absolute from the root,
// and does not resolve a symlinked hooks directory (the caller refuses it).
func TestHooksDirAsksGitWithoutTheHooksPin(t *testing.T) {
	if !slices.Contains(globalArgs, "core.hooksPath="+os.DevNull) || slices.Contains(baseGlobalArgs, "core.hooksPath="+os.DevNull) {
		t.Fatalf("globalArgs %q must carry the hooks pin, baseGlobalArgs %q must not", globalArgs, baseGlobalArgs)
	}
	f := newFixture(t)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	r, err := Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := r.HooksDir(ctx)
	if err != nil {
		t.Fatal(err)
	}
	common := filepath.Join(f.dir, ".git")
	if want := (HooksLocation{Dir: filepath.Join(common, "hooks"), CommonDir: common}); loc != want {
		t.Errorf("default: %+v, want %+v", loc, want)
	}

	f.git("config", "core.hooksPath", "sub/../.githooks")
	loc, err = r.HooksDir(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := HooksLocation{Dir: f.path(".githooks"), Configured: true, Value: "sub/../.githooks",
		Origin: "file:" + filepath.Join(common, "config"), CommonDir: common}
	if loc != want {
		t.Errorf("core.hooksPath: %+v, want %+v", loc, want)
	}

	f.git("config", "--unset", "core.hooksPath")
	f.remove(".git/hooks")
	f.symlink(f.tmp(), ".git/hooks")
	if loc, err = r.HooksDir(ctx); err != nil || loc.Dir != filepath.Join(common, "hooks") {
		t.Errorf("symlinked hooks directory: %+v, %v; want it unresolved", loc, err)
	}
}

// GIT_CONFIG_GLOBAL decides where the user's git looks for hooks, so it is handed on; GIT_DIR is
// not (the repository is the opened one).
func TestHooksDirEnvironment(t *testing.T) {
	f := newFixture(t)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	other := newFixture(t)
	global := filepath.Join(f.tmp(), "global.gitconfig")
	if err := os.WriteFile(global, []byte("[core]\n\thooksPath = /global-hooks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_DIR", filepath.Join(other.dir, ".git"))
	r, err := Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := r.HooksDir(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if loc.Dir != "/global-hooks" || loc.Origin != "file:"+global || loc.CommonDir != filepath.Join(f.dir, ".git") {
		t.Errorf("%+v", loc)
	}
}

func TestHooksDirWithoutGit(t *testing.T) {
	f := newFixture(t)
	r, err := OpenWith(f.dir, noGit)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.HooksDir(ctx); !errors.Is(err, ErrNoGitForHooks) {
		t.Fatalf("err = %v, want ErrNoGitForHooks", err)
	}
}
