package gitscope

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitBinaryUserWritable (trust-model.md §6): a git in a directory the current user can write
// (where an executor could plant one) is reported; root is exempt; $MASTERMIND_GIT chooses the
// binary and must be an absolute path to an executable.
func TestGitBinaryUserWritable(t *testing.T) {
	f := newFixture(t)
	stdBase(f)
	real, err := exec.LookPath("git")
	must(t, err)
	dir := filepath.Join(t.TempDir(), "bin")
	must(t, os.MkdirAll(dir, 0o755))
	planted := filepath.Join(dir, "git")
	must(t, os.Symlink(real, planted))
	uid := os.Getuid()
	if uid == 0 {
		uid = 4242 // act as an ordinary user owning nothing
		must(t, os.Chown(dir, uid, -1))
	}
	nonRoot := func() int { return uid }
	root := func() int { return 0 }
	// A root-owned copy in a root-owned 0755 folder outside the system folders (MASTERMIND_GIT
	// chooses the location, so only ownership is checked).
	rootOwned := filepath.Join(t.TempDir(), "rootbin", "git")
	must(t, os.MkdirAll(filepath.Dir(rootOwned), 0o755))
	must(t, os.Symlink(real, rootOwned))
	if os.Getuid() != 0 {
		t.Log("not root: the root-owned cases use files this user owns")
	}
	cases := []struct {
		name string
		opts Options
		env  string
		want GitBinaryRisk
		path string
	}{
		{"planted in a writable directory", Options{LookPath: func(string) (string, error) { return planted, nil }, Geteuid: nonRoot}, "", GitRiskUserWritable, planted},
		// #26 item 8: root is no longer exempt.
		{"root, planted outside the system folders", Options{LookPath: func(string) (string, error) { return planted, nil }, Geteuid: root}, "", GitRiskNotSystem, planted},
		{"root, the system git", Options{LookPath: func(string) (string, error) { return real, nil }, Geteuid: root}, "", "", real},
		{"root, MASTERMIND_GIT in a folder another user owns", Options{Geteuid: root}, planted, GitRiskNotRootOwned, planted},
		{"root, a root-owned MASTERMIND_GIT outside the system folders", Options{Geteuid: root}, rootOwned, "", rootOwned},
		{"MASTERMIND_GIT", Options{Geteuid: nonRoot}, planted, GitRiskUserWritable, planted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("MASTERMIND_GIT", tc.env)
			}
			r, err := OpenWith(f.dir, tc.opts)
			must(t, err)
			if os.Getuid() != 0 && strings.HasPrefix(tc.name, "root,") {
				t.Skip("needs files owned by root")
			}
			p, v, w := r.GitBinary(context.Background())
			if p != tc.path || w != tc.want || v == "" {
				t.Errorf("GitBinary = %q %q %q, want %q, a version, %q", p, v, w, tc.path, tc.want)
			}
		})
	}
	t.Run("MASTERMIND_GIT relative", func(t *testing.T) {
		t.Setenv("MASTERMIND_GIT", "git")
		r, err := OpenWith(f.dir, Options{})
		must(t, err)
		if p, _, _ := r.GitBinary(context.Background()); p != "" {
			t.Errorf("a relative MASTERMIND_GIT was used: %q", p)
		}
	})
	if os.Getuid() != 0 {
		// The system git is not writable by an ordinary user.
		r, err := OpenWith(f.dir, Options{LookPath: func(string) (string, error) { return real, nil }})
		must(t, err)
		if _, _, w := r.GitBinary(context.Background()); w != "" {
			t.Errorf("%s reported writable", real)
		}
	}
}
