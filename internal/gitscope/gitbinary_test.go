package gitscope

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
	cases := []struct {
		name string
		opts Options
		env  string
		want bool
		path string
	}{
		{"planted in a writable directory", Options{LookPath: func(string) (string, error) { return planted, nil }, Geteuid: nonRoot}, "", true, planted},
		{"root is exempt", Options{LookPath: func(string) (string, error) { return planted, nil }, Geteuid: func() int { return 0 }}, "", false, planted},
		{"MASTERMIND_GIT", Options{Geteuid: nonRoot}, planted, true, planted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("MASTERMIND_GIT", tc.env)
			}
			r, err := OpenWith(f.dir, tc.opts)
			must(t, err)
			p, v, w := r.GitBinary(context.Background())
			if p != tc.path || w != tc.want || v == "" {
				t.Errorf("GitBinary = %q %q %v, want %q, a version, %v", p, v, w, tc.path, tc.want)
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
		if _, _, w := r.GitBinary(context.Background()); w {
			t.Errorf("%s reported writable", real)
		}
	}
}
